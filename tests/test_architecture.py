"""The pure core imports nothing from the rings (CLI, rendering, bots, envs) nor I/O libraries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gonuts"
CORE = [
    "actions", "cards", "errors", "events", "game", "playout", "powers", "record", "rng",
    "rules", "scoring", "state", "variants", "view",
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


# -- the whole package: no import cycle ------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path, package: str, modules: set[str]) -> set[str]:
    """The modules ``path`` imports when it is imported (not inside functions, not under
    ``TYPE_CHECKING``); ``from gonuts.x import y`` means ``gonuts.x.y`` when that is one of
    ``modules``, else ``gonuts.x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    names.add(sub if sub in modules else base)
            elif isinstance(node, ast.If):
                test = node.test
                if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
                    continue
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return names


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in SRC.rglob("*.py") if "migrations" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {
            m
            for m in top_level_imports(path, package, set(files))
            # a package's __init__ runs before any of its modules: an edge to it is no cycle
            if m in files and m != name and not name.startswith(m + ".")
        }
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among ``graph``'s modules (as a path that returns to its start)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_in_the_package() -> None:
    graph = import_graph()
    assert "gonuts.server.play.service" in graph and "gonuts.server.kernel.relay" in graph
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_relay_and_the_store_do_not_know_the_service() -> None:
    graph = import_graph()

    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    for module in (
        "gonuts.server.kernel.relay",
        "gonuts.server.play.store",
        "gonuts.server.play.messages",
        "gonuts.server.play.live",
    ):
        assert "gonuts.server.play.service" not in reachable(module), module
        assert "gonuts.server.app" not in reachable(module), module
        # not even for type checking, nor inside a function: the relay calls back through the
        # Hub protocol, never into the service's privates
        path = SRC.joinpath(*module.split(".")[1:]).with_suffix(".py")
        for name in imported_modules(path):
            assert not name.startswith(("gonuts.server.play.service", "gonuts.server.app")), module
