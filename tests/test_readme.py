"""The README's examples are tested (python-chess style)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples() -> None:
    result = doctest.testfile(
        str(README), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted > 10
    assert result.failed == 0


def test_readme_commands_and_paths_exist() -> None:
    """Every `make TARGET` the README mentions is a Makefile target, and every repository path
    it names in backticks exists (so the install instructions cannot go stale silently)."""
    text = README.read_text()
    root = README.parent
    targets = set(re.findall(r"^([a-z][a-z-]*):", (root / "Makefile").read_text(), re.MULTILINE))
    mentioned = set(re.findall(r"`make ([a-z][a-z-]*)", text))
    assert {"run", "test", "lock"} <= mentioned
    assert mentioned - targets == set()
    paths = set(re.findall(r"`((?:requirements|docs|examples|scripts|src|tests)/[^`<>\s]*)`", text))
    assert {"requirements/run.txt", "requirements/test.txt", "docs/rules.md"} <= paths
    assert sorted(p for p in paths if not (root / p).exists()) == []
