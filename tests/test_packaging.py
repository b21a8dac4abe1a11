"""The repository stands alone and installs from PyPI alone (issue 10).

* every Markdown link points at a file (and heading) inside the repository;
* the version has one source, ``gonuts.__version__``;
* ``docs/rules.md`` lists every card kind with its count for each player count, every power
  and every house rule, as the engine has them;
* the lock files are hashed, PyPI-only, hold what their extras declare, and keep PyTorch out
  of the two commands;
* the core commands run with no extra installed.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import pytest

import gonuts
import gonuts.build
from gonuts.cards import KINDS, MAX_PLAYERS, MIN_PLAYERS, deck_counts

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())
SKIPPED_DIRS = {".git", ".venv", "node_modules", "build", "dist", "__pycache__"}


def repo_files(suffix: str) -> list[Path]:
    """Files of the repository with this suffix (not in virtual envs, caches or builds)."""
    return sorted(
        p
        for p in ROOT.rglob(f"*{suffix}")
        if p.is_file()
        and not any(
            part in SKIPPED_DIRS or part.startswith(".") for part in p.relative_to(ROOT).parts[:-1]
        )
    )


# -- links --------------------------------------------------------------------------------------

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def link_targets(markdown: str) -> list[str]:
    """Every link target of a Markdown text, outside code blocks and inline code."""
    text = INLINE_CODE.sub("", FENCE.sub("", markdown))
    return [
        m.group(1)
        for pattern in (INLINE_LINK, REFERENCE_LINK, HTML_LINK)
        for m in pattern.finditer(text)
    ]


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown text (lower case, punctuation
    dropped, spaces to hyphens; a repeated heading gets -1, -2, …)."""
    anchors: set[str] = set()
    for line in FENCE.sub("", markdown).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        title = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda g: g.group(1) or "", m.group(1))
        slug = "".join(
            c for c in title.strip().lower() if c in " -_" or unicodedata.category(c)[0] in "LN"
        ).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in anchors:
            n += 1
            candidate = f"{slug}-{n}"
        anchors.add(candidate)
    return anchors


def link_problems(source: Path, target: str) -> str | None:
    """Why ``target``, linked from the Markdown file ``source``, is not a link inside the
    repository to something that exists; None when it is."""
    if SCHEME.match(target) or target.startswith("//"):
        return "points outside the repository"
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?", 1)[0]
    if path_part.startswith("/"):
        return "is an absolute path"
    resolved = (source.parent / path_part).resolve() if path_part else source
    if not resolved.is_relative_to(ROOT):
        return "points outside the repository"
    if not resolved.exists():
        return "points at a missing file"
    if anchor and resolved.suffix == ".md" and anchor not in heading_anchors(resolved.read_text()):
        return f"names no heading of {resolved.relative_to(ROOT)}"
    return None


def test_the_link_checker_catches_bad_links() -> None:
    readme = ROOT / "README.md"
    assert link_problems(readme, "../elsewhere/RULES.md") == "points outside the repository"
    assert link_problems(readme, "https://example.org/rules") == "points outside the repository"
    assert link_problems(readme, "docs/no-such-file.md") == "points at a missing file"
    assert link_problems(readme, "docs/rules.md#no-such-heading") is not None
    assert link_problems(readme, "docs/rules.md#the-cards") is None
    assert link_targets("see [a](x.md) and ![b](y.png)\n\n```\n[c](z.md)\n```\n[d]: w.md\n") == [
        "x.md",
        "y.png",
        "w.md",
    ]
    assert "go-nuts-for-donuts--the-rules" in heading_anchors("# Go Nuts for Donuts — the rules")


def test_markdown_links_stay_inside_the_repository() -> None:
    markdown = repo_files(".md")
    assert ROOT / "README.md" in markdown and ROOT / "docs" / "rules.md" in markdown
    problems = [
        f"{path.relative_to(ROOT)}: {target} {problem}"
        for path in markdown
        for target in link_targets(path.read_text())
        if (problem := link_problems(path, target)) is not None
    ]
    assert problems == []


