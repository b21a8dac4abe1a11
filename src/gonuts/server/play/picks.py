"""Changing a secret choice until the reveal (issue 25): which choices may still change, to what.

In the two simultaneous phases (``select``: a row position; ``cinnamon_twist``: the card to pass)
a seat that has chosen may replace its choice until the last seat has chosen. The engine is not
asked to undo anything: the change is made at the server's depth, on its stored actions. A
pending choice is an action already stored (number ``seq``); changing it rewrites that stored
action (``PlayStore.replace_action``) and rebuilds the game from the deal with the new notation
in its place (:func:`replaced`), so the record, a restart and a replay see only the final choice,
in the order the choices were first made. Which actions are pending is tracked action by action
(:func:`track`): an action whose seat's choice is still open afterwards and that produced no
event (a pick or a pass before the reveal produces none) joins the pending ones; any other
action closes them (the reveal, the passes carried out, a power's decision, a new round).

Pure: it reads games and stored actions, and touches neither the service nor the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gonuts.actions import ACTIONS, Action
from gonuts.game import Game
from gonuts.record import apply_recorded
from gonuts.rules import legal_ids
from gonuts.server.play.store import StoredAction
from gonuts.state import Phase

SIMULTANEOUS = (Phase.SELECT, Phase.CINNAMON_TWIST)
"""The phases whose choices are secret until everyone has chosen."""

Pending = dict[int, StoredAction]
"""Seat -> the stored action of its open choice in the current simultaneous phase."""


def _chosen(game: Game, seat: int) -> bool:
    state = game.state
    if state.phase is Phase.SELECT:
        return state.picks[seat] >= 0
    if state.phase is Phase.CINNAMON_TWIST:
        return state.passes[seat] >= 0
    return False


def track(pending: Pending, game: Game, events_before: int, action: StoredAction) -> Pending:
    """The pending choices after ``action`` was applied to ``game`` (``events_before``: the
    length of its event log before): the action joins them if it left its seat's choice open
    and produced no event; otherwise the simultaneous phase it belonged to is over."""
    events = game.state.events
    if (
        events is not None
        and len(events) == events_before
        and game.state.phase in SIMULTANEOUS
        and _chosen(game, action.seat)
    ):
        return {**pending, action.seat: action}
    return {}


def events_count(game: Game | None) -> int:
    """The length of ``game``'s event log (what :func:`track` compares)."""
    events = game.state.events if game is not None else None
    return len(events) if events is not None else 0


def options(game: Game, seat: int, pending: Mapping[int, StoredAction]) -> list[Action]:
    """What ``seat`` may replace its pending choice with (its current one included); [] when it
    has none to change. The choice is taken out of a copy of the state and the rules asked."""
    if seat not in pending or game.state.phase not in SIMULTANEOUS:
        return []
    state = game.state.copy(events=False)
    if state.phase is Phase.SELECT:
        state.picks[seat] = -1
    else:
        state.passes[seat] = -1
    return sorted(ACTIONS[i] for i in legal_ids(state, seat))


def replaced(fresh: Game, game: Game, seq: int, notation: str) -> Game:
    """``game`` rebuilt on ``fresh`` (the same game at its deal) with its action number ``seq``
    replaced by ``notation``: the choices made after it are made again as they were.
    ``RecordError`` if any of them is no longer legal (never, for a pending choice)."""
    for index, (seat, action) in enumerate(game.actions_taken()):
        apply_recorded(fresh, index, seat, notation if index == seq else action.notation)
    return fresh


def expected(pending: Mapping[int, StoredAction], seat: int) -> Sequence[StoredAction]:
    """The other seats' pending choices, as stored: what the action closing the phase is built
    on, checked against the database when it is stored (another process may have changed one)."""
    return [a for s, a in sorted(pending.items()) if s != seat]
