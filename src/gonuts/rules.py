"""The round flow (RULES.md "Setup", "A round"): select, reveal, resolve by position, refill, end.

Functions here change a :class:`~gonuts.state.GameState` in place and are the only way the
rules move a game forward; the ★ powers live in :mod:`gonuts.powers`. Validation happens before
any change, so a refused action leaves the state exactly as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gonuts import actions as A  # noqa: N812 - the action-id table, read like a namespace
from gonuts import scoring
from gonuts.cards import KIND_IDS, NUM_KINDS, check_player_count
from gonuts.errors import GameOverError, IllegalActionError, NotYourTurnError
from gonuts.events import Event, EventType
from gonuts.powers import POWER_BY_PHASE, POWERS, emit, forget_drawn
from gonuts.state import GameConfig, GameState, History, Phase

K: Final = NUM_KINDS
# Phases as module constants: compiled code reads them as C globals, not class attributes.
SELECT: Final = Phase.SELECT
OVER: Final = Phase.OVER
CINNAMON_TWIST: Final = Phase.CINNAMON_TWIST
PICK_BASE: Final = A.PICK_BASE  # compiled: a C static (``A.NAME`` looks the module up)

_PICKS: Final = tuple(tuple(range(PICK_BASE, PICK_BASE + n + 1)) for n in range(8))


def setup(config: GameConfig, *, events: bool = True) -> GameState:
    """A new game dealt from ``config``: row positions 1 … N+1 from the top of the deck."""
    n = config.num_players
    check_player_count(n)
    deck = list(reversed(config.initial_deck))
    row = [deck.pop() for _ in range(n + 1)]
    state = GameState(config, deck=deck, row=row, events=[] if events else None)
    if events:
        emit(state, EventType.ROUND_STARTED, round=1, cards=tuple(KIND_IDS[c] for c in row))
    return state


def to_act(g: GameState) -> list[int]:
    """Seats that must act now, ascending (several in a simultaneous phase)."""
    phase = g.phase
    if phase is SELECT:
        picks = g.picks
        return [p for p in range(g.n) if picks[p] < 0]
    if phase is OVER:
        return []
    return POWER_BY_PHASE[phase].to_act(g)


def legal_ids(g: GameState, player: int) -> Sequence[int]:
    """Action ids ``player`` may take now; empty if they have nothing to decide."""
    phase = g.phase
    if phase is SELECT:
        return _PICKS[g.n] if 0 <= player < g.n and g.picks[player] < 0 else ()
    if phase is OVER:
        return ()
    power = POWER_BY_PHASE[phase]
    if phase is not CINNAMON_TWIST and player != g.actor:
        return ()
    if not 0 <= player < g.n:
        return ()
    return power.legal(g, player)


def apply(g: GameState, player: int, action_id: int) -> None:
    """Validate and carry out one decision, then run the game forward to the next decision."""
    phase = g.phase
    if phase is OVER:
        raise GameOverError(f"the game is over; player {player} cannot act")
    legal = legal_ids(g, player)
    if not legal:
        raise NotYourTurnError(f"player {player} has no decision to take now")
    if not 0 <= action_id < A.NUM_ACTIONS:
        raise IllegalActionError(f"{action_id} is not an action id (0 to {A.NUM_ACTIONS - 1})")
    if action_id not in legal:
        raise IllegalActionError(
            f"{A.ACTIONS[action_id]} is not legal for player {player} now "
            f"(legal: {', '.join(sorted(A.ACTIONS[i].notation for i in legal))})"
        )
    g.history = History(g.history, player, action_id)
    if phase is SELECT:
        g.picks[player] = action_id - PICK_BASE
        if -1 not in g.picks:
            reveal(g)
        return
    power = POWER_BY_PHASE[phase]
    if power.apply(g, player, action_id) or not power.settle(g):
        power_done(g)


def apply_unchecked(g: GameState, player: int, action_id: int) -> None:
    """:func:`apply` without validation or history, for search that only plays legal actions."""
    if g.phase is SELECT:
        g.picks[player] = action_id - PICK_BASE
        if -1 not in g.picks:
            reveal(g)
        return
    power = POWER_BY_PHASE[g.phase]
    if power.apply(g, player, action_id) or not power.settle(g):
        power_done(g)


def select_all(g: GameState, positions: list[int]) -> None:
    """Unchecked: every player still choosing picks ``positions[player]`` (0-based); reveal.

    The fast path for random playouts and batched environments, where every pick is legal.
    """
    picks = g.picks
    for player in range(g.n):
        if picks[player] < 0:
            picks[player] = positions[player]
    reveal(g)


def reveal(g: GameState) -> None:
    """Every pick is in (unchecked): reveal them and resolve the row."""
    if g.events is not None:
        g.events.append(
            Event(EventType.SELECTIONS_REVEALED, positions=tuple(p + 1 for p in g.picks))
        )
    g.pos = 0
    _resolve(g)


def power_done(g: GameState) -> None:
    """A power has finished: resolve the rest of the row (public for the playout loop)."""
    g.phase = SELECT
    g.pos += 1
    _resolve(g)


def _resolve(g: GameState) -> None:
    """Resolve row positions from ``g.pos`` on; stop at a pending decision, else refill.

    Only positions someone picked do anything; they are resolved in ascending order.
    """
    picks = g.picks
    row = g.row
    coll = g.coll
    events = g.events
    n = g.n
    for i in range(g.pos, n + 1):
        chosen = 0
        taker = -1
        for p in range(n):  # a few int compares: cheaper than sorting a set of the picks
            if picks[p] == i:
                chosen += 1
                if taker < 0:
                    taker = p
        if chosen == 0:
            continue
        card = row[i]
        row[i] = -1
        if chosen == 1:
            coll[taker * K + card] += 1
            if events is not None:
                events.append(
                    Event(EventType.CARD_TAKEN, player=taker, card=KIND_IDS[card], position=i + 1)
                )
            power = POWERS[card]
            if power is not None:
                g.pos = i
                g.actor = taker
                if power.start(g, taker) and power.settle(g):
                    g.phase = power.phase
                    return
        else:
            g.discard.append(card)
            if events is not None:
                who = tuple(p for p in range(n) if picks[p] == i)
                events.append(
                    Event(
                        EventType.CARD_CONTESTED, card=KIND_IDS[card], position=i + 1, players=who
                    )
                )
    g.pos = n + 1
    _refill(g)


def _refill(g: GameState) -> None:
    row = g.row
    n = g.n
    missing = 0
    for i in range(n + 1):
        if row[i] < 0:
            missing += 1
    deck = g.deck
    if len(deck) < missing:
        _end(g)
        return
    events = g.events
    empty = [i for i in range(n + 1) if row[i] < 0] if events is not None else []
    for i in range(n + 1):  # position by position, as the deck is dealt at setup
        if row[i] < 0:
            row[i] = deck.pop()
    if g.known:
        forget_drawn(g)
    g.round += 1
    g.picks = [-1] * n
    g.phase = SELECT
    g.pos = 0
    if events is not None:
        events.append(
            Event(
                EventType.ROW_REFILLED,
                positions=tuple(i + 1 for i in empty),
                cards=tuple(KIND_IDS[row[i]] for i in empty),
            )
        )
        events.append(
            Event(EventType.ROUND_STARTED, round=g.round, cards=tuple(KIND_IDS[c] for c in row))
        )


def _end(g: GameState) -> None:
    g.phase = OVER
    n = g.n
    coll = g.coll
    totals = scoring.flat_scores(coll, n)
    sizes = [0] * n
    for p in range(n):
        size = 0
        for k in range(p * K, p * K + K):
            size += coll[k]
        sizes[p] = size
    g.winners = scoring.flat_winners(totals, sizes)
    if g.events is not None:  # no event arguments built in a playout
        emit(g, EventType.GAME_OVER, scores=tuple(totals), players=g.winners)
