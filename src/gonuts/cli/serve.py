"""``gonuts serve``: the web app (lobby, live tables, replays) with uvicorn.

Every option can also come from the environment (``GONUTS_PORT=8080``, …: :data:`SETTINGS`,
the table in docs/deploy.md); a flag on the command line wins over the environment.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

EXIT_USAGE: Final = 2
LOG_LEVELS: Final = ("debug", "info", "warning", "error")
TRUE: Final = frozenset({"1", "true", "yes", "on"})
FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def default_db_url() -> str:
    """A SQLite file under the XDG data directory (``~/.local/share/gonuts/gonuts.sqlite3``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'gonuts' / 'gonuts.sqlite3'}"


class SettingError(ValueError):
    """An option's value (from a flag or the environment) that cannot be used."""


def _port(text: str) -> int:
    if not text.strip().isdigit() or not 0 <= int(text) <= 65535:
        raise SettingError("is not a port number (0-65535)")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SettingError("is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise SettingError("is not a number of seconds ≥ 0")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value <= 0:
        raise SettingError("is not a number of seconds > 0")
    return value


def _count(text: str) -> int | None:
    if not text.strip().isdigit():
        raise SettingError("is not a whole number ≥ 0 (0: no limit)")
    return int(text) or None


def _workers(text: str) -> int:
    if not text.strip().isdigit():
        raise SettingError("is not a whole number ≥ 0 (0: threads of the server process)")
    return int(text)


def _think(text: str) -> str | None:
    """``processes`` → None; ``ray`` → "" (a local Ray); ``ray:ADDRESS`` → the address."""
    kind, colon, address = text.strip().partition(":")
    if kind == "processes" and not colon:
        return None
    if kind == "ray":
        return address.strip()
    raise SettingError("is not processes, ray or ray:ADDRESS")


def _default_workers() -> int:
    """One thinking process per core but one (the event loop's), at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


def _level(text: str) -> str:
    if text.lower() not in LOG_LEVELS:
        raise SettingError(f"is not one of {', '.join(LOG_LEVELS)}")
    return text.lower()


def _flag(text: str) -> bool:
    if text.lower() in TRUE:
        return True
    if text.lower() in FALSE:
        return False
    raise SettingError("is not a yes/no value (1, true, yes, on / 0, false, no, off)")


REVIEW_KINDS: Final = (
    "neural",
    "neural-greedy",
    "neural-mixed",
    "neural2",
    "rollout",
    "search",
    "mcts",
    "neural-mcts",
)
"""The analysers ``gonuts review --bot`` knows (:data:`gonuts.review.engine.ANALYSER_KINDS`,
which needs NumPy; a test checks the two agree)."""
REVIEW_BOT: Final = re.compile(rf"({'|'.join(REVIEW_KINDS)})(:[1-9][0-9]{{0,5}})?")


def _review_bot(text: str) -> str:
    """A review analyser as ``gonuts review --bot`` takes it (checked here without NumPy)."""
    if not REVIEW_BOT.fullmatch(text.strip()):
        raise SettingError(
            f"is not an analyser: {', '.join(k + ':N' for k in REVIEW_KINDS)} (N ≤ 999999)"
        )
    return text.strip()


def _text(text: str) -> str:
    if not text.strip():
        raise SettingError("is empty")
    return text.strip()


@dataclass(frozen=True)
class Setting:
    dest: str
    env: str
    parse: Callable[[str], Any]
    default: Callable[[], Any]


SETTINGS: Final = (
    Setting("host", "GONUTS_HOST", _text, lambda: "127.0.0.1"),
    Setting("port", "GONUTS_PORT", _port, lambda: 8000),
    Setting("db", "GONUTS_DB_URL", _text, default_db_url),
    Setting("log_level", "GONUTS_LOG_LEVEL", _level, lambda: "info"),
    Setting("access_log", "GONUTS_ACCESS_LOG", _flag, lambda: False),
    Setting("log_json", "GONUTS_LOG_JSON", _flag, lambda: False),
    Setting("bot_delay", "GONUTS_BOT_DELAY", _seconds, lambda: 0.5),
    Setting("replace_after", "GONUTS_REPLACE_AFTER", _seconds, lambda: 120.0),
    Setting("shutdown_grace", "GONUTS_SHUTDOWN_GRACE", _seconds, lambda: 10.0),
    Setting(
        "forwarded_allow_ips",
        "GONUTS_FORWARDED_ALLOW_IPS",
        _text,
        lambda: None,
    ),
    Setting("header_timeout", "GONUTS_HEADER_TIMEOUT", _positive_seconds, lambda: 10.0),
    Setting("body_timeout", "GONUTS_BODY_TIMEOUT", _positive_seconds, lambda: 30.0),
    Setting("keep_alive", "GONUTS_KEEP_ALIVE", _positive_seconds, lambda: 5.0),
    Setting("max_connections", "GONUTS_MAX_CONNECTIONS", _count, lambda: 2000),
    Setting(
        "max_connections_per_address",
        "GONUTS_MAX_CONNECTIONS_PER_ADDRESS",
        _count,
        lambda: 100,
    ),
    Setting("think_workers", "GONUTS_THINK_WORKERS", _workers, _default_workers),
    Setting("think", "GONUTS_THINK", _think, lambda: None),
    Setting("review_bot", "GONUTS_REVIEW_BOT", _review_bot, lambda: None),
)
"""Every option of ``gonuts serve`` with its environment variable, in ``--help`` order."""


def resolve(args: argparse.Namespace, environ: Mapping[str, str]) -> dict[str, Any]:
    """Each setting from its flag if given, else from the environment, else its default.

    Raises :class:`SettingError` naming the flag or variable whose value is unusable.
    """
    values: dict[str, Any] = {}
    for s in SETTINGS:
        flag = getattr(args, s.dest, None)
        raw, where = (flag, f"--{s.dest.replace('_', '-')}") if flag is not None else (None, "")
        if raw is None and s.env in environ:
            raw, where = environ[s.env], s.env
        if raw is None:
            values[s.dest] = s.default()
        elif isinstance(raw, bool):
            values[s.dest] = raw
        else:
            try:
                values[s.dest] = s.parse(str(raw))
            except SettingError as exc:
                raise SettingError(f"{where}={raw!r} {exc}") from None
    return values


def register(sub: Any) -> None:
    env_lines = "\n".join(f"  {s.env:<28} --{s.dest.replace('_', '-')}" for s in SETTINGS)
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="play in the browser: run the web server",
        description="Run the gonuts web app: lobby, live tables with bots, replays, in English, "
        "Spanish and Italian. Open the printed address in a browser. Health: /healthz, "
        "/readyz; Prometheus metrics: /metrics (docs/deploy.md).",
        epilog="Every option can come from the environment instead (a flag wins):\n" + env_lines,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", default=None, help="port (default 8000)")
    p.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="database URL: sqlite:///path.sqlite3 or postgresql://… "
        "(default: a SQLite file under $XDG_DATA_HOME/gonuts)",
    )
    p.add_argument(
        "--log-level", default=None, metavar="LEVEL", help="debug, info, warning or error "
        "(default info)"
    )  # fmt: skip
    p.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="one log line per HTTP request and WebSocket (default off)",
    )
    p.add_argument(
        "--log-json",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write logs as JSON lines, one object per line (default off: plain text)",
    )
    p.add_argument(
        "--bot-delay",
        default=None,
        metavar="S",
        help="seconds a bot waits before acting, so moves can be followed (default 0.5)",
    )
    p.add_argument(
        "--replace-after",
        default=None,
        metavar="S",
        help="seconds before a player who left is replaced by a bot (default 120)",
    )
    p.add_argument(
        "--shutdown-grace",
        default=None,
        metavar="S",
        help="at SIGTERM, seconds to let requests and moves in progress finish (default 10)",
    )
    p.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="comma-separated addresses of the reverse proxies whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed, or * (default: none, the headers are ignored and a "
        "client is its TCP peer address)",
    )
    p.add_argument(
        "--header-timeout",
        default=None,
        metavar="S",
        help="close a connection whose request headers are not complete after S seconds "
        "(default 10)",
    )
    p.add_argument(
        "--body-timeout",
        default=None,
        metavar="S",
        help="answer 408 and close a connection whose request body is not complete S seconds "
        "after its headers (default 30)",
    )
    p.add_argument(
        "--keep-alive",
        default=None,
        metavar="S",
        help="close an idle keep-alive connection after S seconds (default 5)",
    )
    p.add_argument(
        "--max-connections",
        default=None,
        metavar="N",
        help="connections (HTTP and WebSocket) open at once; more are refused "
        "(default 2000; 0: no limit)",
    )
    p.add_argument(
        "--max-connections-per-address",
        default=None,
        metavar="N",
        help="HTTP connections one client address may hold open at once; more are answered "
        "429 and closed (default 100; the --forwarded-allow-ips proxies are not capped; "
        "0: no limit)",
    )
    p.add_argument(
        "--think-workers",
        default=None,
        metavar="N",
        help="worker processes for bot moves and hints (default: one per core but one; "
        "0: two threads of the server process, for tiny installs)",
    )
    p.add_argument(
        "--think",
        default=None,
        metavar="WHERE",
        help="processes (default: --think-workers processes on this machine), or ray / "
        "ray:ADDRESS: tasks of a local or running Ray cluster (the ray extra; every node needs "
        "gonuts), --think-workers of them at once (0: one per CPU of the cluster)",
    )
    p.add_argument(
        "--review-bot",
        default=None,
        metavar="ANALYSER",
        help="the analyser of finished games' reviews in the browser (default neural-mixed:128; "
        "gonuts review's --bot names)",
    )
    p.set_defaults(handler=run)


class JsonLines(logging.Formatter):
    """One JSON object per record: time, level, logger, message, and the access fields."""

    FIELDS: Final = ("method", "path", "status", "ms", "client")

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in self.FIELDS:
            if hasattr(record, name):
                out[name] = getattr(record, name)
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure_logging(level: str, *, json_lines: bool, access: bool) -> None:
    """Everything (gonuts, uvicorn) to stderr at ``level``; the access log on or off."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonLines()
        if json_lines
        else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).setLevel(level.upper())
    # our access log (gonuts.server.app.AccessLog) replaces uvicorn's
    logging.getLogger("gonuts.access").setLevel(logging.INFO if access else logging.WARNING)


