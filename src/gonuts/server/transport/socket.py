"""A client's WebSocket, frame by frame, and which feature handles each message type.

:class:`SocketSession` reads frames (size and rate limits), parses them with the
:class:`Dispatcher`'s union of every registered message model, and turns refusals into
``error`` messages; :meth:`Dispatcher.dispatch` hands each parsed message to the handler that
registered its model (play registers ``act``, ``hints``, ``back``, …; a chat feature would
register its ``chat`` message beside them, as boardgame.io's Master takes ``onChatMessage``
beside ``onUpdate``). The room a socket joins (a table) is the feature's: here it is opaque.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cached_property
from typing import Annotated, Any, Generic, TypeVar, Union

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from gonuts.server.kernel import i18n
from gonuts.server.kernel.errors import ErrorCode
from gonuts.server.kernel.limits import Limits, TokenBucket
from gonuts.server.kernel.metrics import Metrics
from gonuts.server.transport.conn import Conn
from gonuts.server.transport.wire import error_message

E = ErrorCode
S = TypeVar("S")
M = TypeVar("M", bound=BaseModel)

CLOSE_BAD_TOKEN = 4403
CLOSE_UNKNOWN_TABLE = 4404
CLOSE_POLICY = 1008
CLOSE_TRY_LATER = 1013
"""Try again later (RFC 6455 registry): the socket cannot be served now (its database is
unavailable while it joins); the browser client reconnects with backoff."""
CLOSE_RESTART = 1012
"""Service restart (RFC 6455 registry): the server is going away for a moment; the browser
client reconnects after any close it did not ask for (docs/deploy.md, "Graceful shutdown")."""


def first_error(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``where: what``."""
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "invalid"
    e = errors[0]
    where = ".".join(str(p) for p in e.get("loc", ()))
    return f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid"))


class Dispatcher(Generic[S]):
    """Client message models (each with a ``type`` literal) and their handlers, in the order
    registered; ``S`` is the session a handler is called with."""

    def __init__(self) -> None:
        self.handlers: dict[type[BaseModel], Callable[[S, Any], Awaitable[None]]] = {}

    def on(self, model: type[M], handler: Callable[[S, M], Awaitable[None]]) -> None:
        """Let ``handler`` answer every ``model`` message (registered before the first parse)."""
        self.handlers[model] = handler

    @cached_property
    def adapter(self) -> TypeAdapter[Any]:
        """Parses a frame into one of the registered models (by its ``type``)."""
        models = tuple(self.handlers)
        union = Union[models]  # type: ignore[valid-type]  # noqa: UP007 - known at run time
        return TypeAdapter(Annotated[union, Field(discriminator="type")])

    async def dispatch(self, session: S, msg: BaseModel) -> None:
        await self.handlers[type(msg)](session, msg)


class SocketSession:
    """One client's WebSocket: its frames, limits and refusals (docs/protocol.md)."""

    def __init__(
        self,
        websocket: WebSocket,
        metrics: Metrics,
        parser: TypeAdapter[Any],
        limits: Limits | None = None,
    ) -> None:
        self.ws = websocket
        self.metrics = metrics
        self.parser = parser
        self.lang = i18n.DEFAULT_LANG
        self.limits = limits or Limits()
        rate = self.limits.ws_rate
        self.bucket = TokenBucket(rate, self.limits.ws_burst) if rate is not None else None
        self.strikes = 0
        self.conn = Conn(websocket, None, self.lang, queue_bytes=self.limits.ws_send_queue)
        """Everything this socket is sent goes through its queue, in order (errors too)."""

    async def error(
        self, code: ErrorCode, detail: str | None = None, id_: str | None = None
    ) -> None:
        self.metrics.error(code)
        await self.conn.send(error_message(code, self.lang, detail, id_))

    async def within_rate(self) -> bool:
        """Take a token; refuse the message if none, and close the socket of a flooder."""
        bucket = self.bucket
        if bucket is None:
            return True
        if bucket.take():
            if bucket.tokens >= bucket.burst / 2:
                self.strikes = 0  # calm again
            return True
        self.strikes += 1
        if self.strikes >= self.limits.ws_strikes:
            await self.error(E.RATE_LIMITED, "closing the connection")
            await self.conn.close(CLOSE_POLICY, "too many messages")
            raise WebSocketDisconnect(CLOSE_POLICY)
        await self.error(E.RATE_LIMITED, f"at most {bucket.rate:g} messages a second")
        return False

    async def receive(self) -> str | None:
        """The next valid-sized text frame; None after a refusal; raises on disconnect."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        if not await self.within_rate():
            return None
        limit = self.limits.max_message
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > limit:
                await self.error(E.TOO_LARGE, f"limit {limit} bytes")
            else:
                await self.error(E.MALFORMED, "send JSON text frames")
            return None
        if len(text) > limit or len(text.encode("utf-8")) > limit:
            await self.error(E.TOO_LARGE, f"limit {limit} bytes")
            return None
        return str(text)

    async def parse(self, text: str) -> Any:
        try:
            return self.parser.validate_json(text)
        except ValidationError as exc:
            await self.error(E.MALFORMED, first_error(exc))
            return None


__all__ = ["CLOSE_RESTART", "CLOSE_TRY_LATER", "Dispatcher", "SocketSession", "first_error"]
