"""What one player may know (RULES.md "What each player may know"), as a frozen value.

A :class:`PlayerView` is built by copying out only public facts and that player's own secrets:
it holds no reference to the game state, so nothing hidden — the deck order, another player's
pending pick or pass, the card another player put back with Double Chocolate — can be reached
from it. Bots and servers hand out views, never states.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from gonuts.actions import ACTIONS, Action
from gonuts.cards import KIND_IDS, NUM_KINDS, deck_counts
from gonuts.events import Event
from gonuts.powers import POWER_BY_PHASE
from gonuts.rules import legal_ids, to_act
from gonuts.scoring import scores
from gonuts.state import GameState, Phase

K = NUM_KINDS


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The game as seen from one seat (or, with ``seat`` None, by a spectator: public only)."""

    seat: int | None
    players: tuple[str, ...]
    round: int
    phase: Phase
    over: bool
    row: tuple[str | None, ...]
    """Positions 1 … N+1 (index 0 is position 1); None where empty."""
    deck_size: int
    discard: tuple[str, ...]
    """Bottom card first, top card last."""
    collections: tuple[Mapping[str, int], ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    selections: tuple[int | None, ...]
    """This round's picks (1-based) as far as this seat may know: its own, and all once revealed."""
    waiting_for: tuple[int, ...]
    """Seats that must still act (public: everyone sees who has not yet chosen)."""
    legal: tuple[Action, ...]
    """This seat's legal actions now, sorted by notation; empty if it has nothing to decide."""
    power: str | None
    """The ★ card whose power is being resolved, if any."""
    actor: int | None
    """Who took that card."""
    resolving: int | None
    """The row position (1-based) whose card's power is being resolved, if any."""
    step: int
    """Progress inside that power: cards taken so far (Day-Old) or discarded so far (Milk)."""
    drawn: tuple[str, ...]
    """Double Chocolate: the two cards this seat drew and must choose between."""
    known_deck_top: str | None
    """The top card of the deck, if this seat put it back with Double Chocolate."""
    my_pass: str | None
    """Cinnamon Twist: the card this seat chose to pass, before everyone has chosen."""
    unseen: Mapping[str, int]
    """Cards this seat cannot see (in the deck, apart from the ones it knows), by kind."""
    events: tuple[Event, ...]
    """The event log, without other players' private events."""
    variants: frozenset[str] = frozenset()
    """The house rules in play (public: a bot that plans must play by them too)."""

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def must_act(self) -> bool:
        """Whether this seat has a decision to take now."""
        return bool(self.legal)


def make_view(g: GameState, seat: int | None) -> PlayerView:
    """Copy out what ``seat`` may know of ``g`` (``None``: what a spectator may know)."""
    return make_views(g, (seat,))[seat]


def make_views(g: GameState, seats: Iterable[int | None]) -> dict[int | None, PlayerView]:
    """:func:`make_view` for several seats at once: the public parts are built once and shared
    (they are immutable), only each seat's own secrets are copied out per seat."""
    n = g.n
    seats = tuple(seats)
    for seat in seats:
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"no seat {seat} in a {n}-player game")
    phase = g.phase
    revealed = phase is not Phase.SELECT
    power = POWER_BY_PHASE.get(phase)
    power_id = KIND_IDS[power.kind] if power is not None else None
    # The cards nobody can see, by kind: the deck for this player count minus every card in
    # sight (row, discard pile, collections), i.e. the deck's contents. A seat's unseen cards
    # are these minus the deck cards it knows (below).
    hidden_from_all = list(deck_counts(n))
    for c in g.row:
        if c >= 0:
            hidden_from_all[c] -= 1
    for c in g.discard:
        hidden_from_all[c] -= 1
    for i, c in enumerate(g.coll):
        hidden_from_all[i % K] -= c
    # the public parts: built once, shared by every seat's view (all immutable)
    players = g.config.players
    over = phase is Phase.OVER
    row = tuple(KIND_IDS[c] if c >= 0 else None for c in g.row)
    deck_size = len(g.deck)
    discard = tuple(KIND_IDS[c] for c in g.discard)
    collections = tuple(
        MappingProxyType({KIND_IDS[k]: g.coll[p * K + k] for k in range(K) if g.coll[p * K + k]})
        for p in range(n)
    )
    totals = tuple(scores(g.coll, n))
    waiting_for = tuple(to_act(g))
    actor = g.actor if power is not None else None
    resolving = g.pos + 1 if power is not None else None
    step = g.step if phase in (Phase.DAY_OLD, Phase.MILK) else 0
    all_events = g.events or ()
    out: dict[int | None, PlayerView] = {}
    for seat in seats:
        if seat in out:
            continue
        selections = tuple(
            (g.picks[p] + 1 if g.picks[p] >= 0 and (revealed or p == seat) else None)
            for p in range(n)
        )
        drawn: tuple[str, ...] = ()
        if phase is Phase.DOUBLE_CHOCOLATE and g.actor == seat:
            drawn = tuple(KIND_IDS[c] for c in g.deck[-2:][::-1])
        known_top = None
        if seat is not None and seat in g.known:
            length, kind = g.known[seat]
            if length == len(g.deck):
                known_top = KIND_IDS[kind]
        my_pass = None
        if phase is Phase.CINNAMON_TWIST and seat is not None and g.passes and g.passes[seat] >= 0:
            my_pass = KIND_IDS[g.passes[seat]]
        # ... and what this seat alone can see
        unseen = list(hidden_from_all)
        for name in drawn:
            unseen[KIND_IDS.index(name)] -= 1
        if known_top is not None and not drawn:
            unseen[KIND_IDS.index(known_top)] -= 1
        events = tuple(e for e in all_events if e.visible_to is None or e.visible_to == seat)
        out[seat] = PlayerView(
            seat=seat,
            players=players,
            round=g.round,
            phase=phase,
            over=over,
            row=row,
            deck_size=deck_size,
            discard=discard,
            collections=collections,
            scores=totals,
            winners=g.winners,
            selections=selections,
            waiting_for=waiting_for,
            legal=tuple(sorted(ACTIONS[i] for i in legal_ids(g, seat))) if seat is not None else (),
            power=power_id,
            actor=actor,
            resolving=resolving,
            step=step,
            drawn=drawn,
            known_deck_top=known_top,
            my_pass=my_pass,
            unseen=MappingProxyType({KIND_IDS[k]: v for k, v in enumerate(unseen) if v}),
            events=events,
            variants=g.config.variants,
        )
    return out
