"""What goes over the wire, both ways: message models and the JSON of views, events, replays.

* Client messages and request bodies (:class:`Hello`, :class:`Act`, :class:`CreateTable`, …)
  are strict pydantic models: the WebSocket layer parses with :data:`CLIENT_MESSAGE`, FastAPI
  with the body models.
* Server messages and responses are pydantic models too (:class:`TableSummary`,
  :class:`Welcome`, :class:`Ack`, …): FastAPI's ``response_model`` for HTTP and, for the
  socket, the same models in :data:`SERVER_MESSAGE` (the tests validate every message a client
  receives against it). On the hot path (a state per seat per move) the messages are built as
  plain dicts by the functions below, which is what the models describe.
* The functions here are pure: they read a :class:`~gonuts.server.play.live.LiveTable`, a
  :class:`~gonuts.view.PlayerView` or a :class:`~gonuts.record.Record` and never touch the
  service or the database. docs/protocol.md is the prose of all this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Final, Literal

from pydantic import Field, TypeAdapter

from gonuts.actions import Action, parse_action
from gonuts.events import Event
from gonuts.game import Game
from gonuts.server.kernel import i18n
from gonuts.server.kernel.cache import ACTIONS_CACHE_BYTES, EVENTS_CACHE_BYTES, byte_lru
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.play import picks
from gonuts.server.play.clock import deadlines_json, replace_in
from gonuts.server.play.deadlines import deadline_times, turn_based
from gonuts.server.play.live import LiveTable
from gonuts.server.transport.wire import ErrorMessage, Out, Strict
from gonuts.variants import ordered
from gonuts.view import PlayerView

BotLevel = Literal["easy", "medium", "hard"]
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "medium", "hard")

# -- client -> server ------------------------------------------------------------------------------


class ActBody(Strict):
    action: str = Field(max_length=64)
    id: str | None = Field(default=None, max_length=40)
    """Optional client id: a retried request with the same id is not applied twice."""
    change: bool = False
    """Replace my secret choice (a pick, a Cinnamon Twist pass) made earlier in this phase."""


class Hello(Strict):
    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=200)
    lang: str | None = Field(default=None, max_length=16)


class Act(Strict):
    type: Literal["act"]
    action: str = Field(max_length=64)
    id: str | None = Field(default=None, max_length=40)


class Change(Strict):
    """Replace my secret choice of this simultaneous phase, until the last seat has chosen."""

    type: Literal["change"]
    action: str = Field(max_length=64)
    id: str | None = Field(default=None, max_length=40)


class Hints(Strict):
    type: Literal["hints"]
    on: bool


class Lang(Strict):
    type: Literal["lang"]
    lang: str = Field(max_length=16)


class Ping(Strict):
    type: Literal["ping"]


class Back(Strict):
    """I'm back: take my seat back from the bot playing it (the turn clock's)."""

    type: Literal["back"]


ClientMessage = Annotated[
    Hello | Act | Change | Hints | Lang | Ping | Back, Field(discriminator="type")
]
CLIENT_MESSAGE: TypeAdapter[Hello | Act | Change | Hints | Lang | Ping | Back] = TypeAdapter(
    ClientMessage
)

# -- server -> client: HTTP responses and socket messages -----------------------------------------


class SeatSummary(Out):
    seat: int
    kind: Literal["human", "bot"]
    level: BotLevel | Literal["tutorial"] | None
    """``tutorial``: the first-game guide's scripted coach (:mod:`gonuts.server.lobby.tutorial`)."""
    name: str | None
    taken: bool
    connected: bool
    bot_playing: bool
    replace_in: float | None
    """Seconds until a bot plays for this absent player, or null."""


class TableSummary(Out):
    id: str
    status: Literal["open", "playing", "finished"]
    players: int
    seats: list[SeatSummary]
    invite_url: str
    created_at: str
    version: int
    round: int
    scores: list[int]
    winners: list[int]
    next_table: str | None
    variants: list[str]
    """The table's house rules, in RULES.md order ([] for the default game)."""
    clock: int | None
    """Seconds per decision (the turn clock), or null for none."""
    turn_based: bool  # a clock of an hour or more: absolute deadlines (docs/protocol.md)


