"""The pure core imports nothing from the rings (CLI, rendering, bots, envs) nor I/O libraries."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gonuts"
CORE = [
    "actions", "cards", "choices", "errors", "events", "game", "native", "playout", "position",
    "powers", "record", "rng", "rules", "scoring", "state", "variants", "view",
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


# -- the whole package: no import cycle, at any depth ----------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(
    path: Path, package: str, modules: set[str], *, type_checking: bool = False
) -> set[str]:
    """Every module ``path`` imports, wherever the import is (module level, inside functions
    and methods, under ``try``); under ``if TYPE_CHECKING`` only with ``type_checking`` (those
    never run). ``from gonuts.x import y`` means ``gonuts.x.y`` when that is one of
    ``modules``, else ``gonuts.x``; relative imports are resolved against ``package``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node.test) and not type_checking:
            for statement in node.orelse:
                visit(statement)
            return
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
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
        ):
            # importlib.import_module("gonuts.x"): a literal name is an import too
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def package_files() -> dict[str, Path]:
    return {module_name(p): p for p in SRC.rglob("*.py") if "migrations" not in p.parts}


def import_graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    files = package_files()
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {
            m
            for m in imports_of(path, package, set(files), type_checking=type_checking)
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


def test_imports_inside_functions_are_read(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import gonuts.hidden\n"
        "def f():\n    from gonuts.bots import base\n"
        "    class C:\n        def g(self):\n            import gonuts.deep\n",
        encoding="utf-8",
    )
    found = imports_of(module, "gonuts", {"gonuts.bots.base"})
    assert found == {"typing", "gonuts.bots.base", "gonuts.deep"}
    assert "gonuts.hidden" in imports_of(module, "gonuts", set(), type_checking=True)


def test_no_import_cycle_in_the_package_at_any_depth() -> None:
    graph = import_graph()
    assert "gonuts.server.play.service" in graph and "gonuts.server.kernel.relay" in graph
    assert "gonuts.bots.neural_mcts" in graph["gonuts.bots.base"]  # (read inside make_bot)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


# -- the server: kernel <- transport <- features <- wiring -----------------------------------------

SERVER = "gonuts.server"
FEATURES = ("play", "lobby", "games", "accounts", "review", "chat", "matching", "notify", "mygames")
"""One sub-package each, with the same inner shape (service, store, messages, api)."""
PUBLIC = ("service", "protocol")
"""The modules of a feature that other features may import (and its package)."""
WIRING = frozenset(
    {SERVER, f"{SERVER}.app", f"{SERVER}.service", f"{SERVER}.store", f"{SERVER}.settings"}
)
"""Where the features meet: nothing else imports these."""


def layer(module: str) -> str:
    """``kernel``, ``transport``, a feature's name, or ``wiring``."""
    if module in WIRING:
        return "wiring"
    part = module.removeprefix(SERVER + ".").split(".")[0]
    assert part in ("kernel", "transport", *FEATURES), f"{module}: in no layer"
    return part


def server_imports() -> dict[str, set[str]]:
    """Each server module's imports of other server modules, TYPE_CHECKING ones included."""
    graph = import_graph(type_checking=True)
    return {
        name: {m for m in edges if m == SERVER or m.startswith(SERVER + ".")}
        for name, edges in graph.items()
        if name == SERVER or name.startswith(SERVER + ".")
    }


def allowed(importer: str, imported: str) -> bool:
    """kernel <- transport <- features <- wiring; a feature sees another's public modules only."""
    src, dst = layer(importer), layer(imported)
    if dst == "kernel":
        return True
    if dst == "transport":
        return src != "kernel"
    if dst == "wiring":
        return src == "wiring"
    # dst is a feature
    if src in ("kernel", "transport"):
        return False
    if src in (dst, "wiring"):
        return True
    rest = imported.removeprefix(f"{SERVER}.{dst}")
    return rest in ("", *(f".{p}" for p in PUBLIC))


def test_every_server_module_is_in_a_layer() -> None:
    modules = server_imports()
    assert {layer(m) for m in modules} == {"kernel", "transport", "wiring", *FEATURES}


def test_the_layer_rule_refuses_what_it_should() -> None:
    assert allowed(f"{SERVER}.play.service", f"{SERVER}.kernel.relay")
    assert allowed(f"{SERVER}.lobby.api", f"{SERVER}.play.protocol")
    assert allowed(f"{SERVER}.app", f"{SERVER}.play.session")
    assert not allowed(f"{SERVER}.kernel.relay", f"{SERVER}.play.live")
    assert not allowed(f"{SERVER}.kernel.relay", f"{SERVER}.transport.conn")
    assert not allowed(f"{SERVER}.transport.socket", f"{SERVER}.play.service")
    assert not allowed(f"{SERVER}.lobby.api", f"{SERVER}.play.store")
    assert not allowed(f"{SERVER}.play.service", f"{SERVER}.service")


@pytest.mark.parametrize("where", ["kernel", "transport", *FEATURES, "wiring"])
def test_server_imports_go_kernel_transport_features_wiring(where: str) -> None:
    wrong = [
        f"{importer} imports {imported}"
        for importer, edges in server_imports().items()
        if layer(importer) == where
        for imported in sorted(edges)
        if not allowed(importer, imported)
    ]
    assert not wrong, wrong


def test_the_relay_and_the_stores_do_not_know_the_service() -> None:
    graph = import_graph(type_checking=True)

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
        "gonuts.server.games.store",
        "gonuts.server.accounts.store",
        "gonuts.server.play.messages",
        "gonuts.server.play.live",
        "gonuts.server.play.clock",
    ):
        # not even for type checking, nor inside a function: the relay and the clock call
        # back through protocols (Hub, ClockHub), never into the service
        assert "gonuts.server.play.service" not in reachable(module), module
        assert "gonuts.server.app" not in reachable(module), module


