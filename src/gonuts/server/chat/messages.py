"""The chat's wire: ``chat`` from a player (a line or a quick reaction), and what the table's
sockets are sent: ``chat`` (a line, with the sender's seat and name) and ``chat_notice`` (what
the host did, in the reader's language); ``GET /api/tables/{id}/chat``'s :class:`ChatLog`."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field

from gonuts.server.chat.store import ChatLine
from gonuts.server.transport.wire import Out, Strict

MAX_TEXT: Final = 300
"""Characters in one chat line."""
REACTIONS: Final = ("hi", "gg", "nice", "oops", "wow", "thanks")
"""The quick reactions (the browser shows each as an emoji); no typing needed."""
Reaction = Literal["hi", "gg", "nice", "oops", "wow", "thanks"]


class ChatSay(Strict):
    """``{"type": "chat", "text": "good luck!"}`` or ``{"type": "chat", "reaction": "gg"}``."""

    type: Literal["chat"]
    text: str | None = Field(default=None, max_length=4 * MAX_TEXT)
    """One line of at most :data:`MAX_TEXT` characters (checked by the service)."""
    reaction: Reaction | None = None


class ChatMessage(Out):
    id: int
    seat: int
    name: str
    text: str | None
    reaction: Reaction | None
    at: str


class ChatLog(Out):
    """A table's chat: whether it is on, and its last lines, oldest first."""

    enabled: bool
    messages: list[ChatMessage]


def line_json(line: ChatLine) -> dict[str, Any]:
    """:class:`ChatMessage` of a stored line (text and names as said: the client shows them as
    text, never as markup)."""
    reaction = line.text if line.kind == "reaction" else None
    return {
        "id": line.id,
        "seat": line.seat,
        "name": line.name,
        "text": None if reaction is not None else line.text,
        "reaction": reaction,
        "at": line.at.isoformat() + "Z",
    }
