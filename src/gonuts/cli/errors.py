"""What every ``gonuts`` command shares: one error style, checked numbers, help with defaults,
missing optional extras, and terminals that cannot print Unicode.

Every message a user can cause is one line, ``gonuts CMD: message``, on stderr, with status 2
for a usage error; argparse's own errors take the same form through :class:`GonutsParser`.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import math
import sys
import unicodedata
from collections.abc import Callable
from typing import Final, NoReturn

EXIT_USAGE: Final = 2

EXTRA_BY_MODULE: Final = {
    # web: gonuts serve, gonuts loadtest
    "fastapi": "web",
    "uvicorn": "web",
    "starlette": "web",
    "sqlalchemy": "web",
    "alembic": "web",
    "psycopg": "web",
    "prometheus_client": "web",
    "httpx": "web",
    "websockets": "web",
    # research: analysis and learning environments
    "numpy": "research",
    "gymnasium": "research",
    "pettingzoo": "research",
    "pyspiel": "research",
    "open_spiel": "research",
    "matplotlib": "research",
    # batch: gonuts bench --batch
    "jax": "batch",
    "jaxlib": "batch",
    # ray: gonuts arena --ray
    "ray": "ray",
}
"""The optional extra that provides each third-party module a command may import lazily."""


def fail(command: str, message: str, code: int = EXIT_USAGE) -> int:
    """Print ``gonuts COMMAND: message`` on stderr and return ``code`` (for ``return fail(…)``)."""
    print(f"gonuts {command}: {message}", file=sys.stderr)
    return code


def extra_for(exc: ImportError) -> str | None:
    """The optional extra that provides the module ``exc`` could not import, if any."""
    return EXTRA_BY_MODULE.get((exc.name or "").partition(".")[0])


def needs_extra(extra: str) -> str:
    return f"needs the '{extra}' extra: pip install 'gonuts[{extra}]'"


def missing_extra(command: str, exc: ImportError) -> int | None:
    """The one-line answer for a command whose optional dependency is not installed, or
    ``None`` when the missing module belongs to no extra (a real bug: let it surface)."""
    extra = extra_for(exc)
    if extra is None:
        return None
    return fail(command, needs_extra(extra))


# -- argparse ---------------------------------------------------------------------------------


class HelpFormatter(argparse.HelpFormatter):
    """Shows ``(default: X)`` after an option's help unless the help already names its
    default; wraps a description's paragraphs but keeps lines that hold key lists and
    examples (a paragraph with a line break) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.split("\n\n"):
            if "\n" in paragraph:
                paragraphs.append("\n".join(indent + line for line in paragraph.splitlines()))
            else:
                paragraphs.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(paragraphs)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            "default" in text.lower()
            or default is None
            or default is False
            or default is argparse.SUPPRESS
            or action.option_strings == []
            or isinstance(action, argparse._HelpAction | argparse._VersionAction)
        ):
            return text
        return f"{text} (default: %(default)s)"


class GonutsParser(argparse.ArgumentParser):
    """An argument parser whose errors read ``gonuts CMD: message`` (status 2)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        hint = f" (see {self.prog} --help)"
        self.exit(EXIT_USAGE, f"{self.prog}: {message}{hint}\n")


def _number(
    kind: Callable[[str], float], test: Callable[[float], bool], words: str
) -> Callable[[str], float]:
    def convert(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {words}") from None
        if math.isnan(value) or not test(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {words}")
        return value

    convert.__name__ = words  # argparse names the type in some messages
    return convert


def nonnegative_int(text: str) -> int:
    """An ``int`` ≥ 0, for argparse ``type=``."""
    return int(_number(int, lambda v: v >= 0, "a whole number ≥ 0")(text))


def positive_int(text: str) -> int:
    """An ``int`` ≥ 1, for argparse ``type=``."""
    return int(_number(int, lambda v: v >= 1, "a whole number ≥ 1")(text))


def nonnegative_float(text: str) -> float:
    """A finite ``float`` ≥ 0 (seconds, delays), for argparse ``type=``."""
    return _number(float, lambda v: 0 <= v < float("inf"), "a number ≥ 0")(text)


def positive_float(text: str) -> float:
    """A finite ``float`` > 0, for argparse ``type=``."""
    return _number(float, lambda v: 0 < v < float("inf"), "a number > 0")(text)


# -- terminals that cannot print Unicode --------------------------------------------------------

GLYPHS: Final = {
    "★": "*",
    "•": "o",
    "◀": "<",
    "▶": ">",
    "🏆": "#1",
    "—": "-",
    "–": "-",
    "−": "-",
    "→": ">",
    "×": "x",
    "·": "|",
    "…": ".",
    "›": ">",
    "✓": "v",
    "±": "~",
    "≥": ">",
    "≤": "<",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
}
"""Plain spellings, each as wide on screen as the character it stands for: rich measured the
original when it laid out a table, so a wider spelling would push the columns apart."""
ERROR_HANDLER: Final = "gonuts-plain"


def _cells(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _plain(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: a plain spelling for what the terminal cannot encode (★ → *,
    É → E, 🏆 → #1), ``?`` for the rest, always as many cells wide as the original, so that no
    name or card ever crashes the output and tables stay aligned."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for char in exc.object[exc.start : exc.end]:
        width = _cells(char)
        if char in GLYPHS:
            base = GLYPHS[char]
        else:
            decomposed = unicodedata.normalize("NFKD", char)
            base = "".join(c for c in decomposed if not unicodedata.combining(c))
            try:
                base.encode(exc.encoding)
            except UnicodeEncodeError:
                base = "?"
        out.append((base or "?").ljust(width)[:width])
    return "".join(out), exc.end


codecs.register_error(ERROR_HANDLER, _plain)


def plain_terminal_fallbacks() -> None:
    """Let stdout and stderr print anything: characters their encoding lacks get plain
    spellings (``PYTHONIOENCODING=ascii``, latin-1 terminals) instead of a traceback."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding.startswith("utf"):
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream that cannot change
                reconfigure(errors=ERROR_HANDLER)
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    encoding = (getattr(sys.stdin, "encoding", None) or "").lower()
    if reconfigure is not None and not encoding.startswith("utf"):
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="replace")


def can_encode(text: str, encoding: str | None) -> bool:
    """Whether ``text`` survives ``encoding`` (to pick fancy or plain symbols)."""
    try:
        text.encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
