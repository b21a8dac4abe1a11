"""Server processes on loopback ports: the load test's own server, or ``gonuts serve`` (tests).

A :class:`ServerProcess` is a child process listening on ``127.0.0.1:PORT``, its output in a
log file; :meth:`~ServerProcess.start` returns once the app answers ``GET /api/config``.
The load test's server (:func:`serve_main`, run as ``python -m gonuts.loadtest PORT DB``) is
the web app without per-address limits, tuned for many connections from one address.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import httpx

WS_MAX_SIZE: Final = 1 << 16
START_TIMEOUT: Final = 30.0


class ServerError(RuntimeError):
    """The server process exited or did not answer in time (the message quotes its log)."""


class Loopback:
    """Something listening on ``127.0.0.1:port``: its HTTP and WebSocket base URLs."""

    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


class ServerProcess(Loopback):
    """A server as a child process on a loopback port (its output appended to ``log``)."""

    def __init__(
        self,
        command: Sequence[str],
        port: int,
        log: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = list(command)
        self.port = port
        self.log = log
        self.env = dict(env) if env is not None else None
        self.proc: subprocess.Popen[bytes] | None = None

    @classmethod
    def gonuts_serve(cls, db_url: str, port: int, log: Path, *extra: str) -> ServerProcess:
        """``gonuts serve`` itself (with ``GONUTS_DEBUG=1``: a crash shows its traceback)."""
        command = [sys.executable, "-m", "gonuts", "serve", "--port", str(port), "--db", db_url]
        return cls([*command, *extra], port, log, {**os.environ, "GONUTS_DEBUG": "1"})

    @classmethod
    def load_target(cls, db_url: str, port: int, log: Path) -> ServerProcess:
        """The load test's server (:func:`serve_main`)."""
        return cls([sys.executable, "-m", "gonuts.loadtest", str(port), db_url], port, log)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the process and wait until the app answers (:class:`ServerError` if not)."""
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command, stdout=out, stderr=subprocess.STDOUT, env=self.env
            )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise ServerError(f"the server exited: {self.log_tail()}")
            try:
                if httpx.get(f"{self.http}/api/config", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise ServerError(f"the server did not answer within {timeout:g} s: {self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing, like a power cut of the process."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


@contextlib.contextmanager
def local_server(db_url: str | None, *, pin_cpu: int | None = None) -> Iterator[ServerProcess]:
    """The load test's server on a free loopback port (on a fresh SQLite file when ``db_url``
    is None), stopped on exit; pinned to CPU ``pin_cpu`` where the machine allows."""
    with tempfile.TemporaryDirectory(prefix="gonuts-loadtest-") as tmp:
        url = db_url or f"sqlite:///{Path(tmp) / 'loadtest.sqlite3'}"
        server = ServerProcess.load_target(url, free_port(), Path(tmp) / "server.log")
        try:
            server.start()
            if pin_cpu is not None and server.pid is not None:
                pin(server.pid, pin_cpu)
            yield server
        finally:
            server.stop()


def serve_main(argv: Sequence[str] | None = None) -> None:
    """The load test's server: ``python -m gonuts.loadtest PORT DB_URL``; bots and hints
    think in ``$GONUTS_THINK_WORKERS`` processes (default: one per core but one)."""
    import uvicorn  # noqa: PLC0415 - the web extra, only in the server process

    from gonuts.server import create_app  # noqa: PLC0415
    from gonuts.server.app import tune_gc_for_serving  # noqa: PLC0415
    from gonuts.server.kernel.limits import Limits  # noqa: PLC0415
    from gonuts.server.kernel.thinking import workers_from_env  # noqa: PLC0415

    args = list(argv) if argv is not None else sys.argv[1:]
    port, db_url = int(args[0]), args[1]
    raise_fd_limit()
    app = create_app(
        db_url, bot_delay=0.0, limits=Limits.unlimited(), think_workers=workers_from_env()
    )
    tune_gc_for_serving()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=None,
        backlog=4096,
    )


# -- the machine --------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def raise_fd_limit() -> None:
    """Raise the open-files limit to its hard maximum (a connection is a file)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def pin(pid: int, cpu: int) -> bool:
    """Run process ``pid`` on CPU ``cpu`` only; False where that is not possible (one core,
    no ``sched_setaffinity``)."""
    setaffinity = getattr(os, "sched_setaffinity", None)
    if setaffinity is None or (os.cpu_count() or 1) < 2:
        return False
    try:
        setaffinity(pid, {cpu})
    except OSError:
        return False
    return True


def process_cpu(pid: int | None) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    return (int(fields[11]) + int(fields[12])) / ticks


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine (the load test drives nothing else)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
