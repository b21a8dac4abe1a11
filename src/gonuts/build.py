"""Which build of the engine runs: compiled with mypyc, or the pure-Python sources.

The modules in :data:`COMPILED_MODULES` are compiled by ``setup.py`` when a C compiler is
present; the same ``.py`` files are installed beside the compiled ones. ``GONUTS_PURE=1``
makes every ``gonuts`` module load from its ``.py`` source (a finder placed first on
``sys.meta_path`` before any engine module is imported), so both builds can run side by side
from one installation.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import FileFinder, ModuleSpec, SourceFileLoader
from pathlib import Path
from types import ModuleType
from typing import Final

COMPILED_MODULES: Final[tuple[str, ...]] = (
    "gonuts.native",
    "gonuts.cards",
    "gonuts.rng",
    "gonuts.state",
    "gonuts.scoring",
    "gonuts.powers",
    "gonuts.rules",
    "gonuts.playout",
    "gonuts.bots.determinize",
    "gonuts.bots.heuristics",
    "gonuts.bots.greedy",
    "gonuts.bots.mcts",
    "gonuts.bots.observe",
    "gonuts.bots.puct",
)
"""The modules ``setup.py`` compiles (the engine's hot paths and the bots' search loops), in
dependency order. Not ``bots.neural_mcts``: type-checking it for mypyc needs NumPy installed in
the build environment, which an isolated build (``python -m build``: setuptools and mypy only)
does not have; its tree and loop (``bots.puct``) and its leaves' encoding (``bots.observe``)
are NumPy-free and compiled, the network's forward pass stays NumPy."""

PURE_ENV: Final = "GONUTS_PURE"


def pure_requested() -> bool:
    """True when ``GONUTS_PURE=1``: run the pure-Python sources even where compiled ones exist."""
    return os.environ.get(PURE_ENV) == "1"


class SourceOnlyFinder:
    """A meta-path finder that loads ``gonuts`` submodules from ``.py`` files only."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith("gonuts.") or path is None:
            return None
        loaders = (SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = FileFinder(entry, loaders).find_spec(fullname)
            if spec is not None:
                return spec
        return None


def use_pure_sources() -> None:
    """Make later imports of ``gonuts`` submodules load their sources (idempotent)."""
    if not any(isinstance(f, SourceOnlyFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceOnlyFinder())


def is_compiled() -> bool:
    """True when every module of :data:`COMPILED_MODULES` was loaded compiled."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name in COMPILED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            origin = getattr(module, "__file__", None)
        else:  # where it would load from (the finders decide), without running it (numpy…)
            spec = importlib.util.find_spec(name)
            origin = spec.origin if spec is not None else None
        if not (origin or "").endswith(suffixes):
            return False
    return True


def compiled_available() -> bool:
    """True when compiled files of every :data:`COMPILED_MODULES` lie beside their sources
    (whether or not this process uses them: ``GONUTS_PURE=1`` ignores them)."""
    package = Path(__file__).parent
    for name in COMPILED_MODULES:
        stem = name.removeprefix("gonuts.").replace(".", "/")
        suffixes = importlib.machinery.EXTENSION_SUFFIXES
        if not any((package / f"{stem}{suffix}").is_file() for suffix in suffixes):
            return False
    return True


def build_name() -> str:
    """``"compiled"`` or ``"pure Python"``, as ``gonuts --version`` and ``gonuts bench`` say."""
    return "compiled" if is_compiled() else "pure Python"


if pure_requested():  # imported first by gonuts/__init__.py, before any compiled module
    use_pure_sources()
