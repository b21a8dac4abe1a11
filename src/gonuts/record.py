"""Game records, ``gonuts-record/1`` (RECORD.md): read, validate, replay and write.

A record is the players, the deck order (or a seed) and the decisions taken. Reading is
strict: every problem becomes a :class:`~gonuts.errors.RecordError` with a one-line message
naming it (and, for an action, its 0-based ``index``), never another exception.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from gonuts import files
from gonuts.actions import parse_action
from gonuts.cards import KIND_BY_ID, KIND_IDS, MAX_PLAYERS, MIN_PLAYERS, canonical_deck
from gonuts.errors import (
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    RecordError,
)
from gonuts.game import Game, deck_from_seed, out_of_range
from gonuts.variants import VARIANTS, ordered

FORMAT: Final = "gonuts-record/1"


class PathLike(Protocol):
    """A file system path object (``pathlib.Path``): what :meth:`Record.load` also takes."""

    def __fspath__(self) -> str: ...


KNOWN_KEYS: Final = ("format", "players", "deck", "seed", "actions", "variants")


@dataclass(frozen=True, slots=True)
class RecordedAction:
    player: int
    action: str

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "action": self.action}


@dataclass(frozen=True, slots=True)
class Record:
    """A parsed record. ``deck`` is top card first; ``extra`` keeps unknown keys for writing;
    ``variants`` are house rules of RULES.md, in its order (() for the default game)."""

    players: tuple[str, ...]
    deck: tuple[str, ...] | None = None
    seed: int | None = None
    actions: tuple[RecordedAction, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    variants: tuple[str, ...] = ()

    # -- reading --------------------------------------------------------------------------------

    @classmethod
    def from_json(cls, text: str | bytes) -> Record:
        """Parse and check the structure of a record (the actions are checked by :meth:`replay`)."""
        try:
            obj = json.loads(text, parse_constant=_reject_constant)
        except UnicodeDecodeError as exc:
            raise RecordError(f"invalid JSON: not UTF-8 ({exc.reason})") from None
        except json.JSONDecodeError as exc:
            at = "" if exc.msg.endswith(" at") else " at"  # "… starting at": no second "at"
            raise RecordError(
                f"invalid JSON: {exc.msg}{at} line {exc.lineno} column {exc.colno}"
            ) from None
        except RecursionError:
            raise RecordError("invalid JSON: nested too deeply") from None
        except ValueError as exc:
            if "int_max_str_digits" in str(exc) or "digits" in str(exc):
                raise RecordError("invalid JSON: a number with too many digits") from None
            raise RecordError(f"invalid JSON: {exc}") from None
        return cls.from_dict(obj)

    @classmethod
    def load(cls, path: str | PathLike) -> Record:
        """The record in the file at ``path``; :class:`RecordError` for one that is not valid
        (an unreadable file raises :class:`OSError`). The file is read by :mod:`gonuts.files`:
        this module opens none."""
        return cls.from_json(files.read_bytes(path))

    def save(self, path: str | PathLike, *, overwrite: bool = False) -> None:
        """Write the record to ``path``, whole or not at all; an existing file is kept
        (:class:`FileExistsError`) unless ``overwrite``."""
        files.write_text_whole(path, self.to_json(), overwrite=overwrite)

    @classmethod
    def from_dict(cls, obj: object) -> Record:
        if not isinstance(obj, dict):
            raise RecordError("a record must be a JSON object")
        if "format" not in obj:
            raise RecordError(f"missing key 'format' (expected {FORMAT!r})")
        if obj["format"] != FORMAT:
            raise RecordError(f"format must be {FORMAT!r}, not {_short(obj['format'])}")
        players = _players(obj)
        n = len(players)
        seed = obj.get("seed")
        if "seed" in obj and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise RecordError(f"seed must be an integer, not {_short(seed)}")
        deck = _deck(obj["deck"], n) if "deck" in obj else None
        if deck is None and seed is None:
            raise RecordError("a record needs a 'deck' or a 'seed'")
        actions = _actions(obj.get("actions", []), n) if "actions" in obj else ()
        variants = _variants(obj["variants"]) if "variants" in obj else ()
        extra = {k: v for k, v in obj.items() if k not in KNOWN_KEYS}
        return cls(players, deck, seed, actions, extra, variants)

    # -- replaying ------------------------------------------------------------------------------

    def initial_deck(self) -> tuple[str, ...]:
        """The deck this record plays with, top first (from ``deck``, else from ``seed``)."""
        if self.deck is not None:
            return self.deck
        assert self.seed is not None
        return tuple(KIND_IDS[k] for k in deck_from_seed(len(self.players), self.seed))

    def replay(self, *, events: bool = True, upto: int | None = None) -> Game:
        """The game after the record's actions (or its first ``upto``); :class:`RecordError`
        with the action's index for an action that does not fit the game."""
        game = Game.new(
            self.players, deck=self.initial_deck(), events=events, variants=self.variants
        )
        for index, recorded in enumerate(self.actions[:upto]):
            apply_recorded(game, index, recorded.player, recorded.action)
        return game

    # -- writing --------------------------------------------------------------------------------

    @classmethod
    def from_game(cls, game: Game, **extra: Any) -> Record:
        """The record of ``game`` so far (always with the full deck; extra keys as given).
        :class:`ValueError` for a game set up from a position: it has no deal to record."""
        if game.origin is not None:
            raise ValueError("a game set up from a position has no record from the deal")
        actions = tuple(RecordedAction(p, a.notation) for p, a in game.actions_taken())
        return cls(game.players, game.initial_deck, None, actions, extra, game.variants)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "players": list(self.players)}
        if self.deck is not None:
            out["deck"] = list(self.deck)
        if self.seed is not None:
            out["seed"] = self.seed
        if self.variants:
            out["variants"] = list(self.variants)
        out["actions"] = [a.to_json() for a in self.actions]
        out.update(self.extra)
        return out

    def to_json(self, *, indent: int | None = 1) -> str:
        """The record as text. Actions are written one per line for readable diffs."""
        if indent is None:
            return json.dumps(self.to_dict(), ensure_ascii=False)
        head = {k: v for k, v in self.to_dict().items() if k != "actions"}
        lines = ["{"]
        for key, value in head.items():
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
        acts = [json.dumps(a.to_json(), ensure_ascii=False) for a in self.actions]
        if acts:
            lines.append('  "actions": [\n    ' + ",\n    ".join(acts) + "\n  ]")
        else:
            lines.append('  "actions": []')
        lines.append("}")
        return "\n".join(lines) + "\n"


