"""OpenSpiel: importing this module registers the Python game ``python_gonuts``.

>>> import pyspiel, gonuts.envs.openspiel
>>> game = pyspiel.load_game("python_gonuts", {"players": 4})
>>> game.num_players(), game.num_distinct_actions()
(4, 522)

The model (parameter ``players``, 2–6, default 3; ``variants``, house rules of RULES.md as one
string of names joined by ``+`` — a comma is accepted too, but only ``+`` survives OpenSpiel's
game strings — default ``""``: the default game):

* **Chance** deals the deck: one chance node per card from the top, each outcome a card kind
  with probability proportional to the cards of that kind not yet dealt (every deck order of
  the multiset is equally likely, as with a shuffle). When only one kind is left the rest of
  the deck is forced and dealt at once. Nobody observes these outcomes; the row is then dealt
  from the top of the deck as the rules say.
* **Simultaneous nodes**: every round's selection, and Cinnamon Twist passes while two or
  more players still have a real choice. A player with nothing to decide there has the single
  legal action :data:`NOOP` (id 521).
* **Sequential nodes**: every other decision (a ★ power's choices, a last Cinnamon Twist pass)
  belongs to one player.
* Actions are the ids of :mod:`gonuts.envs.encoding` (seats relative to the acting player);
  :meth:`~pyspiel.State.action_to_string` writes them in RECORD.md notation (absolute seats).
* **Returns** are the terminal win share (1 to a sole winner, ``1/w`` to each of ``w`` players
  sharing the victory): a constant-sum game with utility sum 1.
* **Observations**: the tensor is :func:`~gonuts.envs.encoding.encode_observation` of the
  player's view (``OBS_SIZE`` floats; all zeros while the deck is being dealt); the string is
  a compact text of the same view. A public observer (``private_info=NONE``) uses the
  spectator's view.
* **Information state**: the string is perfect recall — the player's whole event log (public
  events and its own private ones, e.g. the card it put back with Double Chocolate) followed by
  the observation string. The tensor is the observation tensor: it holds everything the
  current decision depends on, but it is *not* perfect recall (the order of past events is
  summarised away); algorithms that need exact information-state tensors should use strings.
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any, Final

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped,unused-ignore]

from gonuts import rules
from gonuts.actions import ACTIONS
from gonuts.cards import KIND_IDS, NUM_KINDS, deck_counts
from gonuts.envs.encoding import (
    NUM_ENV_ACTIONS,
    OBS_SIZE,
    encode_observation,
    from_env_action,
    legal_env_actions,
    terminal_rewards,
)
from gonuts.events import Event
from gonuts.game import Game, default_names
from gonuts.playout import random_playout
from gonuts.scoring import scores
from gonuts.state import GameConfig, GameState, Phase
from gonuts.variants import check_variants, ordered
from gonuts.view import PlayerView, make_view

NOOP: Final = NUM_ENV_ACTIONS
"""The action of a player with nothing to decide at a simultaneous node."""
NUM_DISTINCT_ACTIONS: Final = NUM_ENV_ACTIONS + 1
DEFAULT_PLAYERS: Final = 3
MAX_ROUNDS: Final = 70
"""Each round takes at least one card off a deck of at most 70: an upper bound on rounds."""
MAX_POWER_DECISIONS: Final = 70 * 8
"""Upper bound on decisions inside ★ powers (≤ 8 for one card, French Cruller included)."""

_GAME_TYPE = pyspiel.GameType(
    short_name="python_gonuts",
    long_name="Python Go Nuts for Donuts",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification={"players": DEFAULT_PLAYERS, "variants": ""},
)


class GoNutsGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game ``python_gonuts`` (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", DEFAULT_PLAYERS))
        if not 2 <= players <= 6:
            raise ValueError(f"python_gonuts has 2 to 6 players, not {players}")
        self.players = players
        names = str(params.get("variants", "")).replace(",", "+").split("+")
        self.variants = check_variants(n.strip() for n in names if n.strip())
        """House rules (RULES.md "Variants"): one string parameter, names joined by ``+``."""
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=NUM_DISTINCT_ACTIONS,
                max_chance_outcomes=NUM_KINDS,
                num_players=players,
                min_utility=0.0,
                max_utility=1.0,
                utility_sum=1.0,
                max_game_length=MAX_ROUNDS + MAX_POWER_DECISIONS,
            ),
            {"players": players, "variants": "+".join(ordered(self.variants))},
        )

    def new_initial_state(self) -> GoNutsState:
        return GoNutsState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> GoNutsObserver:
        return GoNutsObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Game(Game):
    """A :class:`~gonuts.game.Game` that deep-copies cheaply (OpenSpiel clones by deepcopy).

    The engine's own copy shares the immutable parts (config, history, events) safely.
    """

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, object]) -> _Game:
        return _Game(self.state.copy())


class GoNutsState(pyspiel.State):  # type: ignore[misc]
    """A game in progress: dealing (chance), then the engine's state."""

    def __init__(self, game: GoNutsGame) -> None:
        super().__init__(game)
        self.n = game.players
        self.variants = game.variants
        self.remaining = list(deck_counts(self.n))
        self.dealt: list[int] = []
        """The deck dealt so far, top card first."""
        self.game: Game | None = None

    # -- the engine ----------------------------------------------------------------------------

    @property
    def engine(self) -> GameState:
        if self.game is None:
            raise ValueError("the deck is still being dealt")
        return self.game.state

    def _deal(self, kind: int) -> None:
        self.dealt.append(kind)
        self.remaining[kind] -= 1
        left = [k for k in range(NUM_KINDS) if self.remaining[k]]
        if len(left) == 1:
            k = left[0]
            self.dealt.extend([k] * self.remaining[k])
            self.remaining[k] = 0
        if not any(self.remaining):
            config = GameConfig(default_names(self.n), tuple(self.dealt), variants=self.variants)
            self.game = _Game(rules.setup(config))

    def view(self, player: int | None) -> PlayerView | None:
        """``player``'s view (None: a spectator's), or None while dealing."""
        return None if self.game is None else make_view(self.game.state, player)

    # -- OpenSpiel API ---------------------------------------------------------------------------

    def current_player(self) -> int:
        if self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        state = self.game.state
        if state.phase is Phase.OVER:
            return int(pyspiel.PlayerId.TERMINAL)
        to_act = rules.to_act(state)
        if state.phase is Phase.SELECT or len(to_act) > 1:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return to_act[0]

    def _legal_actions(self, player: int) -> list[int]:
        if self.game is None or self.game.is_over:
            return []
        state = self.game.state
        legal = legal_env_actions(rules.legal_ids(state, player), player, self.n)
        if self.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
            return legal or [NOOP]
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        total = sum(self.remaining)
        return [(k, c / total) for k, c in enumerate(self.remaining) if c]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            outcomes = [k for k, _ in self.chance_outcomes()]
            if action not in outcomes:
                raise ValueError(
                    f"chance node: {action!r} is not a possible outcome now (outcomes: "
                    f"{', '.join(f'{k} ({KIND_IDS[k]})' for k in outcomes)})"
                )
            self._deal(action)
            return
        player = self.current_player()
        self._check_legal(player, action)
        rules.apply(self.game.state, player, from_env_action(action, player, self.n))

    def _check_legal(self, player: int, action: int) -> None:
        legal = self._legal_actions(player)
        if action not in legal:
            raise ValueError(
                f"player {player}: action {action!r} is not legal now (legal: "
                f"{', '.join(f'{a} ({self._action_to_string(player, a)})' for a in legal)})"
            )

    def _apply_actions(self, actions: list[int]) -> None:
        state = self.engine
        if len(actions) != self.n:
            raise ValueError(f"one action per player ({self.n}), not {len(actions)}")
        for p, a in enumerate(actions):
            self._check_legal(p, a)
        chosen = [(p, from_env_action(a, p, self.n)) for p, a in enumerate(actions) if a != NOOP]
        for p, action_id in chosen:
            rules.apply(state, p, action_id)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {KIND_IDS[action]}"
        if action == NOOP:
            return "wait"
        try:
            return action_notation(action, player, self.n)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_over

    def returns(self) -> list[float]:
        if self.game is None or not self.game.is_over:
            return [0.0] * self.n
        return terminal_rewards(self.game.scores(), self.game.winner_seats)

    def __str__(self) -> str:
        if self.game is None:
            return "dealing: " + " ".join(KIND_IDS[k] for k in self.dealt)
        state = self.game.state
        deck = " ".join(KIND_IDS[k] for k in reversed(state.deck))
        return (
            f"{observation_string(make_view(state, None))}\n"
            f"picks {state.picks} passes {state.passes}\ndeck (top first): {deck}"
        )


