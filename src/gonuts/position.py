"""Positions as one line of text: what FEN is to chess, so a test or a bug report can name a
mid-game position without replaying a record.

A position string holds everything the rules need to carry on from a state — pending secret
picks and passes included, so it is the engine's whole state, not a player's view — and
nothing else (no event log, no history, no deck as dealt). Twelve fields, one space apart::

    Ana,Ben,Cy - 2 select:0:-1:0 ehbb DECK... DISCARD... a1,-,b2 -,3,- - - -

1. ``players`` — the names in seat order, comma-separated, each percent-encoded (UTF-8;
   every byte outside ``A-Z a-z 0-9 _ . ~ -`` as ``%XX``), 2 to 6 of them;
2. ``variants`` — house rules by name, comma-separated in RULES.md order, or ``-``;
3. ``round`` — the round number, from 1;
4. ``phase:pos:actor:step`` — the phase (``select``, ``bear_claw``, ``over``, … the values of
   :class:`~gonuts.state.Phase`), the row position being resolved (0-based), the seat whose
   power it is (``-1`` for none) and the step inside a multi-step power;
5. ``row`` — one letter per row position 1 … N+1, ``-`` where empty;
6. ``deck`` — the deck, top card first, one letter per card, or ``-`` when empty;
7. ``discard`` — the discard pile, bottom card first, or ``-``;
8. ``collections`` — one entry per seat, comma-separated: letter and count pairs in card-table
   order (``a2c1``), or ``-`` for an empty collection;
9. ``picks`` — this round's pick per seat (row position from 1), ``-`` for none yet;
10. ``passes`` — Cinnamon Twist: ``-`` outside a Twist, else one letter per seat (the kind it
    passes) or ``?`` for a seat that has not chosen;
11. ``known`` — private deck knowledge, ``seat:length:letter`` comma-separated (seat knows
    that the card at 1-based height ``length`` from the bottom is that kind), or ``-``;
12. ``winners`` — seats, comma-separated, or ``-``.

A card is one letter: the kinds in the order of the card table of RULES.md, ``a`` (Chocolate
Frosted) to ``w`` (Strawberry Glazed) — :data:`KIND_LETTERS`.

>>> from gonuts import Game
>>> game = Game.new(["Ana", "Ben"], seed=2)
>>> text = game.position()
>>> text.split()[:5]
['Ana,Ben', '-', '1', 'select:0:-1:0', 'ehe']
>>> Game.from_position(text) == game
True

Reading is strict: a string that is not a position of this grammar, or whose cards are not
exactly the deck for that player count, raises :class:`PositionError` naming the field.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Final
from urllib.parse import quote, unquote

from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS, NUM_KINDS, canonical_deck
from gonuts.errors import GonutsError
from gonuts.state import GameConfig, GameState, Phase
from gonuts.variants import VARIANTS, ordered

KIND_LETTERS: Final = "".join(chr(ord("a") + k) for k in range(NUM_KINDS))
"""The letter of each kind, by kind index (card-table order)."""
_KIND_OF_LETTER: Final = {letter: k for k, letter in enumerate(KIND_LETTERS)}
_PHASES: Final = {p.value: p for p in Phase}
_INT: Final = re.compile(r"-?[0-9]{1,9}\Z")
FIELDS: Final = (
    "players",
    "variants",
    "round",
    "phase",
    "row",
    "deck",
    "discard",
    "collections",
    "picks",
    "passes",
    "known",
    "winners",
)


class PositionError(GonutsError, ValueError):
    """A string that is not a position (the message names the field)."""


# -- writing -------------------------------------------------------------------------------------


def _cards(kinds: list[int]) -> str:
    return "".join(KIND_LETTERS[k] for k in kinds) or "-"


def _list(items: list[str]) -> str:
    return ",".join(items) or "-"


def to_position(state: GameState) -> str:
    """The position string of ``state`` (see the module docstring)."""
    n = state.n
    k = NUM_KINDS
    collections = []
    for p in range(n):
        counts = state.coll[p * k : p * k + k]
        collections.append("".join(f"{KIND_LETTERS[i]}{c}" for i, c in enumerate(counts) if c))
    fields = [
        ",".join(quote(name, safe="") for name in state.config.players),
        _list(list(ordered(state.config.variants))),
        str(state.round),
        f"{state.phase.value}:{state.pos}:{state.actor}:{state.step}",
        "".join("-" if c < 0 else KIND_LETTERS[c] for c in state.row),
        _cards(state.deck[::-1]),
        _cards(state.discard),
        ",".join(c or "-" for c in collections),
        ",".join("-" if p < 0 else str(p + 1) for p in state.picks),
        "".join("?" if c < 0 else KIND_LETTERS[c] for c in state.passes) or "-",
        _list(
            [f"{p}:{length}:{KIND_LETTERS[c]}" for p, (length, c) in sorted(state.known.items())]
        ),
        _list([str(w) for w in state.winners]),
    ]
    return " ".join(fields)


# -- reading -------------------------------------------------------------------------------------


def _int(text: str, field: str, low: int, high: int) -> int:
    if not _INT.match(text) or not low <= int(text) <= high:
        raise PositionError(f"{field}: {text!r} is not a number from {low} to {high}")
    return int(text)


def _kinds(text: str, field: str, *, empty: str = "-") -> list[int]:
    if text == empty:
        return []
    out = []
    for letter in text:
        if letter not in _KIND_OF_LETTER:
            raise PositionError(
                f"{field}: {letter!r} is not a card letter (a to {KIND_LETTERS[-1]})"
            )
        out.append(_KIND_OF_LETTER[letter])
    return out


def _seats(text: str, field: str, n: int) -> list[int]:
    return [] if text == "-" else [_int(s, field, 0, n - 1) for s in text.split(",")]


def _collection(text: str, p: int) -> list[int]:
    counts = [0] * NUM_KINDS
    if text == "-":
        return counts
    pairs = re.findall(r"([a-z])([0-9]{1,3})", text)
    if "".join(a + b for a, b in pairs) != text or not pairs:
        raise PositionError(f"collections: seat {p}: {text!r} is not letter-count pairs")
    for letter, count in pairs:
        kind = _kinds(letter, "collections")[0]
        if counts[kind] or int(count) == 0:
            raise PositionError(f"collections: seat {p}: {text!r} repeats a kind or counts 0")
        counts[kind] = int(count)
    return counts


def from_position(text: str, *, events: bool = True) -> GameState:
    """The state a position string describes; :class:`PositionError` for anything else.

    The state has no history (it starts here) and, with ``events``, an empty event log. Its
    :attr:`~gonuts.state.GameConfig.initial_deck` is the unshuffled deck for the player count
    (a position does not say how the deck was dealt).
    """
    if not isinstance(text, str):
        raise PositionError(f"a position is a string, not {type(text).__name__}")
    parts = text.split(" ")
    if len(parts) != len(FIELDS) or not all(parts):
        raise PositionError(
            f"a position has {len(FIELDS)} fields separated by one space "
            f"({' '.join(FIELDS)}), not {len(parts)}"
        )
    f = dict(zip(FIELDS, parts, strict=True))
    names = f["players"].split(",")
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise PositionError(f"players: 2 to 6 names, not {len(names)}")
    if any(not re.fullmatch(r"(?:[A-Za-z0-9_.~-]|%[0-9A-F]{2})+", name) for name in names):
        raise PositionError("players: each name is percent-encoded and not empty")
    players = tuple(unquote(name, errors="strict") for name in names)
    n = len(players)
    variants = [] if f["variants"] == "-" else f["variants"].split(",")
    for name in variants:
        if name not in VARIANTS:
            raise PositionError(f"variants: unknown variant {name!r} ({', '.join(VARIANTS)})")
    if len(set(variants)) != len(variants):
        raise PositionError("variants: a variant is listed twice")
    round_ = _int(f["round"], "round", 1, 10**6)
    phase_parts = f["phase"].split(":")
    if len(phase_parts) != 4 or phase_parts[0] not in _PHASES:
        raise PositionError(
            f"phase: {f['phase']!r} is not phase:pos:actor:step ({', '.join(_PHASES)})"
        )
    phase = _PHASES[phase_parts[0]]
    pos = _int(phase_parts[1], "phase: pos", 0, n + 1)
    actor = _int(phase_parts[2], "phase: actor", -1, n - 1)
    step = _int(phase_parts[3], "phase: step", 0, 99)
    if len(f["row"]) != n + 1:
        raise PositionError(f"row: {n + 1} positions for {n} players, not {len(f['row'])}")
    row = [-1 if c == "-" else _kinds(c, "row")[0] for c in f["row"]]
    deck = _kinds(f["deck"], "deck")[::-1]
    discard = _kinds(f["discard"], "discard")
    colls = f["collections"].split(",")
    if len(colls) != n:
        raise PositionError(f"collections: one entry per seat ({n}), not {len(colls)}")
    coll = [c for p, entry in enumerate(colls) for c in _collection(entry, p)]
    picks_text = f["picks"].split(",")
    if len(picks_text) != n:
        raise PositionError(f"picks: one entry per seat ({n}), not {len(picks_text)}")
    picks = [-1 if s == "-" else _int(s, "picks", 1, n + 1) - 1 for s in picks_text]
    passes: list[int] = []
    if f["passes"] != "-":
        if len(f["passes"]) != n:
            raise PositionError(f"passes: one letter per seat ({n}), not {len(f['passes'])}")
        passes = [-1 if c == "?" else _kinds(c, "passes")[0] for c in f["passes"]]
    known: dict[int, tuple[int, int]] = {}
    if f["known"] != "-":
        for entry in f["known"].split(","):
            bits = entry.split(":")
            if len(bits) != 3 or len(bits[2]) != 1:
                raise PositionError(f"known: {entry!r} is not seat:length:letter")
            seat = _int(bits[0], "known: seat", 0, n - 1)
            if seat in known:
                raise PositionError(f"known: seat {seat} is listed twice")
            known[seat] = (_int(bits[1], "known: length", 1, 99), _kinds(bits[2], "known")[0])
    winners = tuple(_seats(f["winners"], "winners", n))
    held = Counter(deck + discard + [c for c in row if c >= 0])
    for k in range(NUM_KINDS):
        held[k] += sum(coll[p * NUM_KINDS + k] for p in range(n))
    if held != Counter(canonical_deck(n)):
        raise PositionError(f"the cards are not exactly the deck for {n} players")
    config = GameConfig(players, tuple(canonical_deck(n)), frozenset(variants))
    return GameState(
        config,
        deck=deck,
        row=row,
        discard=discard,
        coll=coll,
        round=round_,
        picks=picks,
        phase=phase,
        pos=pos,
        actor=actor,
        step=step,
        passes=passes,
        known=known,
        winners=winners,
        events=[] if events else None,
    )
