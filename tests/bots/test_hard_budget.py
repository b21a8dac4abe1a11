"""The ``hard`` level is what docs/bots.md says it is, and each budget plays its search."""

from __future__ import annotations

from pathlib import Path

import pytest

from gonuts.bots import make_bot
from gonuts.bots.base import DIFFICULTIES, HARD_BUDGETS, HardBot
from gonuts.bots.mcts import MCTSBot

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"
HEADER = "| players | 0.3.0 `hard` |"


def documented_budgets() -> dict[int, str]:
    """Players → the ``hard now`` column of the CPU table in "hard and the compiled build"."""
    lines = DOCS.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    columns = [c.strip() for c in lines[start].strip("|").split("|")]
    now = columns.index("`hard` now")
    out = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[int(cells[0])] = cells[now].strip("`")
    return out


def test_docs_table_is_the_configuration() -> None:
    expected = {n: f"{kind}:{iterations}" for n, (kind, iterations) in HARD_BUDGETS.items()}
    assert documented_budgets() == expected
    row = next(line for line in DOCS.read_text().splitlines() if line.startswith("| `hard` |"))
    for spec in expected.values():
        assert f"`{spec}`" in row
    for spec in expected.values():
        assert spec in DIFFICULTIES["hard"]  # what `gonuts play --help` says


def test_every_table_size_has_a_budget_within_the_searches() -> None:
    assert sorted(HARD_BUDGETS) == [2, 3, 4, 5, 6]
    for kind, iterations in HARD_BUDGETS.values():
        assert kind in ("mcts", "neural-mcts")
        assert iterations > 0


@pytest.mark.parametrize("players", [3, 5, 6])
def test_hard_plays_mcts_with_its_budget(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the mcts sizes the level is ``MCTSBot`` with that size's iterations (a smaller
    budget here, patched in both, so that the test is quick: the wiring is what is tested)."""
    from gonuts.bots import base  # noqa: PLC0415
    from gonuts.game import Game  # noqa: PLC0415

    kind, _ = HARD_BUDGETS[players]
    monkeypatch.setitem(base.HARD_BUDGETS, players, (kind, 60 + players))
    view = Game.new(players, seed=players).view(0)
    hard = make_bot("hard", 3)
    assert isinstance(hard, HardBot)
    assert hard.choose(view) == MCTSBot(3, iterations=60 + players).choose(view)
    assert hard.searches.keys() == {(kind, 60 + players)}