def action_notation(action: int, player: int, players: int) -> str:
    """RECORD.md notation (absolute seats) of ``player``'s environment action ``action``."""
    return ACTIONS[from_env_action(action, player, players)].notation


def observation_string(view: PlayerView) -> str:
    """A compact, complete text of what ``view`` shows (seats absolute)."""
    parts = [
        f"seat {view.seat}",
        f"round {view.round}",
        f"phase {view.phase.value}",
        "row " + ",".join(c or "-" for c in view.row),
        f"deck {view.deck_size}",
        "discard " + ",".join(view.discard),
    ]
    for p, coll in enumerate(view.collections):
        items = ",".join(f"{k}:{v}" for k, v in sorted(coll.items()))
        parts.append(f"p{p} [{view.scores[p]}] {items}")
    parts.append("selections " + ",".join("?" if s is None else str(s) for s in view.selections))
    parts.append("waiting " + ",".join(map(str, view.waiting_for)))
    if view.power is not None:
        parts.append(f"power {view.power} by {view.actor} at {view.resolving} step {view.step}")
    if view.drawn:
        parts.append("drawn " + ",".join(view.drawn))
    if view.known_deck_top is not None:
        parts.append(f"deck top {view.known_deck_top}")
    if view.my_pass is not None:
        parts.append(f"my pass {view.my_pass}")
    if view.over:
        parts.append("winners " + ",".join(map(str, view.winners)))
    return " | ".join(parts)


