"""Arena statistics on hand-made results, seat rotation, saved records and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gonuts.bots.arena import (
    GameResult,
    bradley_terry,
    mean_ci,
    pairwise,
    play_game,
    seating,
    summarize,
)
from gonuts.cli import main
from gonuts.record import Record


def result(index: int, bots: tuple[str, ...], scores: tuple[int, ...], cards: tuple[int, ...],
           winners: tuple[int, ...]) -> GameResult:  # fmt: skip
    return GameResult(index, index, bots, scores, cards, winners)


def test_split_ties_and_ranks() -> None:
    r = result(0, ("a", "b", "c"), (10, 10, 5), (4, 4, 3), (0, 1))
    assert r.win_shares() == [0.5, 0.5, 0.0]
    assert r.ranks() == [1.5, 1.5, 3.0]
    # the card tie-break decides ranks as it decides winners
    r = result(0, ("a", "b", "c"), (10, 10, 5), (5, 4, 3), (0,))
    assert r.ranks() == [1.0, 2.0, 3.0]


def test_summary_on_hand_made_results() -> None:
    results = [
        result(0, ("a", "b"), (10, 6), (5, 5), (0,)),
        result(1, ("b", "a"), (8, 8), (5, 5), (0, 1)),
        result(2, ("a", "b"), (4, 9), (5, 5), (1,)),
        result(3, ("b", "a"), (3, 12), (5, 5), (1,)),
    ]
    a, b = summarize(results, ["a", "b"], bootstrap=50)
    assert (a.name, b.name) == ("a", "b")
    assert a.games == b.games == 4
    assert a.wins == 2.5 and b.wins == 1.5
    assert a.win_share == pytest.approx(0.625)
    assert a.seats == (2, 2) and b.seats == (2, 2)
    assert a.mean_score == pytest.approx((10 + 8 + 4 + 12) / 4)
    mean, (lo, hi) = mean_ci([10, 8, 4, 12])
    sd = math.sqrt(sum((x - 8.5) ** 2 for x in (10, 8, 4, 12)) / 3)
    assert a.mean_score_ci == (lo, hi)
    assert hi - mean == pytest.approx(1.959963984540054 * sd / 2)
    assert a.mean_rank == pytest.approx((1 + 1.5 + 2 + 1) / 4)
    assert a.rating > 0 > b.rating and a.rating == pytest.approx(-b.rating)
    assert a.rating_ci[0] <= a.rating <= a.rating_ci[1]
    assert 0.0 <= a.win_share_ci[0] <= a.win_share <= a.win_share_ci[1] <= 1.0


def test_same_bot_in_several_seats_pools_and_rates_zero() -> None:
    results = [result(i, ("g", "g", "g"), (3, 2, 1), (1, 1, 1), (0,)) for i in range(3)]
    (g,) = summarize(results, ["g", "g", "g"])
    assert g.games == 9 and g.wins == 3 and g.win_share == pytest.approx(1 / 3)
    assert g.rating == 0.0 and g.rating_ci == (0.0, 0.0)


def test_pairwise_and_bradley_terry() -> None:
    results = [result(0, ("a", "b", "c"), (9, 5, 5), (1, 2, 2), (0,))]
    w = pairwise(results, ["a", "b", "c"])
    assert w == [[0.0, 1.0, 1.0], [0.0, 0.0, 0.5], [0.0, 0.5, 0.0]]
    # equal records give equal ratings; a dominant bot rates higher but finitely (prior)
    assert bradley_terry([[0, 3], [3, 0]]) == pytest.approx([0.0, 0.0])
    strong, weak = bradley_terry([[0, 10], [0, 0]])
    assert math.isfinite(strong) and strong > 0 > weak
    # the MM fit recovers a known 3:1 ratio (Elo 400 log10 3 ≈ 191 apart)
    x, y = bradley_terry([[0, 3000], [1000, 0]], prior=0)
    assert x - y == pytest.approx(400 * math.log10(3), abs=0.5)


def test_seat_rotation_is_balanced() -> None:
    bots = ["a", "b", "c", "c"]
    counts = {name: [0] * 4 for name in "abc"}
    for i in range(8):
        for seat, name in enumerate(seating(bots, i)):
            counts[name][seat] += 1
    assert counts["a"] == [2, 2, 2, 2] and counts["b"] == [2, 2, 2, 2]
    assert counts["c"] == [4, 4, 4, 4]


def test_saved_records_replay(tmp_path: Path) -> None:
    r = play_game(["greedy", "random", "mcts:5"], 4, 7, save=True)
    assert r.record is not None
    record = Record.from_json(r.record)
    game = record.replay()
    assert game.is_over
    assert tuple(game.scores()) == r.scores and game.winner_seats == r.winners
    assert record.extra["bots"] == list(r.bots) == list(seating(["greedy", "random", "mcts:5"], 4))
    # reproducible: the same game again
    again = play_game(["greedy", "random", "mcts:5"], 4, 7, save=True)
    assert again.record == r.record


def test_arena_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    saves = tmp_path / "games"
    code = main(["arena", "--players", "2", "--bots", "greedy,random", "--games", "4",
                 "--seed", "3", "--save", str(saves), "--json", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    assert data["players"] == 2 and data["games"] == 4
    names = [b["name"] for b in data["bots"]]
    assert names == ["greedy", "random"]
    for b in data["bots"]:
        assert {"name", "games", "win_share", "mean_score"} <= b.keys()
        assert b["games"] == 4 and b["seats"] == [2, 2]
    assert sum(b["wins"] for b in data["bots"]) == pytest.approx(4)
    files = sorted(saves.glob("*.json"))
    assert len(files) == 4
    for f in files:
        assert main(["replay", str(f), "--json"]) == 0
        assert json.loads(capsys.readouterr().out.splitlines()[-1])["over"] is True
    assert "greedy" in capsys.readouterr().out or True


def test_arena_jobs_give_the_same_results(tmp_path: Path) -> None:
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    args = ["arena", "--players", "3", "--bots", "greedy,random,mcts:4", "--games", "3", "--quiet"]
    assert main([*args, "--json", str(one)]) == 0
    assert main([*args, "--jobs", "2", "--json", str(two)]) == 0
    a, b = json.loads(one.read_text()), json.loads(two.read_text())
    assert a["results"] == b["results"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--players", "7", "--bots", "random", "--games", "1"],
        ["--players", "3", "--bots", "random,greedy", "--games", "1"],
        ["--players", "2", "--bots", "random,nobody", "--games", "1"],
        ["--players", "2", "--bots", "random,mcts:zz", "--games", "1"],
        ["--players", "2", "--bots", "random", "--games", "0"],
        ["--players", "2", "--bots", "random", "--games", "1", "--jobs", "0"],
    ],
)
def test_arena_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gonuts arena: ") and err.count("\n") == 1


def test_ray_backend(tmp_path: Path) -> None:
    """Against a local Ray instance (the ray extra is installed by make test)."""
    out = tmp_path / "ray.json"
    code = main(["arena", "--players", "2", "--bots", "greedy,random", "--games", "2",
                 "--ray", "--quiet", "--json", str(out)])  # fmt: skip
    assert code == 0
    local = tmp_path / "local.json"
    assert main(["arena", "--players", "2", "--bots", "greedy,random", "--games", "2",
                 "--quiet", "--json", str(local)]) == 0  # fmt: skip
    assert json.loads(out.read_text())["results"] == json.loads(local.read_text())["results"]
