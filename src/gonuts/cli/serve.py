"""``gonuts serve``: the web app (lobby, live tables, replays) with uvicorn."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

EXIT_USAGE = 2


def default_db_url() -> str:
    """A SQLite file under the XDG data directory (``~/.local/share/gonuts/gonuts.sqlite3``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'gonuts' / 'gonuts.sqlite3'}"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="play in the browser: run the web server",
        description="Run the gonuts web app: lobby, live tables with bots, replays, in English, "
        "Spanish and Italian. Open the printed address in a browser.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="database URL: sqlite:///path.sqlite3 or postgresql://… "
        "(default: a SQLite file under $XDG_DATA_HOME/gonuts)",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.5,
        metavar="S",
        help="seconds a bot waits before acting, so moves can be followed (default 0.5)",
    )
    p.add_argument(
        "--replace-after",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds before a player who left is replaced by a bot (default 120)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn  # noqa: PLC0415  (only this command needs the web stack)
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    from gonuts.server import create_app  # noqa: PLC0415
    from gonuts.server.app import tune_gc_for_serving  # noqa: PLC0415

    if not 0 <= args.port <= 65535:
        print(f"gonuts serve: bad port {args.port}", file=sys.stderr)
        return EXIT_USAGE
    url = args.db or default_db_url()
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).expanduser().parent.mkdir(parents=True, exist_ok=True)
    app = create_app(url, bot_delay=args.bot_delay, replace_after=args.replace_after)
    host = "localhost" if args.host in ("127.0.0.1", "0.0.0.0", "::") else args.host
    shown = make_url(url).render_as_string(hide_password=True)
    print(f"gonuts: serving on http://{host}:{args.port}/  (database {shown}; Ctrl-C stops)")
    sys.stdout.flush()
    tune_gc_for_serving()
    # Frames are small JSON messages; the app refuses anything over its limit anyway.
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", ws_max_size=64 * 1024)
    return 0
