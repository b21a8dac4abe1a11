"""Every error code of the protocol (docs/protocol.md), and one table of texts per language.

A refusal travels as :class:`ServiceError` from the service to the HTTP and WebSocket layers,
which turn it into ``{"error": {"code", "message"}}`` or an ``error`` message in the client's
language.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


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


E = ErrorCode

ERROR_TEXTS: Final[dict[str, dict[ErrorCode, str]]] = {
    "en": {
        E.MALFORMED: "Malformed message",
        E.TOO_LARGE: "Message too large",
        E.UNKNOWN_TABLE: "No such table",
        E.UNKNOWN_LANGUAGE: "Unknown language",
        E.BAD_TOKEN: "This seat token is not valid for this table",
        E.TABLE_FULL: "This table has no free seat",
        E.NOT_STARTED: "The game has not started yet",
        E.NOT_FINISHED: "The game is not finished yet",
        E.NOT_YOUR_TURN: "It is not your turn",
        E.ILLEGAL: "That move is not allowed now",
        E.GAME_OVER: "The game is over",
        E.BAD_ACTION: "Not a valid action",
        E.BAD_RECORD: "Not a valid game record",
        E.SPECTATOR: "Spectators cannot do that",
        E.RATE_LIMITED: "Too many messages; slow down",
        E.TOO_MANY_TABLES: "You already have too many unfinished tables",
        E.NOT_FOUND: "Not found",
        E.HTTP_ERROR: "Request refused",
        E.BAD_CREDENTIALS: "Wrong name or password",
        E.NAME_TAKEN: "That name is already taken",
        E.UNKNOWN_PLAYER: "No such player",
    },
    "es": {
        E.MALFORMED: "Mensaje mal formado",
        E.TOO_LARGE: "Mensaje demasiado grande",
        E.UNKNOWN_TABLE: "No existe esa mesa",
        E.UNKNOWN_LANGUAGE: "Idioma desconocido",
        E.BAD_TOKEN: "La credencial de asiento no vale para esta mesa",
        E.TABLE_FULL: "Esta mesa no tiene asientos libres",
        E.NOT_STARTED: "La partida aún no ha empezado",
        E.NOT_FINISHED: "La partida aún no ha terminado",
        E.NOT_YOUR_TURN: "No es tu turno",
        E.ILLEGAL: "Esa jugada no está permitida ahora",
        E.GAME_OVER: "La partida ha terminado",
        E.BAD_ACTION: "No es una acción válida",
        E.BAD_RECORD: "No es un registro de partida válido",
        E.SPECTATOR: "Los espectadores no pueden hacer eso",
        E.RATE_LIMITED: "Demasiados mensajes; ve más despacio",
        E.TOO_MANY_TABLES: "Ya tienes demasiadas mesas sin terminar",
        E.NOT_FOUND: "No encontrado",
        E.HTTP_ERROR: "Petición rechazada",
        E.BAD_CREDENTIALS: "Nombre o contraseña incorrectos",
        E.NAME_TAKEN: "Ese nombre ya está en uso",
        E.UNKNOWN_PLAYER: "No existe ese jugador",
    },
    "it": {
        E.MALFORMED: "Messaggio non valido",
        E.TOO_LARGE: "Messaggio troppo grande",
        E.UNKNOWN_TABLE: "Questo tavolo non esiste",
        E.UNKNOWN_LANGUAGE: "Lingua sconosciuta",
        E.BAD_TOKEN: "La credenziale del posto non vale per questo tavolo",
        E.TABLE_FULL: "Questo tavolo non ha posti liberi",
        E.NOT_STARTED: "La partita non è ancora iniziata",
        E.NOT_FINISHED: "La partita non è ancora finita",
        E.NOT_YOUR_TURN: "Non è il tuo turno",
        E.ILLEGAL: "Questa mossa non è permessa ora",
        E.GAME_OVER: "La partita è finita",
        E.BAD_ACTION: "Azione non valida",
        E.BAD_RECORD: "Registrazione di partita non valida",
        E.SPECTATOR: "Gli spettatori non possono farlo",
        E.RATE_LIMITED: "Troppi messaggi; rallenta",
        E.TOO_MANY_TABLES: "Hai già troppi tavoli non finiti",
        E.NOT_FOUND: "Non trovato",
        E.HTTP_ERROR: "Richiesta rifiutata",
        E.BAD_CREDENTIALS: "Nome o password errati",
        E.NAME_TAKEN: "Questo nome è già in uso",
        E.UNKNOWN_PLAYER: "Questo giocatore non esiste",
    },
}


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
