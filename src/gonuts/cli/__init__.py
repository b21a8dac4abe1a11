"""The ``gonuts`` command: play, replay, hint, arena, bench, serve, loadtest, completion.

Each subcommand lives in its own module (listed in :data:`COMMANDS`) with
``register(subparsers)``; a module imports its heavy or optional dependencies only inside its
handler, so the core install (rich, shtab) runs every command it can, and a command whose
optional extra is missing says which one in one line. Errors the user can cause end with one
line ``gonuts CMD: message`` on stderr and a status code, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final

from gonuts import __version__
from gonuts.build import build_name
from gonuts.cli.errors import (
    GonutsParser,
    extra_for,
    fail,
    missing_extra,
    needs_extra,
    plain_terminal_fallbacks,
)

Handler = Callable[[argparse.Namespace], int]

COMMANDS: Final = (
    "play",
    "replay",
    "hint",
    "review",
    "arena",
    "analyze",
    "bench",
    "train",
    "serve",
    "loadtest",
    "completion",
)
"""The subcommands' modules under ``gonuts.cli``, in the order ``gonuts --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = GonutsParser(
        prog="gonuts",
        description="Go Nuts for Donuts: play in the terminal or the browser, replay and "
        "analyse records, pit bots against each other, benchmark the engine.",
        epilog="Run 'gonuts COMMAND --help' for a command's options. Shell completion: "
        "'gonuts completion bash|zsh|fish' (see docs/cli.md).",
    )
    parser.add_argument(
        "--version", action="version", version=f"gonuts {__version__} ({build_name()})"
    )
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=GonutsParser
    )
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"gonuts.cli.{name}")
        except ImportError as exc:  # a command module that imports an extra at the top
            extra = extra_for(exc)
            if extra is None:
                raise
            _register_unavailable(sub, name, extra)
            continue
        module.register(sub)
    return parser


def _register_unavailable(sub: Any, name: str, extra: str) -> None:
    """A command whose module needs a missing extra: listed, and it says which extra."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=f"({needs_extra(extra)})", description=f"gonuts {name} {needs_extra(extra)}."
    )
    p.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(handler=lambda args: fail(name, needs_extra(extra)), any_arguments=True)


def main(argv: Sequence[str] | None = None) -> int:
    plain_terminal_fallbacks()
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra and not getattr(args, "any_arguments", False):  # named by its command
            _command_parser(parser, args.command).error(
                f"unrecognized arguments: {' '.join(extra)}"
            )
    except SystemExit as exc:  # --help, --version, or a usage error already reported
        return exc.code if isinstance(exc.code, int) else 2
    handler: Handler = args.handler
    command = args.command
    try:
        return handler(args)
    except KeyboardInterrupt:
        print(f"\ngonuts {command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except Exception as exc:  # the last line of defence: no traceback for users
        if os.environ.get("GONUTS_DEBUG"):
            raise
        if isinstance(exc, ImportError) and (code := missing_extra(command, exc)) is not None:
            return code
        print(
            f"gonuts {command}: internal error: {type(exc).__name__}: {exc} "
            "(set GONUTS_DEBUG=1 for details; please report it)",
            file=sys.stderr,
        )
        return 1


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def _quiet_broken_pipe() -> None:
    """``gonuts … | head``: the reader left; send what is left of stdout nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
