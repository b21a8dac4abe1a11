"""The pure core imports nothing from the rings (CLI, rendering, bots, envs) nor I/O libraries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gonuts"
CORE = [
    "actions", "cards", "errors", "events", "game", "playout", "powers", "record", "rng",
    "rules", "scoring", "state", "view",
]  # fmt: skip
FORBIDDEN_PREFIXES = (
    "gonuts.cli", "gonuts.bots", "gonuts.envs", "gonuts.render", "rich", "os", "pathlib",
    "socket", "sys", "subprocess", "asyncio", "io",
)  # fmt: skip


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_no_ring_or_io(module: str) -> None:
    for name in imported_modules(SRC / f"{module}.py"):
        for prefix in FORBIDDEN_PREFIXES:
            assert not (name == prefix or name.startswith(prefix + ".")), (
                f"gonuts.{module} imports {name}"
            )


@pytest.mark.parametrize("module", CORE)
def test_core_module_opens_no_files(module: str) -> None:
    tree = ast.parse((SRC / f"{module}.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert not any(isinstance(c.func, ast.Name) and c.func.id in ("open", "print") for c in calls)