class Acted(Out):
    ok: Literal[True]
    version: int


class Welcome(Out):
    type: Literal["welcome"]
    seat: int | None
    name: str | None
    spectator: bool
    hints: bool
    lang: str
    table: TableSummary


class TableMessage(Out):
    type: Literal["table"]
    table: TableSummary


class State(Out):
    """``view`` and ``events`` are described in docs/protocol.md (VIEW, EVENT)."""

    type: Literal["state"]
    version: int
    full: bool
    view: dict[str, Any]
    events: list[dict[str, Any]]
    events_from: int
    breakdown: list[dict[str, Any]] | None
    deadlines: dict[str, float]
    """Seconds left to each human seat that must decide now, by seat (the turn clock)."""
    deadlines_at: dict[str, str]  # the same as ISO UTC times; turn-based tables only, else {}
    rating: dict[str, int | None] | None
    """The signed-in player's rating: ``{"rating": 1012, "change": 12}`` (``change``: this
    game's, once it is over and rated, else null); null for guests, bots and spectators."""
    change: list[dict[str, Any]]
    """What this seat may replace its secret choice with (``change`` message), as ``legal``
    entries; [] when it has no choice open to change (and for spectators)."""


class Ack(Out):
    type: Literal["ack"]
    id: str | None
    action: str
    version: int
    changed: bool = False
    """True: the answer to a ``change`` (the choice was replaced; the version is unchanged)."""


class HintMessage(Out):
    type: Literal["hint"]
    version: int
    hint: dict[str, Any]


class NextTable(Out):
    type: Literal["next_table"]
    table_id: str
    invite_url: str


class Pong(Out):
    type: Literal["pong"]


class Timeout(Out):
    """Time ran out for ``seat``: a bot decided for it (the action only to that seat)."""

    type: Literal["timeout"]
    seat: int
    version: int
    action: str | None
    label: str | None
    bot_playing: bool
    text: str


class AwayDecision(Out):
    version: int
    action: str
    label: str
    by: Literal["clock", "bot"]


class Away(Out):
    """To a player who is back: the decisions made for them meanwhile."""

    type: Literal["away"]
    seat: int
    text: str
    decisions: list[AwayDecision]


Server = (
    Welcome
    | TableMessage
    | State
    | Ack
    | ErrorMessage
    | HintMessage
    | NextTable
    | Pong
    | Timeout
    | Away
)
ServerMessage = Annotated[Server, Field(discriminator="type")]
SERVER_MESSAGE: TypeAdapter[Server] = TypeAdapter(ServerMessage)
"""Every message the server sends over a socket (for clients and tests to check against)."""


# -- tables and states -----------------------------------------------------------------------------


def table_summary(table: LiveTable) -> dict[str, Any]:
    """:class:`TableSummary` of ``table`` (public: no tokens, no deck)."""
    game = table.game
    over = game is not None and game.is_over
    return {
        "id": table.id,
        "status": table.status,
        "players": len(table.seats),
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "level": s.level,
                "name": s.name,
                "taken": s.taken,
                "connected": s.kind == "bot" or table.connected(s.seat),
                "bot_playing": s.bot_level is not None,
                "replace_in": replace_in(table, s.seat),
            }
            for s in table.seats
        ],
        "invite_url": f"/t/{table.id}",
        "created_at": table.created_at.isoformat() + "Z",
        "version": table.version,
        "round": game.round if game is not None else 0,
        "scores": game.scores() if game is not None else [],
        "winners": list(game.winner_seats) if over and game is not None else [],
        "next_table": table.next_table,
        "variants": list(table.variants),
        "clock": table.clock,
        "turn_based": turn_based(table.clock),
    }


