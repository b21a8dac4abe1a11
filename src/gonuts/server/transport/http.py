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
  through ``limit_concurrency``);
* answers 429 and closes a connection from an address that already holds
  ``max_per_address`` HTTP connections (the trusted proxies of ``--forwarded-allow-ips``
  excepted: their connections carry many clients): a few thousand half-sent requests from one
  address no longer fill ``max_connections`` for everyone else. A connection that becomes a
  WebSocket leaves this count (the app caps sockets per address itself).

The serving process's garbage collector is tuned here too (:func:`tune_gc_for_serving`).
"""

from __future__ import annotations

import asyncio
import gc
import ipaddress
import logging
from collections.abc import Container
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


def _busy_response() -> bytes:
    message = "too many connections from this address"
    body = to_json(error_body(ErrorCode.RATE_LIMITED, message)).encode("utf-8")
    head = (
        "HTTP/1.1 429 Too Many Requests\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "retry-after: 1\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


RESPONSE_429: Final = _busy_response()
REFUSED_LINGER: Final = 1.0
"""Seconds a refused connection has to read its 429 and close before it is dropped."""


class TrustedProxies:
    """The peers named by ``--forwarded-allow-ips`` (as uvicorn reads it): addresses, networks
    (``10.0.0.0/8``) or ``*`` (every peer); ``in`` tells whether a peer address is one."""

    def __init__(self, spec: str) -> None:
        names = [n.strip() for n in spec.split(",") if n.strip()]
        self.everyone = "*" in names
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.literals: set[str] = set()
        for name in names:
            try:
                self.networks.append(ipaddress.ip_network(name, strict=False))
            except ValueError:
                self.literals.add(name)  # (a host name or a socket path: compared as text)

    def __contains__(self, host: object) -> bool:
        if self.everyone or host in self.literals:
            return True
        try:
            address = ipaddress.ip_address(str(host))
        except ValueError:
            return False
        return any(address in network for network in self.networks)


class GuardedHttp(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with header and body timeouts and a connection cap."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int | None = None
    max_per_address: int | None = None
    trusted: Container[str] = ()
    """Proxies whose connections are not capped per address (``--forwarded-allow-ips``)."""
    per_address: dict[str, int]
    """Open HTTP connections per peer address (one dict per configured class)."""
    refused: dict[str, int]
    """Connections refused per address that holds some (for the log)."""
    _counted: str | None = None
    _refused: bool = False
    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.max_connections is not None and len(self.connections) > self.max_connections:
            log.warning("connection refused: %d connections open", len(self.connections) - 1)
            transport.abort()
            return
        cap = self.max_per_address
        host = self.client[0] if self.client else None
        if cap is not None and host is not None and host not in self.trusted:
            held = self.per_address.get(host, 0)
            if held >= cap:
                refused = self.refused.get(host, 0)
                if refused % 1000 == 0:  # (a line per thousand, not per refused connection)
                    log.warning("connection refused: %s holds %d connections", host, held)
                self.refused[host] = refused + 1
                self._refuse(transport)
                return
            self.per_address[host] = held + 1
            self._counted = host
        self._arm()

    def _refuse(self, transport: asyncio.Transport) -> None:
        """Answer 429 and end the connection without reading it: the answer, then our half
        closed (a close with its unread request would reset it before the client reads the
        answer), and the socket dropped a moment later if the client does not close it."""
        self._refused = True
        self.connections.discard(self)  # (no longer counts against max_connections)
        transport.pause_reading()
        transport.write(RESPONSE_429)
        if transport.can_write_eof():
            transport.write_eof()
            self.loop.call_later(REFUSED_LINGER, transport.abort)
        else:
            transport.close()

    def data_received(self, data: bytes) -> None:
        if not self._refused:  # (a refused connection's request is never read)
            super().data_received(data)

    def _release(self) -> None:
        """This connection no longer counts against its address."""
        host, self._counted = self._counted, None
        if host is None:
            return
        left = self.per_address.get(host, 1) - 1
        if left > 0:
            self.per_address[host] = left
        else:
            self.per_address.pop(host, None)
            self.refused.pop(host, None)

    def handle_websocket_upgrade(self) -> None:
        self._release()
        super().handle_websocket_upgrade()

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
        self._release()
        super().connection_lost(exc)


def guarded_protocol(
    header_timeout: float,
    max_connections: int | None,
    body_timeout: float = 30.0,
    *,
    max_per_address: int | None = None,
    trusted: str | None = None,
) -> type[GuardedHttp]:
    """A :class:`GuardedHttp` subclass with these settings (uvicorn takes a class).

    ``trusted``: ``--forwarded-allow-ips`` (addresses, networks, or ``*``: then nothing is
    capped per address, every peer being a proxy)."""
    if header_timeout <= 0 or body_timeout <= 0:
        raise ValueError("header_timeout and body_timeout must be positive")
    if max_per_address is not None and max_per_address < 1:
        raise ValueError("max_per_address must be positive (None: no cap)")
    return type(
        "GuardedHttpConfigured",
        (GuardedHttp,),
        {
            "header_timeout": header_timeout,
            "max_connections": max_connections,
            "body_timeout": body_timeout,
            "max_per_address": max_per_address,
            "trusted": TrustedProxies(trusted) if trusted else (),
            "per_address": {},
            "refused": {},
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


__all__ = ["CUT_OFF", "GuardedHttp", "TrustedProxies", "guarded_protocol", "tune_gc_for_serving"]
