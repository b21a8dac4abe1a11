"""New tables and players' names: the lobby's rules, pure (no storage, no service).

:func:`new_table` deals a table's deck and seats; the service stores it
(:meth:`~gonuts.server.play.store.TableStore.create`) and makes it live.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
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


def check_name(raw: str) -> str:
    name = " ".join(raw.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise ServiceError(E.MALFORMED, f"a name has 1 to {MAX_NAME} characters", 422)
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ServiceError(E.MALFORMED, "a name cannot contain control characters", 422)
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