def state_message(
    table: LiveTable,
    seat: int | None,
    lang: str,
    start: int,
    *,
    view: PlayerView | None = None,
    public: dict[str, Any] | None = None,
    deadlines: dict[str, float] | None = None,
) -> tuple[dict[str, Any], int]:
    """The :class:`State` message for ``seat`` with events from ``start``; and the new count.

    ``view``: that seat's view of the table's current game, if already built; ``deadlines``:
    :func:`~gonuts.server.play.clock.deadlines_json` of the table, if already computed (a
    broadcast computes it once for all its sockets)."""
    game = table.game
    if game is None:
        raise ServiceError(ErrorCode.NOT_STARTED)
    if view is None:
        view = game.view(seat) if seat is not None else game.public_view()
    events = view.events[start:]
    names = view.players
    msg = {
        "type": "state",
        "version": table.version,
        "full": start == 0,
        "view": view_json(view, lang, public),
        "events": [event_json(e, names, lang) for e in events],
        "events_from": start,
        "breakdown": breakdown_json(game, lang) if game.is_over else None,
        "deadlines": deadlines_json(table) if deadlines is None else deadlines,
        "deadlines_at": deadline_times(table),
        "rating": rating_json(table, seat),
        "change": [action_json(a, names, lang) for a in picks.options(game, seat, table.pending)]
        if seat is not None
        else [],
    }
    return msg, len(view.events)


def rating_json(table: LiveTable, seat: int | None) -> dict[str, int | None] | None:
    """The seat's rating as last looked up (``LiveTable.ratings``): the game's end's if known."""
    if seat is None:
        return None
    over = table.ratings.get((seat, True))
    return over if over is not None else table.ratings.get((seat, False))


_HINT_TEXTS: Final[dict[str, dict[str, str]]] = i18n.texts("hints")
"""The hint's one-line reasons (the ``hints`` of ``web/i18n/server/<lang>.json``)."""


def _number(value: float, lang: str) -> str:
    """One decimal, with the language's decimal mark."""
    text = f"{value:.1f}"
    return text if lang == "en" else text.replace(".", ",")


def hint_message(version: int, data: dict[str, Any], view: PlayerView, lang: str) -> dict[str, Any]:
    """A :class:`HintMessage`: ``data`` (``Hint.to_dict()``) with each action's label and the
    card it is about (a pick: the card at that position; a power's choice: its card), and a
    one-line ``why`` for the recommended action, in ``lang`` (issue 25: hints that teach)."""
    actions = []
    for a in data["actions"]:
        action = parse_action(a["action"])
        card = action.kind
        if action.position is not None and 0 < action.position <= len(view.row):
            card = view.row[action.position - 1]
        label = i18n.describe_action(action, view.players, lang)
        actions.append({**a, "label": label, "card": card})
    return {
        "type": "hint",
        "version": version,
        "hint": {**data, "actions": actions, "why": _why(data, actions, lang)},
    }


def _why(data: dict[str, Any], actions: Sequence[dict[str, Any]], lang: str) -> str | None:
    """Why the recommended action: its figures, and why it is not the highest estimate when
    it is not (a mixed strategy at a simultaneous choice, or a better explored estimate)."""
    best = next((a for a in actions if a["action"] == data["recommended"]), None)
    if best is None:
        return None
    texts = _HINT_TEXTS.get(lang, _HINT_TEXTS["en"])
    score = best.get("expected_score")
    fields = {
        "action": best["label"],
        "card": i18n.card_name(best["card"], lang) if best.get("card") else "",
        "win": str(round(best["win_probability"] * 100)),
        "score": _number(score, lang) if score is not None else "–",
        "share": str(round(best.get("play_probability", 0.0) * 100)),
        "contested": str(round((best.get("contested") or 0.0) * 100)),
    }
    if data.get("highest_win_probability", best["action"]) != best["action"]:
        key = "why_mixed" if data.get("simultaneous") else "why_explored"
    elif best.get("contested") is not None and best.get("card"):
        key = "why_pick"
    else:
        key = "why"
    return texts[key].format(**fields)


# -- views, events, breakdowns, replays ------------------------------------------------------------