def test_nothing_refers_to_the_specification_folder_outside_the_repository() -> None:
    # The project's specification lived next to the repository; docs/ now holds it.
    needles = ("../" + "shared/", "/work/" + "shared")
    texts = [
        p
        for suffix in (".md", ".py", ".toml", ".html", ".js", ".json", ".txt", ".sh")
        for p in repo_files(suffix)
    ]
    assert len(texts) > 50
    offenders = [
        str(p.relative_to(ROOT)) for p in texts if any(n in p.read_text() for n in needles)
    ]
    assert offenders == []


# -- the version ----------------------------------------------------------------------------------


def test_the_version_has_one_source() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gonuts.__version__"}
    init = (ROOT / "src" / "gonuts" / "__init__.py").read_text()
    assert re.findall(r'^__version__ = "([^"]+)"$', init, re.MULTILINE) == [gonuts.__version__]
    assert re.fullmatch(r"\d+\.\d+\.\d+", gonuts.__version__)
    # No other file spells a version out: the server and the CLI import __version__.
    literal = re.compile(r"""version\s*=\s*["']\d+\.\d+""")
    assert [str(p) for p in repo_files(".py") if literal.search(p.read_text())] == []
    # The installed metadata agrees (make reinstalls when __init__.py changes).
    assert importlib.metadata.version("gonuts") == gonuts.__version__


def test_the_changelog_has_the_current_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## [{gonuts.__version__}]" in changelog


