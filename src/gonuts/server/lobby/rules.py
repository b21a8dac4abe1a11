"""New tables and players' names: the lobby's rules, pure (no storage, no service).

:func:`new_table` deals a table's deck and seats; the service stores it
(:meth:`~gonuts.server.play.store.TableStore.create`) and makes it live.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import Sequence
from typing import Final

from gonuts.cards import KIND_IDS, MAX_PLAYERS, MIN_PLAYERS, canonical_deck
from gonuts.rng import seeded_shuffle
from gonuts.server.kernel import i18n
from gonuts.server.kernel.db import hash_token
from gonuts.server.kernel.errors import ErrorCode, ServiceError
from gonuts.server.play.protocol import BOT_LEVELS, REPLACEMENT_LEVEL, StoredSeat, StoredTable
from gonuts.variants import UnknownVariantError, check_variants, ordered

MAX_NAME: Final = 24
E = ErrorCode

BLANKS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (the Hangul fillers, the blank Braille pattern): read
as spaces, so a name of them alone is empty and one cannot hide in a name."""
VARIATION_SELECTORS: Final = frozenset(
    [chr(c) for c in range(0xFE00, 0xFE10)] + [chr(c) for c in range(0xE0100, 0xE01F0)]
)
"""Default-ignorable but needed (an emoji's presentation): allowed, and dropped when folding."""
INVISIBLE: Final = frozenset("\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f")
"""The default-ignorable code points that are not format characters (those are refused with
every other ``C*`` category), fillers or variation selectors: refused."""
VISIBLE_CATEGORIES: Final = ("L", "N", "P", "S")
BOT_LIKE: Final = re.compile(r"^bot ?\d+(?:$|[ (])")
"""A folded name that reads as a bot's ("Bot 2 (easy)", "bot 3 (difícil)", "Bot 4"): every
language names its bots "Bot <seat> (<level>)" (:func:`gonuts.server.kernel.i18n.bot_name`)."""


def fold_name(name: str) -> str:
    """``name`` folded for comparing names: NFKC, case-folded, variation selectors dropped,
    spaces collapsed. Accounts are unique under it; a guest cannot take an account's name
    under it (docs/protocol.md, "Names")."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = "".join(" " if ch in BLANKS else ch for ch in folded if ch not in VARIATION_SELECTORS)
    return " ".join(folded.split())


def reserved_names() -> frozenset[str]:
    """Folded names nobody may take: the deleted player's, in the record and in every
    language."""
    names = {i18n.DELETED_PLAYER, *(i18n.deleted_player(lang) for lang in i18n.LANGS)}
    return frozenset(fold_name(n) for n in names)


RESERVED: Final = reserved_names()


def normal_name(raw: str) -> str:
    """``raw`` with blank-looking characters read as spaces and the spaces collapsed."""
    return " ".join("".join(" " if ch in BLANKS else ch for ch in raw).split())


def check_name(raw: str) -> str:
    """A new name (a guest's, a new account's) as stored: spaces collapsed; ``malformed`` if it
    is empty or too long once collapsed, or has a control, format or invisible character, or no
    visible one; ``name_taken`` if it reads as a bot's or the deleted player's."""
    name = normal_name(raw)
    if not name and raw.strip():
        raise ServiceError(E.MALFORMED, "a name needs a visible character", 422)
    if not 1 <= len(name) <= MAX_NAME:
        raise ServiceError(E.MALFORMED, f"a name has 1 to {MAX_NAME} characters", 422)
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ServiceError(E.MALFORMED, "a name cannot contain control characters", 422)
    if any(ch in INVISIBLE for ch in name):
        raise ServiceError(E.MALFORMED, "a name cannot contain invisible characters", 422)
    if not any(unicodedata.category(ch).startswith(VISIBLE_CATEGORIES) for ch in name):
        raise ServiceError(E.MALFORMED, "a name needs a visible character", 422)
    folded = fold_name(name)
    if BOT_LIKE.match(folded):
        raise ServiceError(E.NAME_TAKEN, None, 409)  # (a bot's: no English detail)
    if folded in RESERVED:
        raise ServiceError(E.NAME_TAKEN, None, 409)
    return name


def new_token() -> str:
    return secrets.token_urlsafe(24)


def check_table_variants(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` as a table's house rules, in canonical order; a 422 for an unknown or
    repeated name (repeats are refused, as records refuse them, rather than silently folded)."""
    try:
        chosen = check_variants(names)
    except UnknownVariantError as exc:
        raise ServiceError(E.MALFORMED, str(exc), 422) from None
    if len(chosen) != len(names):
        twice = next(v for v in names if names.count(v) > 1)
        raise ServiceError(E.MALFORMED, f"variant {twice!r} is listed more than once", 422)
    return ordered(chosen)


def new_table(
    seats: Sequence[tuple[str, str | None]],
    name: str | None,
    lang: str,
    variants: Sequence[str] = (),
) -> tuple[StoredTable, int | None, str | None]:
    """A new table (its seats, shuffled deck and house rules), the creator's seat and token."""
    chosen = check_table_variants(variants)
    n = len(seats)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ServiceError(E.MALFORMED, "a table has 2 to 6 seats", 422)
    for kind, level in seats:
        if kind == "bot" and level not in BOT_LEVELS:
            raise ServiceError(E.MALFORMED, "a bot seat needs a level", 422)
    if name is not None:
        name = check_name(name)
    deck = tuple(KIND_IDS[k] for k in seeded_shuffle(canonical_deck(n), secrets.randbits(63)))
    made: list[StoredSeat] = []
    my_seat: int | None = None
    token: str | None = None
    for i, (kind, level) in enumerate(seats):
        if kind == "bot":
            bot_name = i18n.bot_name(i, level or REPLACEMENT_LEVEL, lang)
            made.append(StoredSeat(i, kind, level, bot_name))
        elif name is not None and my_seat is None:
            my_seat, token = i, new_token()
            made.append(StoredSeat(i, kind, None, name, hash_token(token)))
        else:
            made.append(StoredSeat(i, kind))
    table = StoredTable(secrets.token_urlsafe(8), "open", deck, tuple(made), variants=chosen)
    return table, my_seat, token


def derived_token(token: str, table_id: str) -> str:
    """The seat token that ``token``'s holder gets at table ``table_id`` ("play again").

    The same for every call with the same token, so asking twice (a double click, two tabs, two
    server processes) finds the seat already taken for it instead of taking another; nobody
    without ``token`` can compute it.
    """
    digest = hmac.new(token.encode("utf-8"), table_id.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode("ascii")
