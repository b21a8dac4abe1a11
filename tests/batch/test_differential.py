"""gonuts.batch against the rules engine, step by step: random games and every stored record.

The default run plays 400 random games per player count (2,000 in all) plus the records of
``tests/records/``; ``GONUTS_BATCH_GAMES=N`` plays N per player count instead. Half of the
random games play the default rules, the others the house-rule variants (each alone, and all
three together; :data:`batch.lockstep.CONFIGS`), in the same batch and the same compiled
program.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("jax")

from batch.lockstep import lockstep

RECORDS = Path(__file__).parent.parent / "records"
GAMES = int(os.environ.get("GONUTS_BATCH_GAMES", "400"))

# One player count: a compile and 400 games in both engines (a minute or two on a busy machine).
pytestmark = pytest.mark.timeout(600)


def records_for(players: int) -> list[str]:
    out = []
    for path in sorted(RECORDS.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        if len(json.loads(text)["players"]) == players:
            out.append(text)
    return out


@pytest.mark.parametrize("players", range(2, 7))
def test_batch_matches_rules_engine(players: int) -> None:
    records = records_for(players)
    tally = lockstep(players, GAMES, seed=players, records=records)
    # not vacuous: every random game finished, the records were played, powers were met
    assert tally.games_over >= GAMES
    assert tally.record_actions == sum(len(json.loads(r)["actions"]) for r in records)
    assert tally.observations > 0 and tally.summaries > 0
    assert {"select", "over", "french_cruller"} <= tally.phases
    if players >= 3:
        assert {"double_chocolate", "red_velvet", "sprinkled"} <= tally.phases
    if players >= 4:
        assert {"bear_claw", "cinnamon_twist", "day_old", "milk"} <= tally.phases
    if players >= 5:
        assert {"raspberry_frosted", "strawberry_glazed"} <= tally.phases
    # each variant's own moves (legal only under it) were played and compared
    if players >= 3:
        assert tally.variant_moves.get("sprinkled_any_card", 0) > 0
    if players >= 4:
        assert tally.variant_moves.get("milk_any_three", 0) > 0
        assert tally.variant_moves.get("twist_pass_any", 0) > 0


def test_every_record_is_covered() -> None:
    counts = [len(json.loads(p.read_text())["players"]) for p in RECORDS.glob("*.json")]
    assert counts and all(2 <= c <= 6 for c in counts)