def run(args: argparse.Namespace) -> int:
    try:
        settings = resolve(args, os.environ)
    except SettingError as exc:
        print(f"gonuts serve: {exc}", file=sys.stderr)
        return EXIT_USAGE

    import uvicorn  # noqa: PLC0415  (only this command needs the web stack)
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    from gonuts.server import create_app  # noqa: PLC0415
    from gonuts.server.app import tune_gc_for_serving  # noqa: PLC0415
    from gonuts.server.transport.http import guarded_protocol  # noqa: PLC0415

    url: str = settings["db"]
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).expanduser().parent.mkdir(parents=True, exist_ok=True)
    configure_logging(
        settings["log_level"], json_lines=settings["log_json"], access=settings["access_log"]
    )
    app = create_app(
        url,
        bot_delay=settings["bot_delay"],
        replace_after=settings["replace_after"],
        shutdown_grace=settings["shutdown_grace"],
        think_workers=settings["think_workers"],
        think_ray=settings["think"],
        review_bot=settings["review_bot"],
    )
    host, port = settings["host"], settings["port"]
    shown_host = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    shown = make_url(url).render_as_string(hide_password=True)
    print(f"gonuts: serving on http://{shown_host}:{port}/  (database {shown}; Ctrl-C stops)")
    sys.stdout.flush()
    tune_gc_for_serving()
    # Frames are small JSON messages; the app refuses anything over its limit anyway.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_config=None,
        log_level=settings["log_level"],
        access_log=False,
        ws_max_size=64 * 1024,
        # the per-address limits count the TCP peer unless a proxy is named: a forwarded
        # header from anyone else would let one client pose as many
        proxy_headers=settings["forwarded_allow_ips"] is not None,
        forwarded_allow_ips=settings["forwarded_allow_ips"] or "",
        timeout_graceful_shutdown=math.ceil(settings["shutdown_grace"]),
        # slow clients: uvicorn has no header timeout of its own (gonuts.server.transport.http)
        http=guarded_protocol(
            settings["header_timeout"],
            settings["max_connections"],
            settings["body_timeout"],
            max_per_address=settings["max_connections_per_address"],
            trusted=settings["forwarded_allow_ips"],
        ),
        timeout_keep_alive=math.ceil(settings["keep_alive"]),
        limit_concurrency=settings["max_connections"],
    )
    return 0
