"""The ordered event log: what happened, for screens to animate and logs to explain.

Events are plain frozen values. Most are public; an event with ``visible_to`` set (the card a
Double Chocolate player put back) belongs to that one player and is filtered out of every
other player's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from gonuts.cards import KIND_BY_ID


class EventType(StrEnum):
    ROUND_STARTED = "round_started"
    """A round began: ``round``; the row is full (``cards`` lists it, ``null`` never occurs)."""
    SELECTIONS_REVEALED = "selections_revealed"
    """Every player's pick, 1-based, in ``positions`` (one per seat)."""
    CARD_TAKEN = "card_taken"
    """``player`` took ``card`` from row ``position``."""
    CARD_CONTESTED = "card_contested"
    """``players`` all chose ``position``; ``card`` went onto the discard pile."""
    CARD_DRAWN = "card_drawn"
    """``player`` drew ``card`` from the deck into their collection (``source`` power)."""
    CARD_PUT_BACK = "card_put_back"
    """Private to ``player``: ``card`` was put back on top of the deck (Double Chocolate)."""
    TOOK_FROM_DISCARD = "took_from_discard"
    """``player`` took ``card`` from the discard pile (``source`` power)."""
    ROW_CARD_DISCARDED = "row_card_discarded"
    """``player``'s French Cruller discarded ``card`` from row ``position``."""
    CARD_DISCARDED = "card_discarded"
    """``player``'s ``source`` put ``card`` from ``other``'s collection onto the discard pile."""
    CARD_MOVED = "card_moved"
    """``card`` moved from ``player`` to ``other`` (Sprinkled gift, Bear Claw, Cinnamon Twist)."""
    POWER_FIZZLED = "power_fizzled"
    """``player``'s ``source`` power had nothing to act on."""
    ROW_REFILLED = "row_refilled"
    """Empty row ``positions`` were filled with ``cards`` from the deck."""
    GAME_OVER = "game_over"
    """The deck could not refill the row: final ``scores`` and ``winners``."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. Fields not used by an event type stay at their defaults."""

    type: EventType
    player: int | None = None
    card: str | None = None
    position: int | None = None
    other: int | None = None
    source: str | None = None
    round: int | None = None
    cards: tuple[str | None, ...] = ()
    positions: tuple[int, ...] = ()
    players: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    visible_to: int | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict holding only the fields this event uses."""
        out: dict[str, Any] = {"type": self.type.value}
        for key, value in asdict(self).items():
            if key == "type" or value is None or value == ():
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def describe(self, names: Sequence[str]) -> str:
        """One line of English for a game log."""
        who = names[self.player] if self.player is not None else ""
        other = names[self.other] if self.other is not None else ""
        card = _card_name(self.card)
        src = _card_name(self.source)
        t = self.type
        if t is EventType.ROUND_STARTED:
            return f"Round {self.round} begins."
        if t is EventType.SELECTIONS_REVEALED:
            picks = ", ".join(f"{names[i]} {p}" for i, p in enumerate(self.positions))
            return f"Selections revealed: {picks}."
        if t is EventType.CARD_TAKEN:
            return f"{who} takes the {card} from position {self.position}."
        if t is EventType.CARD_CONTESTED:
            who_all = " and ".join(names[i] for i in self.players)
            word = "both" if len(self.players) == 2 else "all"
            return f"{who_all} {word} chose position {self.position}: the {card} is discarded."
        if t is EventType.CARD_DRAWN:
            return f"{who} draws a {card} from the deck ({src})."
        if t is EventType.CARD_PUT_BACK:
            return f"{who} puts a {card} back on top of the deck (only {who} knows)."
        if t is EventType.TOOK_FROM_DISCARD:
            return f"{who} takes a {card} from the discard pile ({src})."
        if t is EventType.ROW_CARD_DISCARDED:
            return f"{who} discards the {card} at position {self.position} ({src})."
        if t is EventType.CARD_DISCARDED:
            owner = "their own" if self.other == self.player else f"{other}'s"
            return f"{who} discards {owner} {card} ({src})."
        if t is EventType.CARD_MOVED:
            return f"A {card} moves from {who} to {other} ({src})."
        if t is EventType.POWER_FIZZLED:
            return f"{who}'s {src} has nothing to do."
        if t is EventType.ROW_REFILLED:
            filled = ", ".join(
                f"{p}: {_card_name(c)}" for p, c in zip(self.positions, self.cards, strict=True)
            )
            return f"The row is refilled ({filled})."
        scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(self.scores))
        won = " and ".join(names[i] for i in self.players)
        return f"Game over. Scores: {scores}. Winner: {won}."


def _card_name(kind_id: str | None) -> str:
    if kind_id is None:
        return ""
    return KIND_BY_ID[kind_id].name
