"""The ``gonuts`` command: ``play``, ``replay`` and ``bench``.

Each subcommand lives in its own module with ``register(subparsers)``; errors the user can
cause end with a one-line message and a status code, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from gonuts import __version__
from gonuts.cli import arena, bench, hint, loadtest, play, replay, serve

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gonuts",
        description="Go Nuts for Donuts: play, replay records, benchmark the engine.",
    )
    parser.add_argument("--version", action="version", version=f"gonuts {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (play, replay, bench, arena, hint, serve, loadtest):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("\ngonuts: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the last line of defence: no traceback for users
        if os.environ.get("GONUTS_DEBUG"):
            raise
        print(
            f"gonuts: internal error: {type(exc).__name__}: {exc} "
            "(set GONUTS_DEBUG=1 for details; please report it)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
