"""What a notification says, in each language (the server catalogues' ``notify`` texts and
``games_waiting`` plural): :func:`wording`; and where its links lead."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any, Final

from babel.dates import format_datetime

from gonuts.server.kernel.i18n import DEFAULT_LANG, join_list, normalize, plural, server_texts
from gonuts.server.notify.protocol import Note

SETTINGS_PATH: Final = "/account#notifications"
"""Where the browser shows an account's notification settings (the links in the mails)."""


def public_url(env: Mapping[str, str] | None = None) -> str | None:
    """``GONUTS_PUBLIC_URL`` (``https://gonuts.example``): the site's address in links that
    leave it (the mails); None when unset."""
    raw = (env if env is not None else os.environ).get("GONUTS_PUBLIC_URL", "").strip()
    return raw.rstrip("/") or None


@dataclass(frozen=True, slots=True)
class Wording:
    """A note in one language: a title, a body, the link to open, a tag that replaces an
    earlier notification of the same thing."""

    title: str
    body: str
    url: str
    tag: str


def notify_text(key: str, lang: str) -> str:
    texts: dict[str, Any] = server_texts(lang).get("notify") or server_texts(DEFAULT_LANG)["notify"]
    value = texts.get(key, server_texts(DEFAULT_LANG)["notify"][key])
    assert isinstance(value, str)
    return value


def place(rank: int, lang: str) -> str:
    """``2`` → "2nd" / "2.º" / "2º"."""
    places: dict[str, str] = server_texts(lang)["notify"]["places"]
    return places.get(str(rank), places["other"]).format(n=rank)


def wording(note: Note, lang: str) -> Wording:
    """What ``note`` says in ``lang`` (the tables' names are the players' own, untranslated)."""
    lang = normalize(lang) or DEFAULT_LANG
    first = note.tables[0]
    if note.kind == "digest" and len(note.tables) > 1:
        names = join_list([t.name for t in note.tables], lang)
        return Wording(
            plural("games_waiting", len(note.tables), lang),
            notify_text("digest_body", lang).format(tables=names),
            "/",
            "gonuts-digest",
        )
    if note.kind == "ended":
        body = ""
        if first.rank == 1:
            body = notify_text("ended_won", lang)
        elif first.rank is not None:
            body = notify_text("ended_place", lang).format(
                place=place(first.rank, lang), players=first.players
            )
        return Wording(
            notify_text("ended_title", lang).format(table=first.name),
            body,
            first.url,
            f"gonuts-{first.table_id}",
        )
    if first.round > 0:
        body = notify_text("turn_body", lang).format(round=first.round)
    else:  # (the round was not known when the fact was stored)
        body = notify_text("turn_body_plain", lang)
    if first.deadline is not None:
        at = first.deadline.astimezone(UTC) if first.deadline.tzinfo else first.deadline
        when = format_datetime(at, "EEE d MMM, HH:mm", tzinfo=UTC, locale=lang)
        body += " " + notify_text("deadline", lang).format(time=when)
    return Wording(
        notify_text("turn_title", lang).format(table=first.name),
        body,
        first.url,
        f"gonuts-{first.table_id}",
    )


__all__ = ["SETTINGS_PATH", "Wording", "notify_text", "place", "public_url", "wording"]
