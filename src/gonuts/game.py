"""The public game API: :class:`Game`, a game state with friendly, typed methods.

>>> from gonuts import Game
>>> game = Game.new(["Ana", "Ben", "Cy"], seed=7)
>>> game.to_act
(0, 1, 2)
>>> [str(a) for a in game.legal_actions(0)]
['pick 1', 'pick 2', 'pick 3', 'pick 4']
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Sequence
from typing import Final

from gonuts import position as _position
from gonuts import rules
from gonuts.actions import ACTIONS, Action, parse_action
from gonuts.cards import (
    KIND_BY_ID,
    KIND_IDS,
    MAX_PLAYERS,
    NUM_KINDS,
    canonical_deck,
    check_player_count,
    kind_index,
)
from gonuts.errors import IllegalActionError, MalformedActionError, NotYourTurnError
from gonuts.events import Event
from gonuts.powers import POWER_BY_PHASE
from gonuts.rng import seeded_shuffle
from gonuts.scoring import ScoreBreakdown, breakdown, scores
from gonuts.state import GameConfig, GameState, Phase
from gonuts.variants import check_variants, ordered
from gonuts.view import PlayerView, make_view, make_views

K = NUM_KINDS


def default_names(players: int) -> tuple[str, ...]:
    """``Player 0`` … ``Player N-1``: numbered as the seats are (from 0, as in RECORD.md)."""
    return tuple(f"Player {i}" for i in range(players))


_NUMBERED: Final = re.compile(
    r"(?:pick|discard) (?P<position>[0-9]+)|(?:take|give|discard) (?P<kind>[a-z_]+) "
    r"(?:from|to) (?P<seat>[0-9]+)"
)


def out_of_range(text: str) -> str | None:
    """Why ``text``, spelled as notation, cannot be legal in any game (a position or seat
    beyond 6 players), or None: such an action is illegal, not malformed."""
    found = _NUMBERED.fullmatch(text)
    if found is None:
        return None
    if found["position"] is not None and not 1 <= int(found["position"]) <= MAX_PLAYERS + 1:
        return f"no row position {int(found['position'])}"
    if found["kind"] in KIND_BY_ID and not 0 <= int(found["seat"] or 0) < MAX_PLAYERS:
        return f"no seat {int(found['seat'])}"
    return None


def normal_notation(text: str) -> str:
    """Notation as a person may type it (``Pick 1``, ``pick  1``): case and spacing folded
    into the canonical spelling that records hold."""
    return " ".join(text.split()).lower()


def deck_from_seed(players: int, seed: int) -> tuple[int, ...]:
    """The shuffled deck (top first) for ``players`` and ``seed``; see :mod:`gonuts.rng`."""
    return tuple(seeded_shuffle(canonical_deck(players), seed))


class Game:
    """A game of Go Nuts for Donuts in progress: who acts, what is legal, apply, view, score.

    Wraps the compact :class:`~gonuts.state.GameState` (``game.state``, for search code that
    drives :mod:`gonuts.rules` directly). Cheap to :meth:`copy`. Seats are 0-based ints; row
    positions in notation are 1-based.
    """

    __slots__ = ("origin", "state")

    def __init__(self, state: GameState, *, origin: GameState | None = None) -> None:
        self.state = state
        self.origin = origin
        """Where the history starts when not at the deal (:meth:`from_position`), else None."""

    @classmethod
    def from_position(cls, text: str, *, events: bool = True) -> Game:
        """The game at a position string (:mod:`gonuts.position`; :meth:`position` writes one);
        :class:`~gonuts.position.PositionError` for a string that is not one.

        >>> game = Game.new(["Ana", "Ben"], seed=2)
        >>> game.apply(0, "pick 1")
        >>> again = Game.from_position(game.position())
        >>> again == game, again.legal_actions(1) == game.legal_actions(1)
        (True, True)
        """
        state = _position.from_position(text, events=events)
        return cls(state, origin=state.copy(events=False))

    def position(self) -> str:
        """This position as one line of text (pending secret choices included)."""
        return _position.to_position(self.state)

    def __eq__(self, other: object) -> bool:
        """The same position (:meth:`GameState.__eq__ <gonuts.state.GameState.__eq__>`)."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.state == other.state

    __hash__ = None  # type: ignore[assignment]  # mutable

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
        return Game(self.state.copy(events=events), origin=self.origin)

    def undo(self) -> tuple[int, Action]:
        """Take back the last recorded decision (as python-chess's ``Board.pop``) and return it
        as (seat, action); :class:`IndexError` when there is none. The game is replayed from
        its start, so what the engine carried out by itself is taken back with it.

        >>> game = Game.new(["Ana", "Ben"], seed=2)
        >>> before = game.copy()
        >>> game.apply(1, "pick 3")
        >>> game.undo(), game == before
        ((1, Action('pick 3')), True)
        """
        taken = self.actions_taken()
        if not taken:
            raise IndexError("no decision to undo")
        events = self.state.events is not None
        if self.origin is not None:
            state = self.origin.copy(events=False)
            state.events = [] if events else None
        else:
            state = rules.setup(self.state.config, events=events)
        for seat, action in taken[:-1]:
            rules.apply(state, seat, action.id)
        self.state = state
        return taken[-1]

    def returns(self) -> list[float]:
        """Each seat's win share: 1 to a sole winner, split evenly on a shared victory, 0 to
        the others — the environments' ``win_share`` reward; all 0.0 until the game is over.

        >>> Game.new(3, seed=1).returns()
        [0.0, 0.0, 0.0]
        """
        winners = self.state.winners if self.is_over else ()
        share = 1.0 / len(winners) if winners else 0.0
        return [share if p in winners else 0.0 for p in range(self.state.n)]

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

    def apply(self, player: int, action: Action | str, *, lenient: bool = False) -> None:
        """Take ``action`` for ``player`` and run the game on to the next decision.

        A string is RECORD.md notation, read strictly; ``lenient=True`` reads it as a person
        types it (``Pick 1``, ``pick  1`` are ``pick 1``; the history holds the canonical
        form). Raises :class:`~gonuts.errors.MalformedActionError` for a string that is not
        notation (naming a position or seat no game has), :class:`~gonuts.errors.NotYourTurnError`
        (also for a seat the game does not have), :class:`~gonuts.errors.GameOverError` or
        :class:`~gonuts.errors.IllegalActionError`; after an error the game is unchanged.
        """
        if isinstance(action, str):
            text = normal_notation(action) if lenient else action
            try:
                action = parse_action(text)
            except MalformedActionError:
                why = out_of_range(text)
                if why is None:
                    raise
                message = f"malformed action {text!r}: {why} in any game"
                raise MalformedActionError(message) from None
        elif not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        self._check_seat(player)
        rules.apply(self.state, player, action.id)

    def _check_seat(self, player: object) -> None:
        if self.state.phase is Phase.OVER:
            return  # rules.apply says the game is over, whoever asks
        if not isinstance(player, int) or isinstance(player, bool):
            raise NotYourTurnError(f"a seat is an int from 0 to {self.state.n - 1}: {player!r}")
        if not 0 <= player < self.state.n:
            raise NotYourTurnError(
                f"no seat {player} in a {self.state.n}-player game (seats 0 to {self.state.n - 1})"
            )

    def apply_id(self, player: int, action_id: int) -> None:
        """:meth:`apply` by action id (validated)."""
        self._check_seat(player)
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
