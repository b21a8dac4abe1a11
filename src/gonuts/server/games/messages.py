"""Finished games' wire: the listing, a replay (public views and events step by step)."""

from __future__ import annotations

from typing import Any

from gonuts.actions import parse_action
from gonuts.errors import RecordError
from gonuts.game import Game
from gonuts.record import Record, apply_recorded
from gonuts.server.games.store import GameListing
from gonuts.server.kernel import i18n
from gonuts.server.play.protocol import breakdown_json, event_json, view_json
from gonuts.server.transport.wire import Out


class GameSummary(Out):
    id: str
    players: list[str]
    scores: list[int]
    winners: list[int]
    finished_at: str


class GameList(Out):
    games: list[GameSummary]


class Replay(Out):
    """A finished (or uploaded) game step by step: public views and events (REPLAY)."""

    players: list[str]
    steps: list[dict[str, Any]]
    breakdown: list[dict[str, Any]] | None
    record: dict[str, Any]


def game_listing_json(g: GameListing) -> dict[str, Any]:
    return {
        "id": g.id,
        "players": g.players,
        "scores": g.scores,
        "winners": g.winners,
        "finished_at": g.finished_at.isoformat() + "Z",
    }


def replay_data(record: Record, lang: str) -> dict[str, Any]:
    """Public views step by step through ``record`` (see docs/protocol.md, REPLAY)."""
    try:
        game = Game.new(record.players, deck=record.initial_deck(), variants=record.variants)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    names = record.players
    view = game.public_view()
    steps: list[dict[str, Any]] = [
        {
            "index": 0,
            "actor": None,
            "action": None,
            "label": None,
            "view": view_json(view, lang),
            "events": [event_json(e, names, lang) for e in view.events],
        }
    ]
    seen = len(view.events)
    for i, recorded in enumerate(record.actions):
        apply_recorded(game, i, recorded.player, recorded.action)
        view = game.public_view()
        action = parse_action(recorded.action)
        steps.append(
            {
                "index": i + 1,
                "actor": recorded.player,
                "action": recorded.action,
                "label": f"{i18n.display_name(names[recorded.player], lang)}: "
                f"{i18n.describe_action(action, names, lang)}",
                "view": view_json(view, lang),
                "events": [event_json(e, names, lang) for e in view.events[seen:]],
            }
        )
        seen = len(view.events)
    return {
        "players": list(names),
        "steps": steps,
        "breakdown": breakdown_json(game, lang) if game.is_over else None,
        "record": record.to_dict(),
    }
