"""uvicorn's HTTP protocol with the guards it lacks against slow clients.

uvicorn closes an idle keep-alive connection, but not one that connects and never finishes its
request headers (nor one that never sends anything), nor one that sends its headers and then
dribbles its body: a few thousand such sockets used to take the server down.
:func:`guarded_protocol` makes a protocol class that

* closes a connection whose headers are not complete ``header_timeout`` seconds after it opened
  (or after its previous response);
* answers 408 and closes a connection whose request body is not complete ``body_timeout``
  seconds after its headers (the handler waiting for it sees the client gone, and returns);
* closes a connection whose response went out before its body was read (an early 413, say):
  the rest of an oversized body is never read;
* refuses connections beyond ``max_connections`` at once (requests beyond it get uvicorn's 503
  through ``limit_concurrency``).

The serving process's garbage collector is tuned here too (:func:`tune_gc_for_serving`).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gonuts.server.kernel.errors import ErrorCode
from gonuts.server.transport.conn import to_json
from gonuts.server.transport.wire import error_body

log = logging.getLogger("gonuts.server")

CUT_OFF: Final = "gonuts.body_timeout"
"""Set in the request's scope when its body timed out (the app's log line says so)."""


def _timeout_response() -> bytes:
    body = to_json(error_body(ErrorCode.HTTP_ERROR, "request body not complete in time"))
    data = body.encode("utf-8")
    head = (
        "HTTP/1.1 408 Request Timeout\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(data)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + data


RESPONSE_408: Final = _timeout_response()


class GuardedHttp(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with header and body timeouts and a connection cap."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int | None = None
    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

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

    def _disarm_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _body_too_slow(self) -> None:
        self._body_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        log.warning(
            "%s %s: request body not complete after %g s: 408, connection closed",
            self.scope.get("method"),
            self.scope.get("path"),
            self.body_timeout,
        )
        if cycle is not None:
            cycle.scope[CUT_OFF] = True  # type: ignore[typeddict-unknown-key]
            if not cycle.response_started:
                self.transport.write(RESPONSE_408)
                cycle.response_started = True  # the app's own answer, if any, is dropped
        self.transport.close()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            # (a WebSocket handshake leaves this protocol: no timer may outlive it)
            self._disarm_body()
            self._body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)

    def on_message_complete(self) -> None:
        self._disarm_body()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        # (with requests pipelined behind it, self.cycle is a later request's)
        unread = not self.pipeline and self.cycle is not None and self.cycle.more_body
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if unread:
            # answered before its body was read (413): do not read the rest of it
            self._disarm_body()
            self.transport.close()
            return
        self._arm()  # the next request's headers have as long (keep-alive closes sooner)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        super().connection_lost(exc)


def guarded_protocol(
    header_timeout: float, max_connections: int | None, body_timeout: float = 30.0
) -> type[GuardedHttp]:
    """A :class:`GuardedHttp` subclass with these settings (uvicorn takes a class)."""
    if header_timeout <= 0 or body_timeout <= 0:
        raise ValueError("header_timeout and body_timeout must be positive")
    return type(
        "GuardedHttpConfigured",
        (GuardedHttp,),
        {
            "header_timeout": header_timeout,
            "max_connections": max_connections,
            "body_timeout": body_timeout,
        },
    )


def tune_gc_for_serving(gen0: int = 20_000, gen1: int = 0, gen2: int = 60) -> None:
    """Shorter and rarer garbage-collector pauses for a long-running server process.

    Under load the heap is mostly per-connection machinery (coroutines, frames) and live
    games; CPython's full collections walk all of it, and stalled every table for 100-250 ms
    at 1,000 players. Freezing what exists at startup takes it out of every collection, and a
    larger first-generation threshold lets short-lived objects (game copies, messages) die by
    reference counting before a collection would promote them.

    A middle-generation collection walks the young generation and everything promoted since
    the last one: with CPython's ``gen1`` of 10, twelve young collections' worth, 170,000 to
    240,000 objects at 1,000 players (mostly their WebSockets' machinery, ~150 objects each,
    and the games' events): a 100-190 ms pause about every 90 s, the longest wait of issue
    17's load test. With ``gen1=0`` it runs at every other young collection, whenever the
    middle generation holds anything, and walks about twice ``gen0`` objects (20-50 ms): the
    same objects are walked once each either way, in smaller pieces. ``gen2=60`` keeps full
    collections as rare as before (one per ~120 young collections, and only when the old
    generation has grown by a quarter since the last).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(gen0, gen1, gen2)


__all__ = ["CUT_OFF", "GuardedHttp", "guarded_protocol", "tune_gc_for_serving"]
