"""``gonuts analyze``: summary.json's keys and value ranges, determinism, the self-contained
report, merging runs, and the tallies checked against the games' own event logs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from gonuts.analysis.report import _dark
from gonuts.analysis.simulate import Tally, Task, play_bots, play_random
from gonuts.analysis.summary import seat_shares
from gonuts.bots.arena import game_seed, seating
from gonuts.bots.base import make_bot
from gonuts.cards import KIND_IDS, deck_counts, kind_index
from gonuts.cli import main
from gonuts.events import EventType
from gonuts.game import Game

SUMMARY_KEYS = {
    "players",
    "games",
    "bots",
    "variants",
    "seat_win_share",
    "kinds",
    "rounds",
    "scores",
}
KIND_KEYS = {"taken_per_game", "mean_points_when_owned", "win_share_when_owned", "contested_rate"}


def analyze(tmp: Path, *args: str) -> int:
    return main(["analyze", "--quiet", "--out", str(tmp), *args])


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def check_summary(s: dict[str, Any], players: int, games: int, variants: list[str]) -> None:
    assert set(s) == SUMMARY_KEYS
    assert s["players"] == players
    assert s["games"] == games
    assert s["variants"] == variants
    seats = s["seat_win_share"]
    assert [x["seat"] for x in seats] == list(range(players))
    assert {k for x in seats for k in x} == {"seat", "share", "ci95"}
    assert sum(x["share"] for x in seats) == pytest.approx(1.0, abs=1e-3)
    for x in seats:
        low, high = x["ci95"]
        assert 0.0 <= low <= x["share"] <= high <= 1.0
    in_deck = {KIND_IDS[k] for k, c in enumerate(deck_counts(players)) if c}
    assert set(s["kinds"]) == in_deck
    for stats in s["kinds"].values():
        assert set(stats) == KIND_KEYS
        assert stats["taken_per_game"] >= 0
        for key in ("win_share_when_owned", "contested_rate"):
            assert stats[key] is None or 0.0 <= stats[key] <= 1.0
    # cards of a kind taken per game never exceed the copies in the deck
    for kind, stats in s["kinds"].items():
        assert stats["taken_per_game"] <= deck_counts(players)[kind_index(kind)]
    if players >= 4:  # one Day-Old, always -7 (a fixed score: the tally must say so)
        assert s["kinds"]["day_old"]["mean_points_when_owned"] in (None, -7.0)
    assert set(s["rounds"]) == {"mean", "sd"}
    assert 1 <= s["rounds"]["mean"] <= 70
    assert s["rounds"]["sd"] >= 0
    assert set(s["scores"]) == {"mean", "sd", "winner_mean"}
    assert s["scores"]["winner_mean"] >= s["scores"]["mean"]


def test_summary_keys_and_ranges_for_several_player_counts(tmp_path: Path) -> None:
    assert analyze(tmp_path, "--players", "2-4", "--games", "60", "--seed", "3") == 0
    summary = load(tmp_path / "summary.json")
    assert set(summary) == {"by_players"}
    assert set(summary["by_players"]) == {"2", "3", "4"}
    for n in (2, 3, 4):
        check_summary(summary["by_players"][str(n)], n, 60, [])
        assert summary["by_players"][str(n)]["bots"] == "random"
    assert not (tmp_path / "baseline.json").exists()


def test_one_player_count_is_one_object(tmp_path: Path) -> None:
    assert analyze(tmp_path, "--players", "5", "--games", "30") == 0
    check_summary(load(tmp_path / "summary.json"), 5, 30, [])


def test_deterministic_for_a_seed_whatever_the_jobs(tmp_path: Path) -> None:
    # More games than one chunk (500), so two jobs really finish chunks in their own order.
    args = ("--players", "3", "--games", "700", "--seed", "11")
    assert analyze(tmp_path / "a", *args) == 0
    assert analyze(tmp_path / "b", *args, "--jobs", "2") == 0
    assert analyze(tmp_path / "c", "--players", "3", "--games", "700", "--seed", "12") == 0
    a = (tmp_path / "a" / "summary.json").read_text()
    assert a == (tmp_path / "b" / "summary.json").read_text()
    assert a != (tmp_path / "c" / "summary.json").read_text()


def test_report_is_self_contained_with_the_plots(tmp_path: Path) -> None:
    assert (
        analyze(tmp_path, "--players", "4-5", "--games", "40", "--variant", "milk_any_three") == 0
    )
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?!data:)[a-z]+:", page)
    assert "http://" not in page and "https://" not in page and "url(" not in page
    for name in ("seat_advantage", "card_value", "distributions", "variants"):
        match = re.search(
            rf'data-plot="{name}.png" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page
        )
        assert match, name
        assert len(match.group(1)) > 1000
        assert (tmp_path / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "default" in page and "milk_any_three" in page
    summary = load(tmp_path / "summary.json")
    baseline = load(tmp_path / "baseline.json")
    check_summary(summary["by_players"]["4"], 4, 40, ["milk_any_three"])
    check_summary(baseline["by_players"]["4"], 4, 40, [])


def test_no_variant_plot_without_variants(tmp_path: Path) -> None:
    assert analyze(tmp_path, "--players", "3", "--games", "20") == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'data-plot="variants.png"' not in page
    assert 'data-plot="seat_advantage.png"' in page


def test_bots_play_through_the_arena_seating(tmp_path: Path) -> None:
    assert (
        analyze(tmp_path, "--players", "3", "--games", "3", "--bots", "greedy,random,random") == 0
    )
    summary = load(tmp_path / "summary.json")
    check_summary(summary, 3, 3, [])
    assert summary["bots"] == "greedy,random,random"


def test_from_merges_earlier_runs(tmp_path: Path) -> None:
    assert analyze(tmp_path / "a", "--players", "2-3", "--games", "30", "--seed", "1") == 0
    assert analyze(tmp_path / "b", "--players", "2-3", "--games", "20", "--seed", "2") == 0
    assert (
        main(
            [
                "analyze",
                "--from",
                str(tmp_path / "a"),
                str(tmp_path / "b"),
                "--out",
                str(tmp_path / "m"),
            ]
        )
        == 0
    )
    merged = load(tmp_path / "m" / "summary.json")["by_players"]
    a = load(tmp_path / "a" / "summary.json")["by_players"]
    b = load(tmp_path / "b" / "summary.json")["by_players"]
    for n in ("2", "3"):
        check_summary(merged[n], int(n), 50, [])
        expected = (a[n]["rounds"]["mean"] * 30 + b[n]["rounds"]["mean"] * 20) / 50
        assert merged[n]["rounds"]["mean"] == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--players", "3", "--games", "5", "--variant", "milk_any_two"],
            "unknown variant 'milk_any_two'",
        ),
        (["--players", "2-7", "--games", "5"], "player counts are 2 to 6, not 7"),
        (["--players", "x", "--games", "5"], "--players"),
        (["--players", "3", "--games", "0"], "--games must be at least 1"),
        (["--players", "3"], "--games is required"),
        (["--players", "2-3", "--games", "5", "--bots", "greedy,random"], "single --players"),
        (["--players", "3", "--games", "5", "--bots", "grumpy"], "unknown bot"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert analyze(tmp_path, *args) == 2
    err = capsys.readouterr().err
    assert err.startswith("gonuts analyze: ")
    assert err.count("\n") == 1
    assert message in err


def test_missing_research_extra_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "gonuts.analysis.report", raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    assert analyze(tmp_path, "--players", "3", "--games", "5") == 2
    assert capsys.readouterr().err == (
        "gonuts analyze: needs the 'research' extra: pip install 'gonuts[research]'\n"
    )


# -- the tallies against the games themselves ----------------------------------------------------


def test_bot_tallies_match_the_event_log() -> None:
    """Replay each game with its event log on: the row cards taken and contested, the length
    and the scores counted by the tally are those of the log."""
    bots = ("random", "greedy", "random", "random")
    for index in range(3):
        task = Task(4, bots, ("twist_pass_any",), 5, index, 1)
        tally = play_bots(task)
        seats = seating(bots, index)
        deck_seed = game_seed(5, index)
        players = [make_bot(name, deck_seed * 8 + s) for s, name in enumerate(seats)]
        game = Game.new(4, seed=deck_seed, variants=["twist_pass_any"])
        while not game.is_over:
            for p in game.to_act:
                if p in game.to_act:
                    game.apply(p, players[p].choose(game.view(p)))
        taken = [0] * len(KIND_IDS)
        contested = [0] * len(KIND_IDS)
        for event in game.event_log:
            if event.type in (EventType.CARD_TAKEN, EventType.CARD_CONTESTED):
                assert event.card is not None
                counts = taken if event.type is EventType.CARD_TAKEN else contested
                counts[kind_index(event.card)] += 1
        assert tally.taken == taken
        assert tally.contested == contested
        assert tally.rounds == {game.round: 1}
        assert sorted(tally.scores.elements()) == sorted(game.scores())
        assert sum(tally.seat_share) == pytest.approx(1.0)


def test_random_tallies_round_trip_and_merge() -> None:
    first = play_random(Task(3, ("random",) * 3, (), 1, 0, 50))
    second = play_random(Task(3, ("random",) * 3, (), 1, 50, 50))
    assert first.games == second.games == 50
    assert Tally.from_dict(json.loads(json.dumps(first.to_dict()))) == first
    merged = Tally(3)
    merged.merge(first)
    merged.merge(second)
    assert merged.games == 100
    assert merged.rounds == first.rounds + second.rounds
    assert sum(merged.seat_share) == pytest.approx(100.0)
    assert first != second


def test_ray_backend_gives_the_same_summary(tmp_path: Path) -> None:
    """``--ray`` (a local Ray instance; the ray extra is installed by make test) plays the same
    games as one process: bots and random play, whatever runs them."""
    for args in (
        ("--players", "2", "--games", "6", "--bots", "greedy", "--seed", "5"),
        ("--players", "3", "--games", "40", "--seed", "5"),
    ):
        assert analyze(tmp_path / "ray", *args, "--ray") == 0
        assert analyze(tmp_path / "local", *args) == 0
        ray_summary = (tmp_path / "ray" / "summary.json").read_text()
        assert ray_summary == (tmp_path / "local" / "summary.json").read_text()


def test_each_seat_reports_its_own_win_share() -> None:
    """Not a rotation-invariant check: seat 0 won every game, so only seat 0 has share 1."""
    tally = Tally(players=3, games=4, seat_share=[4.0, 0.0, 0.0], seat_share_sq=[4.0, 0.0, 0.0])
    shares = seat_shares(tally)
    assert [s["seat"] for s in shares] == [0, 1, 2]
    assert [s["share"] for s in shares] == [1.0, 0.0, 0.0]
    uneven = Tally(players=3, games=4, seat_share=[1.0, 2.0, 1.0], seat_share_sq=[1.0, 2.0, 1.0])
    assert [s["share"] for s in seat_shares(uneven)] == [0.25, 0.5, 0.25]


def test_report_names_cards_counts_seats_from_zero_and_reads_on_dark_cells(tmp_path: Path) -> None:
    assert analyze(tmp_path, "--players", "2", "--games", "20", "--seed", "3") == 0
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<td>Chocolate Frosted</td>" in page and "<td>chocolate_frosted</td>" not in page
    assert "Bear Claw" not in page  # not in the two-player deck: no row for it
    assert "win share by seat 0, 1" in page and "numbered from 0" in page
    assert "Seats rotate" not in page and "uniformly at random" in page
    assert _dark((0.1, 0.1, 0.3, 1.0)) and not _dark((0.95, 0.95, 0.6, 1.0))