# -- public seams: no module uses another's underscored names --------------------------------------

PRIVATE_ALLOWED: Final = frozenset({"_exit", "_asyncio_future_blocking"})
"""The standard library's own (``os._exit`` in a worker process; asyncio's future protocol)."""


def own_private_names(tree: ast.Module) -> set[str]:
    """Underscored names a module defines itself (functions, classes, attributes it assigns),
    leaving out the members of its ``Protocol`` classes: a protocol only describes another
    module's object."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.ClassDef) and any(
            (isinstance(b, ast.Name) and b.id == "Protocol")
            or (isinstance(b, ast.Subscript) and getattr(b.value, "id", None) == "Protocol")
            for b in node.bases
        ):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def foreign_privates(source: str) -> list[str]:
    """Uses of underscored names this module does not define (``x._y`` on anything but
    ``self``/``cls``, ``from m import _y``)."""
    tree = ast.parse(source)
    own = own_private_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [
                f"import {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__")
            ]
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in PRIVATE_ALLOWED:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if name not in own:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_private_name_finder_finds_them() -> None:
    calling = (
        "from typing import Protocol\n"
        "class Hub(Protocol):\n    def _apply(self) -> None: ...\n"
        "def f(hub: Hub) -> None:\n    hub._apply()\n"
    )
    assert foreign_privates(calling) == ["line 5: hub._apply"]
    assert foreign_privates("from gonuts.x import _y\n") == ["import _y"]
    own = "class A:\n    def _b(self): ...\n    def c(self, other: 'A'): other._b()\n"
    assert foreign_privates(own) == []


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (SRC / "server").rglob("*.py") if "migrations" not in p.parts),
    ids=lambda p: str(p.relative_to(SRC / "server")),
)
def test_server_modules_use_only_public_names_of_others(path: Path) -> None:
    assert foreign_privates(path.read_text(encoding="utf-8")) == []


# -- the map: every server module is in docs/architecture.md ---------------------------------------

ARCHITECTURE = SRC.parent.parent / "docs" / "architecture.md"


def test_every_server_module_is_on_the_map() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = []
    for path in sorted((SRC / "server").rglob("*.py")):
        rel = path.relative_to(SRC / "server")
        if "migrations" in rel.parts:
            named = "kernel/migrations/"
        elif path.name == "__init__.py":
            named = f"{rel.parent.as_posix()}/" if rel.parent.parts else "__init__.py"
        else:
            named = rel.as_posix()
        if f"`{named}`" not in text:
            missing.append(named)
    assert not missing, f"not on docs/architecture.md's map: {missing}"


# -- no room over ~500 lines without its reason ----------------------------------------------------

MAX_LINES: Final = 500


@pytest.mark.parametrize(
    "path",
    sorted(p for room in ("server", "batch", "cli") for p in (SRC / room).rglob("*.py")),
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_no_server_batch_or_cli_module_over_the_limit_without_a_reason(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    if lines <= MAX_LINES:
        return
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert "Over 500 lines" in doc, f"{lines} lines and no reason at its top"
