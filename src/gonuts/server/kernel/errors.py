"""Every error code of the protocol (docs/protocol.md), and one table of texts per language.

A refusal travels as :class:`ServiceError` from the service to the HTTP and WebSocket layers,
which turn it into ``{"error": {"code", "message"}}`` or an ``error`` message in the client's
language.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from gonuts.server.kernel import i18n


class ErrorCode(StrEnum):
    """The ``code`` of an error body or message: stable, for programs (the text is for people)."""

    MALFORMED = "malformed"
    TOO_LARGE = "too_large"
    UNKNOWN_TABLE = "unknown_table"
    UNKNOWN_LANGUAGE = "unknown_language"
    BAD_TOKEN = "bad_token"
    TABLE_FULL = "table_full"
    NOT_STARTED = "not_started"
    NOT_FINISHED = "not_finished"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL = "illegal"
    GAME_OVER = "game_over"
    BAD_ACTION = "bad_action"
    BAD_RECORD = "bad_record"
    SPECTATOR = "spectator"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_TABLES = "too_many_tables"
    NOT_FOUND = "not_found"
    HTTP_ERROR = "http_error"
    BAD_CREDENTIALS = "bad_credentials"
    NAME_TAKEN = "name_taken"
    UNKNOWN_PLAYER = "unknown_player"
    NOT_SIGNED_IN = "not_signed_in"
    DATABASE_UNAVAILABLE = "database_unavailable"
    REVIEW_BUSY = "review_busy"
    REVIEW_UNAVAILABLE = "review_unavailable"
    NOT_HOST = "not_host"
    ALREADY_STARTED = "already_started"
    CHAT_OFF = "chat_off"
    ALREADY_QUEUED = "already_queued"
    QUEUE_FULL = "queue_full"
    PICK_FINAL = "pick_final"


E = ErrorCode

ERROR_TEXTS: Final[dict[str, dict[ErrorCode, str]]] = {
    lang: {ErrorCode(code): text for code, text in table.items()}
    for lang, table in i18n.texts("errors").items()
}
"""Every code's text in each language (the ``errors`` of ``web/i18n/server/<lang>.json``)."""


def error_text(code: ErrorCode, lang: str, detail: str | None = None) -> str:
    """The text of ``code`` in ``lang`` (English if unknown), with the (English) detail if any."""
    base = ERROR_TEXTS.get(lang, ERROR_TEXTS["en"])[code]
    return f"{base}: {detail}" if detail else f"{base}."


class ServiceError(Exception):
    """A refusal with a protocol error code, an optional detail, and its HTTP status."""

    def __init__(self, code: ErrorCode, detail: str | None = None, status: int = 409) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail
        self.status = status


RETRY_AFTER: Final = 5
"""Seconds a client is told to wait (``Retry-After``) when the database cannot serve."""


class DatabaseUnavailableError(ServiceError):
    """The database cannot be reached, or cannot store now (locked, read-only, disk full):
    503 with ``Retry-After`` over HTTP, an ``error`` message on a socket (docs/protocol.md,
    "Faults"). Whatever raised it was not stored, so nothing was acknowledged."""

    def __init__(self, detail: str, retry_after: int = RETRY_AFTER) -> None:
        super().__init__(ErrorCode.DATABASE_UNAVAILABLE, detail, 503)
        self.retry_after = retry_after