@pytest.mark.parametrize("pure", [False, True])
def test_cli_version_names_the_build(pure: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GONUTS_PURE"} | (
        {"GONUTS_PURE": "1"} if pure else {}
    )
    done = subprocess.run(
        [sys.executable, "-m", "gonuts", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    # Compiled exactly when compiled modules are installed (GONUTS_PURE=1: always pure Python).
    compiled = gonuts.build.compiled_available() and not pure
    build = "compiled" if compiled else "pure Python"
    assert (done.returncode, done.stdout.strip()) == (0, f"gonuts {gonuts.__version__} ({build})")


def test_license_and_metadata() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert project["authors"] == [{"name": "The gonuts developers"}]
    assert project["keywords"] and project["classifiers"]
    for minor in (11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in project["classifiers"]


# -- docs/rules.md --------------------------------------------------------------------------------

RULES = (ROOT / "docs" / "rules.md").read_text()


def card_table() -> dict[str, list[str]]:
    """docs/rules.md's card table: kind id → the cells of its row."""
    rows: dict[str, list[str]] = {}
    for line in RULES.splitlines():
        m = re.match(r"^\| (.+?) \(`([a-z_]+)`\) \|(.*)\|$", line)
        if m:
            rows[m.group(2)] = [m.group(1), *(c.strip() for c in m.group(3).split("|"))]
    return rows


def test_rules_name_every_kind_with_its_counts_by_player_count() -> None:
    table = card_table()
    assert list(table) == [k.id for k in KINDS]  # all 23, in the deck's canonical order
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    for kind in KINDS:
        name, _colour, *counts = table[kind.id][:7]
        assert name == kind.name
        expected = [str(deck_counts(n)[kind.index] or "—") for n in players]
        assert counts == expected, kind.id
    totals = re.search(r"^\| \*\*total\*\* \|[^|]*\|(.*)\|$", RULES, re.MULTILINE)
    assert totals is not None
    cells = [c.strip().strip("*") for c in totals.group(1).split("|")][:5]
    assert cells == [str(sum(deck_counts(n))) for n in players]
    for n in players:
        assert re.search(rf"^\| {n} \| [a-z, ]+ \| {sum(deck_counts(n))} \|$", RULES, re.MULTILINE)


def test_rules_explain_every_power_and_ruling() -> None:
    powers = RULES.split("## Powers", 1)[1].split("\n## ", 1)[0]
    for kind in KINDS:
        has_bullet = f"* **{kind.name}** —" in powers
        assert has_bullet == kind.has_power, kind.id
    # Each ruling of the project's specification, in the bullet of the card it concerns.
    bullets = re.findall(r"^\* \*\*([^*]+)\*\*(.*(?:\n  .*)*)", RULES, re.MULTILINE)
    ruled = sorted(name for name, text in bullets if "**Ruling:**" in text)
    assert ruled == sorted(
        ["French Cruller", "Double Chocolate", "Cinnamon Twist", "Milk", "Plain", "Maple Frosted"]
    )
    assert RULES.count("**Ruling:**") == len(ruled)


def test_rules_list_every_house_rule() -> None:
    variants = pytest.importorskip("gonuts.variants", reason="house rules not in this version")
    section = RULES.split("## House rules (variants)", 1)[1]
    assert re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE) == list(variants.VARIANTS)


# -- lock files -----------------------------------------------------------------------------------

LOCKS = {
    "run": {"web"},
    "test": {"web", "dev", "research", "batch", "ray", "train"},
    "research": {"research", "batch", "ray", "train"},
}
"""Each lock in requirements/ and the extras it resolves (besides the core)."""


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert m, requirement
    return normalize(m.group(1))


def declared(extras: set[str]) -> set[str]:
    """The distributions the core and these extras declare (self-references followed)."""
    optional: dict[str, list[str]] = PYPROJECT["project"]["optional-dependencies"]
    names: set[str] = set()
    pending = [*PYPROJECT["project"]["dependencies"], *(r for e in extras for r in optional[e])]
    while pending:
        requirement = pending.pop()
        if requirement_name(requirement) == "gonuts":
            inner = re.search(r"\[([^\]]+)\]", requirement)
            assert inner, requirement
            pending += [r for e in inner.group(1).split(",") for r in optional[e.strip()]]
        else:
            names.add(requirement_name(requirement))
    return names


def read_lock(name: str) -> tuple[str, dict[str, list[str]]]:
    """A lock's text and its pins: normalized name → the pinned versions (one per marker fork)."""
    text = (ROOT / "requirements" / f"{name}.txt").read_text()
    pins: dict[str, list[str]] = {}
    for m in re.finditer(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", text, re.MULTILINE):
        pins.setdefault(normalize(m.group(1)), []).append(m.group(2))
    return text, pins


def test_the_locks_are_the_ones_the_makefile_installs() -> None:
    locks = sorted(p.stem for p in (ROOT / "requirements").glob("*.txt"))
    assert locks == sorted(LOCKS)
    makefile = (ROOT / "Makefile").read_text()
    assert "-r requirements/run.txt" in makefile and "-r requirements/test.txt" in makefile
    for name, extras in LOCKS.items():
        command = makefile.split(f"-o requirements/{name}.txt", 1)[0].rsplit("$(UV_COMPILE)", 1)[1]
        assert set(re.findall(r"--extra (\w+)", command)) == extras, name


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_a_lock_is_hashed_and_from_pypi_alone(name: str) -> None:
    text, pins = read_lock(name)
    assert pins
    # Every pin carries hashes (pip's --require-hashes mode), and no pin is a local version
    # (such as a "+cpu" build that only some other index has).
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    for entry in entries:
        if "==" in entry:
            assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert [v for versions in pins.values() for v in versions if "+" in v] == []
    # No option that sends pip anywhere but PyPI.
    options = re.findall(
        r"^\s*(--(?:index-url|extra-index-url|find-links|trusted-host)|-[if]\s)",
        text,
        re.MULTILINE,
    )
    assert options == []
    assert "file:" not in text and "/opt/" not in text


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_a_lock_holds_what_its_extras_declare(name: str) -> None:
    _, pins = read_lock(name)
    assert declared(LOCKS[name]) - set(pins) == set()
    # make installs gonuts without build isolation: the build system (setup.py with mypyc).
    assert {"setuptools", "mypy"} <= set(pins)


def test_pytorch_is_in_no_lock() -> None:
    for name in LOCKS:
        _, pins = read_lock(name)
        assert not {p for p in pins if p == "torch" or p.startswith("nvidia-")}, name
    assert "torch" not in declared(set(LOCKS["test"]) | set(LOCKS["research"]))


def test_the_run_lock_is_the_test_lock_where_they_overlap() -> None:
    # make run then make test upgrade one .venv/ without reinstalling anything.
    _, run = read_lock("run")
    _, test = read_lock("test")
    assert {p: v for p, v in run.items() if test.get(p, v) != v} == {}


def third_party_imports() -> dict[str, set[str]]:
    """Top-level third-party modules that src/gonuts imports, each with the files that do."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / "src" / "gonuts").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top not in sys.stdlib_module_names and top != "gonuts":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


OPTIONAL_IMPORTS = {"uvloop", "mypy_extensions"}
"""Used only when present: uvloop (a faster event loop; uvicorn[standard] brings it where it
exists); mypy_extensions only under TYPE_CHECKING (mypyc's native int types, from mypy)."""


def test_every_module_the_code_imports_is_declared() -> None:
    everything = declared(set(PYPROJECT["project"]["optional-dependencies"]))
    providers = importlib.metadata.packages_distributions()
    imports = third_party_imports()
    assert {"rich", "fastapi", "numpy"} <= set(imports)
    undeclared = {
        module: sorted(files)
        for module, files in imports.items()
        if module not in OPTIONAL_IMPORTS
        # A module that is not installed here is taken to be its distribution's name.
        and not {normalize(d) for d in providers.get(module, [module])} & everything
    }
    assert undeclared == {}


# -- the core ring --------------------------------------------------------------------------------

EXTRA_MODULES = [
    *("numpy", "fastapi", "uvicorn", "starlette", "sqlalchemy", "pydantic", "alembic", "psycopg"),
    *("prometheus_client", "httpx", "websockets", "gymnasium", "pettingzoo", "pyspiel"),
    *("open_spiel", "matplotlib", "jax", "flax", "optax", "ray", "torch"),
]


def run_without_extras(*argv: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """``gonuts ARGV`` in a fresh interpreter where no extra's module can be imported."""
    script = (
        "import sys\n"
        f"for name in {EXTRA_MODULES!r}: sys.modules[name] = None\n"
        "from gonuts.cli import main\n"
        f"code = main({list(argv)!r})\n"
        f"assert not set({EXTRA_MODULES!r}) & {{m.split('.')[0] for m in sys.modules"
        " if sys.modules[m] is not None}\n"
        "sys.exit(code)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        cwd=tmp,
    )


def test_core_commands_need_no_extra(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    runs = [
        ("play", "--players", "3", "--humans", "0", "--seed", "4", "--save", str(record)),
        ("replay", str(record), "--json"),
        ("arena", "--players", "2", "--bots", "greedy,random", "--games", "4", "--seed", "1"),
        ("hint", str(ROOT / "tests" / "records" / "unfinished-4p.json"), "--player", "0",
         "--budget", "50"),
        ("bench", "--players", "2", "--seconds", "0.2"),
    ]  # fmt: skip
    for argv in runs:
        done = run_without_extras(*argv, tmp=tmp_path)
        assert done.returncode == 0, (argv, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
    replayed = run_without_extras("replay", str(record), "--json", tmp=tmp_path)
    assert '"over": true' in replayed.stdout


def test_every_data_file_of_the_package_is_in_its_package_data() -> None:
    """A file of ``src/gonuts`` that is not Python must match ``[tool.setuptools.package-data]``,
    else ``pip install .`` leaves it out (as the server's text catalogues once were)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    src = ROOT / "src"
    covered = {
        path
        for package, patterns in package_data.items()
        for pattern in patterns
        for path in (src / package.replace(".", "/")).glob(pattern)
        if path.is_file()
    }
    ignored = (".py", ".pyc", ".so", ".pyi")
    data = {
        path
        for path in (src / "gonuts").rglob("*")
        if path.is_file() and not path.name.endswith(ignored) and "__pycache__" not in path.parts
    }
    assert sorted(str(p.relative_to(src)) for p in data - covered) == []
