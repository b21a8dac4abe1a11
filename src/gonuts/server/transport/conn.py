"""A WebSocket's outbox: what one connection is sent, queued and written by a writer of its own.

Socket I/O (the transport): a feature puts a :class:`Conn` in its rooms (play's tables) and
pushes text to it; :func:`to_json` is the one serializer of outgoing messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import pydantic_core

log = logging.getLogger("gonuts.server")


def to_json(message: dict[str, Any]) -> str:
    """Compact JSON text, UTF-8 as is: the same as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))``, three times faster (pydantic's Rust encoder)."""
    return pydantic_core.to_json(message).decode("utf-8")


class Sender(Protocol):
    """A WebSocket as the service sees it (Starlette's, or a test's stand-in)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


CLOSE_SLOW: Final = 1013
"""Try again later (RFC 6455 registry): a socket that does not read what it is sent fast enough
is closed with it; the browser client reconnects and gets the full state."""
SEND_QUEUE_BYTES: Final = 256 * 1024
"""What one socket may have waiting to be sent before it counts as a slow consumer."""


@dataclass(eq=False)
class Conn:
    """One WebSocket connection: a seat (None for a spectator), what it has been sent, and its
    outgoing queue.

    :meth:`push` never waits: the text joins the socket's own queue, drained by a writer of
    its own, so a slow or dead socket never delays the others or the event loop. The writer
    starts at once (:func:`start_eagerly`): a socket that takes the bytes is written to in the
    same step, with no task and no turn of the loop per message; only a socket that makes it
    wait gets a task, which drains everything queued meanwhile in one go. A socket whose queue
    holds more than ``queue_bytes`` is closed with :data:`CLOSE_SLOW` rather than skip a
    message (state messages are deltas: a skipped one would corrupt the client's state).
    """

    sender: Sender
    seat: int | None
    lang: str
    sent_events: int = 0
    queue_bytes: int = SEND_QUEUE_BYTES
    queued: int = 0
    """Bytes waiting in the queue."""
    gone: bool = False
    """Closed (or closing, or too slow): nothing more is queued."""
    last_summary: str | None = None
    """The last table summary queued (or carried by ``welcome``): the same one is not resent."""
    _queue: deque[str] = field(default_factory=deque, repr=False)
    _writer: asyncio.Task[None] | None = field(default=None, repr=False)
    """The writer while it waits for the socket (None or done: no writer running)."""
    _writing: bool = field(default=False, repr=False)
    """The writer is running in this very step (a push from inside a send joins its queue)."""
    _close: tuple[int, str] | None = field(default=None, repr=False)

    async def send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (see :meth:`push`); async for the callers' sake, it never waits."""
        self.push(to_json(message))

    def push(self, text: str) -> None:
        """Queue ``text`` for this socket; close the socket if it cannot keep up."""
        if self.gone:
            return
        if self._queue and self.queued + len(text) > self.queue_bytes:
            self.too_slow()
            return
        self._queue.append(text)
        self.queued += len(text)
        self._kick()

    def too_slow(self) -> None:
        """Drop what is queued and close the socket (1013): it reconnects for a full state."""
        log.warning(
            "closing a socket that does not keep up (%d bytes waiting, seat %s)",
            self.queued,
            self.seat,
        )
        self.gone = True
        self._queue.clear()
        self.queued = 0
        # the writer may be stuck in a send that never ends: the close goes beside it
        task = asyncio.ensure_future(self._close_now(CLOSE_SLOW, "too slow: reconnect"))
        _background.add(task)
        task.add_done_callback(_background.discard)

    def _kick(self) -> None:
        if self._writing or (self._writer is not None and not self._writer.done()):
            return  # a writer is running: it sends this text too
        self._writing = True
        try:
            self._writer = start_eagerly(self._write())
        finally:
            self._writing = False

    async def _write(self) -> None:
        """Send what is queued, in order; then the close, if one was asked for."""
        queue = self._queue
        while queue:
            text = queue.popleft()
            self.queued -= len(text)
            try:
                await self.sender.send_text(text)
            except Exception:  # a closed socket: its handler cleans up
                log.debug("send failed", exc_info=True)
                self.gone = True
                queue.clear()
                self.queued = 0
                return
        if self._close is not None:
            await self._close_now(*self._close)

    async def _close_now(self, code: int, reason: str) -> None:
        try:
            await self.sender.close(code, reason)
        except Exception:  # closed already
            log.debug("close failed", exc_info=True)

    async def flush(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far is sent (at most ``timeout`` s); True if it was."""
        writer = self._writer
        if writer is None or writer.done():
            return True
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(writer)
        except TimeoutError:
            return False
        return True

    async def close(self, code: int, reason: str, timeout: float = 2.0) -> None:
        """Close the socket once what is queued is sent (its handler then disconnects it from
        its table); after ``timeout`` s of a socket that does not read, close it anyway."""
        if self._close is not None:
            await self.flush(timeout)
            return
        self._close = (code, reason)
        self.gone = True
        if self._writer is None or self._writer.done():
            await self._close_now(code, reason)
            return
        if not await self.flush(timeout):
            self._queue.clear()
            self.queued = 0
            await self._close_now(code, reason)


_background: set[asyncio.Task[None]] = set()
"""Closes of slow sockets under way (a reference, so that they are not collected)."""


def start_eagerly(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coro`` now up to its first real wait: None if it finished without one (a
    WebSocket send usually does: the transport takes the bytes at once), else a task that
    carries on from there.

    What Python 3.12's ``asyncio.eager_task_factory`` does for every task, for one coroutine
    on 3.11: a message is written in the step that queued it, as the socket handlers of 0.2.0
    did by awaiting the send, instead of a task created and scheduled per message."""
    try:
        waiting = coro.send(None)
    except StopIteration:
        return None
    return asyncio.ensure_future(_carry_on(coro, waiting))


async def _carry_on(coro: Coroutine[Any, Any, None], waiting: object) -> None:
    """Drive ``coro``, started by hand and now waiting for ``waiting``, as a task would: wait
    until the future it yielded is done, then resume it (it reads the outcome itself)."""
    try:
        while True:
            if waiting is None:  # a bare yield (``asyncio.sleep(0)``): one turn of the loop
                await asyncio.sleep(0)
            elif asyncio.isfuture(waiting):
                waiting._asyncio_future_blocking = False
                await asyncio.wait([waiting])
            else:
                raise RuntimeError(f"a coroutine yielded {waiting!r}, not a future")
            try:
                waiting = coro.send(None)
            except StopIteration:
                return
    except BaseException:  # cancelled (a shutdown), or a bad yield: the coroutine ends too
        coro.close()
        raise