def apply_recorded(game: Game, index: int, player: int, text: str) -> None:
    """Apply one recorded action, turning any refusal into a :class:`RecordError`."""
    try:
        action = parse_action(text)
        game.apply(player, action)
    except MalformedActionError:
        why = out_of_range(text)
        if why is not None:
            raise RecordError(
                f"action {index}: illegal action {_short(text)} for player {player}: {why} "
                f"(legal: {', '.join(str(a) for a in game.legal_actions(player))})",
                index,
            ) from None
        raise RecordError(f"action {index}: malformed action {_short(text)}", index) from None
    except GameOverError:
        raise RecordError(
            f"action {index}: {_short(text)} comes after the end of the game", index
        ) from None
    except NotYourTurnError:
        waiting = ", ".join(str(p) for p in game.to_act)
        raise RecordError(
            f"action {index}: wrong player: player {player} has no decision to take now "
            f"(waiting for player {waiting})",
            index,
        ) from None
    except IllegalActionError:
        legal = ", ".join(str(a) for a in game.legal_actions(player))
        raise RecordError(
            f"action {index}: illegal action {_short(text)} for player {player} (legal: {legal})",
            index,
        ) from None


def replay_summary(game: Game) -> dict[str, Any]:
    """The ``gonuts replay --json`` object of RECORD.md, exactly."""
    over = game.is_over
    return {
        "players": list(game.players),
        "round": game.round,
        "over": over,
        "row": list(game.row),
        "deck_size": game.deck_size,
        "discard": list(game.discard_pile),
        "collections": game.collections,
        "scores": game.scores(),
        "winners": list(game.winner_seats) if over else [],
        "to_act": [
            {"player": p, "legal": sorted(a.notation for a in game.legal_actions(p))}
            for p in game.to_act
        ],
    }


# -- structure checks ----------------------------------------------------------------------------


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _short(value: object, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return not (isinstance(value, float) and not math.isfinite(value))


def _players(obj: dict[str, Any]) -> tuple[str, ...]:
    if "players" not in obj:
        raise RecordError("missing key 'players'")
    players = obj["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names (strings)")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"player count must be 2 to 6, not {len(players)}")
    return tuple(players)


def _deck(deck: object, n: int) -> tuple[str, ...]:
    if not isinstance(deck, list):
        raise RecordError("deck must be a list of card kinds")
    for i, kind in enumerate(deck):
        if not isinstance(kind, str) or kind not in KIND_BY_ID:
            raise RecordError(f"deck: unknown card kind {_short(kind)} at index {i}")
    expected = Counter(KIND_IDS[k] for k in canonical_deck(n))
    got = Counter(deck)
    if got != expected:
        problems = []
        for kind in KIND_IDS:
            diff = got[kind] - expected[kind]
            if diff:
                problems.append(f"{abs(diff)} {'too many' if diff > 0 else 'missing'} {kind}")
        raise RecordError(
            f"deck is not the {sum(expected.values())}-card deck for {n} players "
            f"(it has {len(deck)} cards: {', '.join(problems)})"
        )
    return tuple(deck)


def _variants(variants: object) -> tuple[str, ...]:
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordError("variants must be a list of variant names (strings)")
    for name in variants:
        if name not in VARIANTS:
            raise RecordError(
                f"variants: unknown variant {_short(name)} (variants: {', '.join(VARIANTS)})"
            )
        if variants.count(name) > 1:
            raise RecordError(f"variants: {_short(name)} is listed more than once")
    return ordered(variants)


def _actions(actions: object, n: int) -> tuple[RecordedAction, ...]:
    if not isinstance(actions, list):
        raise RecordError("actions must be a list")
    out = []
    for i, item in enumerate(actions):
        if not isinstance(item, dict) or "player" not in item or "action" not in item:
            raise RecordError(f"action {i}: must be an object with 'player' and 'action'", i)
        player, text = item["player"], item["action"]
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < n:
            raise RecordError(
                f"action {i}: wrong player: {_short(player)} is not a seat (0 to {n - 1})", i
            )
        if not isinstance(text, str):
            raise RecordError(f"action {i}: malformed action {_short(text)} (not a string)", i)
        out.append(RecordedAction(player, text))
    return tuple(out)
