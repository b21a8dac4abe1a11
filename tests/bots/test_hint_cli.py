"""``gonuts hint`` and ``gonuts play --bots`` with bot names and difficulty levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gonuts.bots import make_bot
from gonuts.cli import main
from gonuts.game import Game
from gonuts.record import Record


def write_record(tmp_path: Path, game: Game) -> Path:
    path = tmp_path / "game.json"
    path.write_text(Record.from_game(game).to_json(), encoding="utf-8")
    return path


def test_hint_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.new(3, seed=5)
    game.apply(1, "pick 2")
    path = write_record(tmp_path, game)
    assert main(["hint", str(path), "--player", "0", "--budget", "150", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["player"] == 0
    assert sorted(a["action"] for a in data["actions"]) == ["pick 1", "pick 2", "pick 3", "pick 4"]
    assert data["recommended"] == data["actions"][0]["action"]
    for a in data["actions"]:
        assert 0 <= a["win_probability"] <= 1 and a["expected_score"] >= -30
    # a simultaneous pick: the recommendation is the mixed strategy's favourite, and the JSON
    # says why whenever another action has the higher win probability
    assert data["simultaneous"] is True
    best = max(data["actions"], key=lambda a: a["win_probability"])
    assert data["highest_win_probability"] in {a["action"] for a in data["actions"]}
    if best["action"] == data["recommended"]:
        assert data["explanation"] is None
    else:
        assert "mixed strategy" in data["explanation"]


def test_hint_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_record(tmp_path, Game.new(2, seed=5))
    assert main(["hint", str(path), "--player", "1", "--budget", "0.05s"]) == 0
    out = capsys.readouterr().out
    assert "Recommended: pick" in out and "win probability" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--player", "0"], "no decision"),
        (["--player", "5"], "no player 5"),
        (["--player", "1", "--budget", "abc"], "bad search budget"),
    ],
)
def test_hint_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    game = Game.new(2, seed=5)
    game.apply(0, "pick 1")
    path = write_record(tmp_path, game)
    assert main(["hint", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("gonuts hint: ")


def test_hint_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert main(["hint", str(bad), "--player", "0"]) == 2
    assert main(["hint", str(tmp_path / "missing.json"), "--player", "0"]) == 2
    game = Game.new(2, seed=1)
    while not game.is_over:
        for p in game.to_act:
            if p in game.to_act:
                game.apply_id(p, game.legal_action_ids(p)[0])
    assert main(["hint", str(write_record(tmp_path, game)), "--player", "0"]) == 2
    assert "game is over" in capsys.readouterr().err


@pytest.mark.parametrize("bots", ["easy,medium,easy", "greedy", "mcts:5", "hard"])
def test_play_with_bots(tmp_path: Path, bots: str) -> None:
    save = tmp_path / "played.json"
    if bots == "hard":  # a whole game at 1 s per decision is too slow for a unit test
        assert make_bot("hard").name == "hard"
        return
    code = main(["play", "--players", "3", "--humans", "0", "--bots", bots, "--seed", "2",
                 "--bot-seed", "1", "--save", str(save)])  # fmt: skip
    assert code == 0
    assert Record.from_json(save.read_text()).replay().is_over


def test_hint_with_neural_mcts_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `--bot neural-mcts`: every legal action, the most visited first and recommended, no
    # expected scores (the network predicts none).
    game = Game.new(2, seed=5)
    path = write_record(tmp_path, game)
    argv = ["hint", str(path), "--player", "1", "--budget", "120", "--bot", "neural-mcts"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bot"] == "neural-mcts" and data["iterations"] == 120
    legal = sorted(a.notation for a in game.view(1).legal)
    assert sorted(a["action"] for a in data["actions"]) == legal
    visits = [a["visits"] for a in data["actions"]]
    # (the first iteration expands the root: the others each visit one of its actions)
    assert visits == sorted(visits, reverse=True) and sum(visits) == 119
    assert data["recommended"] == data["actions"][0]["action"]
    assert [a["play_probability"] for a in data["actions"]] == [1.0] + [0.0] * (len(legal) - 1)
    for a in data["actions"]:
        assert 0 <= a["win_probability"] <= 1 and a["expected_score"] is None
    # the same seed gives the same hint; the bot plays what the hint recommends
    assert main([*argv, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert {**again, "seconds": 0} == {**data, "seconds": 0}
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "search iterations of neural-mcts" in out and "Recommended: pick" in out


def test_hint_bot_must_be_known(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_record(tmp_path, Game.new(2, seed=5))
    assert main(["hint", str(path), "--player", "0", "--bot", "alphazero"]) == 2
    assert "invalid choice: 'alphazero'" in capsys.readouterr().err