@functools.lru_cache(maxsize=1 << 16)
def event_text(event: Event) -> str:
    """A compact, exact text of one event (cached: events are immutable and recur a lot)."""
    return json.dumps(event.to_json(), separators=(",", ":"))


class GoNutsObserver:
    """Observation / information-state tensors and strings (PyObserver interface)."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info != pyspiel.PrivateInfoType.NONE
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def _view(self, state: GoNutsState, player: int) -> PlayerView | None:
        return state.view(player if self.private else None)

    def set_from(self, state: GoNutsState, player: int) -> None:
        view = self._view(state, player)
        if view is None:
            self.tensor.fill(0.0)
        else:
            encode_observation(view, out=self.tensor)

    def string_from(self, state: GoNutsState, player: int) -> str:
        view = self._view(state, player)
        if view is None:
            return f"p{player} dealing {len(state.dealt)}"
        text = observation_string(view)
        if not self.perfect_recall:
            return text
        log = ";".join(map(event_text, view.events))
        return f"p{player} log {log} || {text}"


# -- fast search helpers ------------------------------------------------------------------------


def replay_engine_state(players: int, history: Any) -> GameState | None:
    """The engine state reached by an OpenSpiel history, without an event log.

    ``history`` is ``state.full_history()`` of a ``python_gonuts`` state or of its
    ``turn_based_simultaneous_game`` conversion (whose simultaneous actions are listed one
    player at a time — a partial round of choices replays as choices already made). Returns
    None while the deck is still being dealt.
    """
    remaining = list(deck_counts(players))
    deck: list[int] = []
    state: GameState | None = None
    chance = int(pyspiel.PlayerId.CHANCE)
    for item in history:
        player, action = int(item.player), int(item.action)
        if player == chance:
            deck.append(action)
            remaining[action] -= 1
            left = [k for k in range(NUM_KINDS) if remaining[k]]
            if len(left) == 1:
                deck.extend([left[0]] * remaining[left[0]])
                remaining[left[0]] = 0
            if not any(remaining):
                state = rules.setup(GameConfig(default_names(players), tuple(deck)), events=False)
        elif action != NOOP and state is not None:
            rules.apply_unchecked(state, player, from_env_action(action, player, players))
    return state


class PlayoutEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """An MCTS leaf evaluator: random playouts in the engine (fast) instead of in OpenSpiel.

    Same values as :class:`open_spiel.python.algorithms.mcts.RandomRolloutEvaluator` — the
    mean win share of uniformly random continuations — at a fraction of the cost: the leaf's
    history is replayed into an engine state and played out with
    :func:`gonuts.playout.random_playout`. Priors are uniform.
    """

    def __init__(self, players: int, n_rollouts: int = 1, seed: int | None = None) -> None:
        self.players = players
        self.n_rollouts = n_rollouts
        self.rng = random.Random(seed)

    def evaluate(self, state: Any) -> np.ndarray[Any, Any]:
        base = replay_engine_state(self.players, state.full_history())
        total = np.zeros(self.players)
        if base is None:  # still dealing: no information, equal shares
            return total + 1.0 / self.players
        for _ in range(self.n_rollouts):
            g = base.copy(events=False)
            random_playout(g, self.rng)
            total += terminal_rewards(scores(g.coll, g.n), g.winners)
        return total / self.n_rollouts

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


pyspiel.register_game(_GAME_TYPE, GoNutsGame)
