"""uvicorn's HTTP protocol with the two guards it lacks against slow clients.

uvicorn closes an idle keep-alive connection, but not one that connects and never finishes its
request headers (nor one that never sends anything): a few thousand such sockets used to take
the server down. :func:`guarded_protocol` makes a protocol class that closes a connection
whose headers are not complete ``header_timeout`` seconds after it opened (or after its
previous response), and refuses connections beyond ``max_connections`` at once (requests
beyond it get uvicorn's 503 through ``limit_concurrency``).
"""

from __future__ import annotations

import asyncio
import logging

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("gonuts.server")


class GuardedHttp(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with a header timeout and a connection cap."""

    header_timeout: float = 10.0
    max_connections: int | None = None
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.max_connections is not None and len(self.connections) > self.max_connections:
            log.warning("connection refused: %d connections open", len(self.connections) - 1)
            transport.abort()
            return
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's headers have as long (keep-alive closes sooner)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def guarded_protocol(header_timeout: float, max_connections: int | None) -> type[GuardedHttp]:
    """A :class:`GuardedHttp` subclass with these settings (uvicorn takes a class)."""
    if header_timeout <= 0:
        raise ValueError("header_timeout must be positive")
    return type(
        "GuardedHttpConfigured",
        (GuardedHttp,),
        {"header_timeout": header_timeout, "max_connections": max_connections},
    )


__all__ = ["GuardedHttp", "guarded_protocol"]