def action_json(action: Action, names: Sequence[str], lang: str) -> dict[str, Any]:
    """An action with its localized label (cached: actions are frozen values)."""
    return _action_json(action, tuple(names), lang)


@byte_lru(ACTIONS_CACHE_BYTES)
def _action_json(action: Action, names: tuple[str, ...], lang: str) -> dict[str, Any]:
    return {  # shared between messages: never mutated
        "action": action.notation,
        "verb": i18n.VERB_NAMES[action.verb],
        "position": action.position,
        "kind": action.kind,
        "seat": action.seat,
        "label": i18n.describe_action(action, names, lang),
    }


def public_view_json(view: PlayerView) -> dict[str, Any]:
    """The parts of :func:`view_json` that are the same for every seat (views built together
    by :meth:`Game.views` share them): build once, pass to :func:`view_json` for each seat."""
    return {
        "players": list(view.players),
        "row": list(view.row),
        "discard": list(view.discard),
        "collections": [dict(c) for c in view.collections],
        "scores": list(view.scores),
        "winners": list(view.winners),
        "waiting_for": list(view.waiting_for),
        "variants": list(ordered(view.variants)),
    }


def view_json(view: PlayerView, lang: str, public: dict[str, Any] | None = None) -> dict[str, Any]:
    """A :class:`PlayerView` as protocol JSON (events are sent separately).

    ``public``: :func:`public_view_json` of a view of the same position (shared, not copied)."""
    pub = public if public is not None else public_view_json(view)
    names = tuple(view.players)
    return {
        "seat": view.seat,
        "players": pub["players"],
        "round": view.round,
        "phase": view.phase.value,
        "over": view.over,
        "row": pub["row"],
        "deck_size": view.deck_size,
        "discard": pub["discard"],
        "collections": pub["collections"],
        "scores": pub["scores"],
        "winners": pub["winners"],
        "selections": list(view.selections),
        "waiting_for": pub["waiting_for"],
        "legal": [_action_json(a, names, lang) for a in view.legal],
        "power": view.power,
        "actor": view.actor,
        "resolving": view.resolving,
        "step": view.step,
        "drawn": list(view.drawn),
        "known_deck_top": view.known_deck_top,
        "my_pass": view.my_pass,
        "unseen": dict(view.unseen),
        "variants": pub["variants"],
    }


def event_json(event: Event, names: Sequence[str], lang: str) -> dict[str, Any]:
    """``event.to_json()`` with its localized ``text`` (cached: events are frozen values)."""
    return _event_json(event, tuple(names), lang)


@byte_lru(EVENTS_CACHE_BYTES)
def _event_json(event: Event, names: tuple[str, ...], lang: str) -> dict[str, Any]:
    # The event's own tuples where ``to_json`` makes lists (the same JSON): a cached entry
    # lives long enough to be walked by the garbage collector's older collections, and lists
    # would be two or three more objects each (the ~150 ms pause of issue 17's load test).
    out: dict[str, Any] = {
        key: getattr(event, key) if isinstance(value, list) else value
        for key, value in event.to_json().items()
    }
    out["text"] = i18n.describe_event(event, names, lang)
    return out  # shared between messages: never mutated


def breakdown_json(game: Game, lang: str = i18n.DEFAULT_LANG) -> list[dict[str, Any]]:
    """The end screen's score breakdown, each line's ``reason`` in ``lang``."""
    winners = set(game.winner_seats)
    breakdowns = game.score_breakdown()
    fewest = min((b.cards for b in breakdowns), default=0)
    return [
        {
            "player": b.player,
            "total": b.total,
            "cards": b.cards,
            "kinds": b.kinds,
            "winner": b.player in winners,
            "lines": [
                {
                    "kind": ln.kind,
                    "count": ln.count,
                    "points": ln.points,
                    "reason": i18n.score_reason(
                        ln.kind,
                        ln.count,
                        ln.points,
                        kinds=b.kinds,
                        cards=b.cards,
                        fewest=fewest,
                        lang=lang,
                    ),
                }
                for ln in b.lines
            ],
        }
        for b in breakdowns
    ]
