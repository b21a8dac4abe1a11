"""``gonuts review``: exit codes, one-line errors, JSON on stdout, the text report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gonuts.cli import main
from gonuts.cli.review import DEFAULT_BOT
from gonuts.review import DEFAULT_ANALYSER

RECORDS = Path(__file__).parent.parent / "records"
TWO = str(RECORDS / "complete-2p.json")


def test_the_cli_default_is_the_library_default() -> None:
    assert DEFAULT_ANALYSER.spec == DEFAULT_BOT


def test_json_to_stdout_is_one_object_and_nothing_else(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", TWO, "--bot", "neural:2", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert set(payload) == {"players", "analyser", "accuracy", "decisions", "graph"}
    assert payload["analyser"]["bot"] == "neural:2"
    assert err == ""


def test_json_file_and_text_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "review.json"
    assert main(["review", TWO, "--bot", "neural:2", "--seed", "3", "--json", str(target)]) == 0
    out, _ = capsys.readouterr()
    for words in ("Accuracy and labels per seat", "Decisions of Ana", "Decisions of Ben",
                  "Key moments", "neural:2, seed 3"):  # fmt: skip
        assert words in out
    first = json.loads(target.read_text(encoding="utf-8"))
    assert main(["review", TWO, "--bot", "neural:2", "--seed", "3", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == first  # deterministic with --seed


def test_budget_and_players_only(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["review", TWO, "--bot", "neural", "--budget", "2", "--players-only", "1"]
    assert main([*args, "--json", "-"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["analyser"]["bot"] == "neural:2"
    assert {d["seat"] for d in payload["decisions"]} == {1}
    assert payload["accuracy"][0] is None and payload["accuracy"][1] is not None


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("{not json", [], "invalid JSON"),
        ('{"format": "gonuts-record/1"}', [], "missing key 'players'"),
        (None, ["--bot", "greedy"], "unknown analyser"),
        (None, ["--bot", "mcts:0"], "bad budget"),
        (None, ["--budget", "0"], "bad budget"),
        (None, ["--players-only", "2"], "no seat 2"),
        (None, ["--players-only", "a"], "not a seat number"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    args: list[str],
    message: str,
) -> None:
    path = TWO
    if content is not None:
        bad = tmp_path / "bad.json"
        bad.write_text(content, encoding="utf-8")
        path = str(bad)
    assert main(["review", path, *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("gonuts review: ") and err.count("\n") == 1 and message in err, err


def test_an_illegal_action_names_its_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads(Path(TWO).read_text(encoding="utf-8"))
    record["actions"][5]["action"] = "pick 9"
    bad = tmp_path / "illegal.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    assert main(["review", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gonuts review: action 5: ") and err.count("\n") == 1


def test_a_missing_file_is_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "nope.json")]) == 2
    assert capsys.readouterr().err.startswith("gonuts review: cannot read")
