"""The public game API: :class:`Game`, a game state with friendly, typed methods.

>>> from gonuts import Game
>>> game = Game.new(["Ana", "Ben", "Cy"], seed=7)
>>> game.to_act
(0, 1, 2)
>>> [str(a) for a in game.legal_actions(0)]
['pick 1', 'pick 2', 'pick 3', 'pick 4']
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence

from gonuts import rules
from gonuts.actions import ACTIONS, Action, parse_action
from gonuts.cards import KIND_IDS, NUM_KINDS, canonical_deck, check_player_count, kind_index
from gonuts.errors import IllegalActionError
from gonuts.events import Event
from gonuts.powers import POWER_BY_PHASE
from gonuts.rng import seeded_shuffle
from gonuts.scoring import ScoreBreakdown, breakdown, scores
from gonuts.state import GameConfig, GameState, Phase
from gonuts.variants import check_variants, ordered
from gonuts.view import PlayerView, make_view, make_views

K = NUM_KINDS


def default_names(players: int) -> tuple[str, ...]:
    return tuple(f"Player {i + 1}" for i in range(players))


def deck_from_seed(players: int, seed: int) -> tuple[int, ...]:
    """The shuffled deck (top first) for ``players`` and ``seed``; see :mod:`gonuts.rng`."""
    return tuple(seeded_shuffle(canonical_deck(players), seed))


class Game:
    """A game of Go Nuts for Donuts in progress: who acts, what is legal, apply, view, score.

    Wraps the compact :class:`~gonuts.state.GameState` (``game.state``, for search code that
    drives :mod:`gonuts.rules` directly). Cheap to :meth:`copy`. Seats are 0-based ints; row
    positions in notation are 1-based.
    """

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    @classmethod
    def new(
        cls,
        players: int | Sequence[str] = 3,
        *,
        seed: int | None = None,
        deck: Sequence[str] | None = None,
        events: bool = True,
        variants: Iterable[str] = (),
    ) -> Game:
        """A new game, dealt. ``deck`` (top first) wins over ``seed``; neither: a random seed.

        ``variants`` names house rules of RULES.md (:data:`gonuts.variants.VARIANTS`); an unknown
        name raises :class:`~gonuts.variants.UnknownVariantError`.
        """
        names = default_names(players) if isinstance(players, int) else tuple(players)
        check_player_count(len(names))
        chosen = check_variants(variants)
        if deck is not None:
            initial = tuple(kind_index(k) for k in deck)
            if sorted(initial) != list(canonical_deck(len(names))):
                raise ValueError(f"not the deck for {len(names)} players")
        else:
            initial = deck_from_seed(len(names), secrets.randbits(63) if seed is None else seed)
        return cls(rules.setup(GameConfig(names, initial, chosen), events=events))

    def copy(self, *, events: bool = True) -> Game:
        """An independent copy; ``events=False`` drops the event log (cheaper)."""
        return Game(self.state.copy(events=events))

    # -- the table -------------------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.config.players

    @property
    def num_players(self) -> int:
        return self.state.n

    @property
    def variants(self) -> tuple[str, ...]:
        """The house-rule variants in play, in RULES.md order; () for the default game."""
        return ordered(self.state.config.variants)

    @property
    def round(self) -> int:
        """1 for the first round; counts rounds begun."""
        return self.state.round

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def row(self) -> tuple[str | None, ...]:
        """Positions 1 … N+1 (index 0 is position 1); None where empty."""
        return tuple(KIND_IDS[c] if c >= 0 else None for c in self.state.row)

    @property
    def deck_size(self) -> int:
        return len(self.state.deck)

    @property
    def discard_pile(self) -> tuple[str, ...]:
        """Bottom card first, top card last."""
        return tuple(KIND_IDS[c] for c in self.state.discard)

    def collection(self, player: int) -> dict[str, int]:
        """Kind → count for one seat (kinds it does not own are left out)."""
        base = player * K
        return {
            KIND_IDS[k]: self.state.coll[base + k] for k in range(K) if self.state.coll[base + k]
        }

    @property
    def collections(self) -> list[dict[str, int]]:
        return [self.collection(p) for p in range(self.state.n)]

    @property
    def is_over(self) -> bool:
        return self.state.phase is Phase.OVER

    @property
    def pending_power(self) -> str | None:
        """The ★ card whose power awaits a decision, if any."""
        power = POWER_BY_PHASE.get(self.state.phase)
        return KIND_IDS[power.kind] if power is not None else None

    @property
    def selections(self) -> tuple[int | None, ...]:
        """This round's picks, 1-based, once revealed (all None while players are choosing).

        Pending picks are secret: use :meth:`view` to show a seat its own.
        """
        if self.state.phase is Phase.SELECT:
            return (None,) * self.state.n
        return tuple(p + 1 if p >= 0 else None for p in self.state.picks)

    # -- deciding ---------------------------------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now (several at once in a simultaneous phase); () when over."""
        return tuple(rules.to_act(self.state))

    def legal_actions(self, player: int) -> list[Action]:
        """Every legal action for ``player`` now, sorted by notation; [] if nothing to decide."""
        return sorted(ACTIONS[i] for i in rules.legal_ids(self.state, player))

    def legal_action_ids(self, player: int) -> Sequence[int]:
        """Legal action ids (fast path for search and environments)."""
        return rules.legal_ids(self.state, player)

    def apply(self, player: int, action: Action | str) -> None:
        """Take ``action`` for ``player`` and run the game on to the next decision.

        Raises :class:`~gonuts.errors.MalformedActionError` for a string that is not notation,
        :class:`~gonuts.errors.NotYourTurnError`, :class:`~gonuts.errors.GameOverError` or
        :class:`~gonuts.errors.IllegalActionError`; after an error the game is unchanged.
        """
        if isinstance(action, str):
            action = parse_action(action)
        elif not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        rules.apply(self.state, player, action.id)

    def apply_id(self, player: int, action_id: int) -> None:
        """:meth:`apply` by action id (validated)."""
        rules.apply(self.state, player, action_id)

    # -- scores, views, history ------------------------------------------------------------------

    def scores(self) -> list[int]:
        """End-game scoring of the collections as they are now (defined at every point)."""
        return scores(self.state.coll, self.state.n)

    def score_breakdown(self) -> list[ScoreBreakdown]:
        """Each seat's score kind by kind, with reasons, for screens that explain a score."""
        return breakdown(self.state.coll, self.state.n)

    @property
    def winner_seats(self) -> tuple[int, ...]:
        """Seats that won (several if they share the victory); () until the game is over."""
        return self.state.winners

    def view(self, player: int) -> PlayerView:
        """What ``player`` may know, with nothing hidden reachable from it."""
        return make_view(self.state, player)

    def views(self, players: Iterable[int | None]) -> dict[int | None, PlayerView]:
        """:meth:`view` (None: :meth:`public_view`) for several seats at once, sharing the
        public parts: cheaper than one view per seat."""
        return make_views(self.state, players)

    def public_view(self) -> PlayerView:
        """What a spectator may know: public information only (``seat`` is None)."""
        return make_view(self.state, None)

    @property
    def event_log(self) -> tuple[Event, ...]:
        """Every event so far, private ones included (use :meth:`events_for` for a seat)."""
        return tuple(self.state.events or ())

    def events_for(self, player: int) -> tuple[Event, ...]:
        return tuple(e for e in (self.state.events or ()) if e.visible_to in (None, player))

    def actions_taken(self) -> list[tuple[int, Action]]:
        """The recorded decisions so far, oldest first, as (seat, action)."""
        out: list[tuple[int, Action]] = []
        node = self.state.history
        while node is not None:
            node, player, action_id = node
            out.append((player, ACTIONS[action_id]))
        out.reverse()
        return out

    @property
    def initial_deck(self) -> tuple[str, ...]:
        """The deck as dealt, top card first."""
        return tuple(KIND_IDS[c] for c in self.state.config.initial_deck)

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"round {self.state.round}, {self.state.phase.value}"
        return f"<Game {self.state.n} players, {state}, deck {len(self.state.deck)}>"
