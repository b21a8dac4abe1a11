"""The command-line contract: ``gonuts replay`` (RECORD.md) and ``gonuts play``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gonuts.cards import KIND_IDS, canonical_deck
from gonuts.cli import main
from gonuts.errors import RecordError
from gonuts.record import Record, replay_summary

RECORDS = Path(__file__).parent / "records"
SAMPLES = sorted(RECORDS.glob("*.json"))
SUMMARY_KEYS = [
    "players",
    "round",
    "over",
    "row",
    "deck_size",
    "discard",
    "collections",
    "scores",
    "winners",
    "to_act",
]


def gonuts(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the real ``gonuts`` entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "gonuts", *args],
        input=stdin,
        check=False,
        capture_output=True,
        timeout=120,
    )


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def base_record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "format": "gonuts-record/1",
        "players": ["Ana", "Ben", "Cy"],
        "deck": [KIND_IDS[k] for k in canonical_deck(3)],
        "actions": [],
    }
    record.update(changes)
    return record


# -- replay --json -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_replay_json_prints_exactly_the_record_md_object(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(["replay", str(path), "--json"], capsys)
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert list(obj) == SUMMARY_KEYS
    record = json.loads(path.read_text())
    n = len(record["players"])
    assert obj["players"] == record["players"]
    assert len(obj["row"]) == n + 1
    assert len(obj["collections"]) == n and len(obj["scores"]) == n
    cards = sum(c is not None for c in obj["row"]) + obj["deck_size"] + len(obj["discard"])
    cards += sum(sum(c.values()) for c in obj["collections"])
    assert cards == len(record["deck"])
    assert all(all(v > 0 for v in c.values()) for c in obj["collections"])
    for entry in obj["to_act"]:
        assert list(entry) == ["player", "legal"]
        assert entry["legal"] == sorted(entry["legal"]) and len(entry["legal"]) >= 2
    if obj["over"]:
        assert obj["to_act"] == [] and obj["winners"]
    else:
        assert obj["winners"] == [] and obj["to_act"]
    assert obj == replay_summary(Record.from_json(path.read_text()).replay())


def test_replay_json_of_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["replay", str(RECORDS / "complete-3p.json"), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["over"] is True
    best = max(obj["scores"])
    assert all(obj["scores"][w] == best for w in obj["winners"])


def test_replay_json_pending_power_lists_only_the_deciding_player(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = RECORDS / "pending-french-cruller-3p.json"
    code, out, _ = run_main(["replay", str(path), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0
    assert obj["to_act"] == [{"player": 0, "legal": ["discard 2", "stop"]}]


def test_replay_json_simultaneous_phase_leaves_out_players_who_acted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = base_record(actions=[{"player": 1, "action": "pick 3"}])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    code, out, _ = run_main(["replay", str(path), "--json"], capsys)
    obj = json.loads(out)
    assert code == 0
    assert [e["player"] for e in obj["to_act"]] == [0, 2]
    assert obj["round"] == 1 and obj["deck_size"] == 46
    # canonical order: positions 1-3 hold the three Chocolate Frosted, 4 the first Donut Holes
    assert obj["row"] == ["chocolate_frosted"] * 3 + ["donut_holes"]


def test_replay_reads_standard_input_and_seed_records() -> None:
    record = {"format": "gonuts-record/1", "players": ["A", "B"], "seed": 12345, "actions": []}
    result = gonuts("replay", "-", "--json", stdin=json.dumps(record).encode())
    assert result.returncode == 0, result.stderr
    obj = json.loads(result.stdout)
    assert obj["deck_size"] == 37 - 3 and obj["round"] == 1


def test_replay_human_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["replay", str(RECORDS / "complete-4p.json"), "--log"], capsys)
    assert code == 0 and err == ""
    assert "Game over" in out and "Winner" in out and "Final scores" in out
    assert "Picks revealed" in out


# -- bad records: status 2, one line on stderr, nothing on stdout ------------------------------

FULL = json.loads((RECORDS / "complete-2p.json").read_text())

BAD_RECORDS: dict[str, tuple[bytes, str]] = {
    "invalid json": (b'{"format": "gonuts-record/1", ', "invalid JSON"),
    "not utf-8": (b'{"format": "\xff"}', "invalid JSON"),
    "not an object": (b"[1, 2, 3]", "JSON object"),
    "nan": (b'{"format": "gonuts-record/1", "players": ["a", "b"], "seed": NaN}', "invalid JSON"),
    "missing format": (json.dumps({"players": ["a", "b"], "seed": 1}).encode(), "format"),
    "wrong format": (json.dumps(base_record(format="gonuts-record/2")).encode(), "format"),
    "players not a list": (json.dumps(base_record(players="Ana")).encode(), "players"),
    "player name not a string": (
        json.dumps(base_record(players=["a", 2, "c"])).encode(),
        "players",
    ),
    "one player": (json.dumps(base_record(players=["Ana"])).encode(), "player count"),
    "seven players": (json.dumps(base_record(players=list("abcdefg"))).encode(), "player count"),
    "deck too short": (
        json.dumps(base_record(deck=base_record()["deck"][:-1])).encode(),
        "deck is not",
    ),
    "deck for another count": (
        json.dumps(base_record(deck=[KIND_IDS[k] for k in canonical_deck(4)])).encode(),
        "deck is not",
    ),
    "unknown kind": (
        json.dumps(base_record(deck=["cruller", *base_record()["deck"][1:]])).encode(),
        "unknown card kind",
    ),
    "seed not an integer": (
        json.dumps({"format": "gonuts-record/1", "players": ["a", "b"], "seed": "7"}).encode(),
        "seed",
    ),
    "no deck and no seed": (
        json.dumps({"format": "gonuts-record/1", "players": ["a", "b"], "actions": []}).encode(),
        "deck",
    ),
    "actions not a list": (json.dumps(base_record(actions={"player": 0})).encode(), "actions"),
    "action not an object": (json.dumps(base_record(actions=["pick 1"])).encode(), "action 0"),
    "wrong player": (
        json.dumps(
            base_record(
                actions=[{"player": 0, "action": "pick 1"}, {"player": 0, "action": "pick 2"}]
            )
        ).encode(),
        "action 1: wrong player",
    ),
    "seat out of range": (
        json.dumps(base_record(actions=[{"player": 3, "action": "pick 1"}])).encode(),
        "action 0: wrong player",
    ),
    "player is a bool": (
        json.dumps(base_record(actions=[{"player": True, "action": "pick 1"}])).encode(),
        "action 0",
    ),
    "malformed action": (
        json.dumps(base_record(actions=[{"player": 0, "action": "pick  1"}])).encode(),
        "action 0: malformed",
    ),
    "action not a string": (
        json.dumps(base_record(actions=[{"player": 0, "action": 1}])).encode(),
        "action 0: malformed",
    ),
    "illegal action": (
        json.dumps(base_record(actions=[{"player": 0, "action": "pick 5"}])).encode(),
        "action 0: illegal",
    ),
    "illegal verb now": (
        json.dumps(base_record(actions=[{"player": 0, "action": "stop"}])).encode(),
        "action 0: illegal",
    ),
    "action after the end": (
        json.dumps(
            FULL | {"actions": [*FULL["actions"], {"player": 0, "action": "pick 1"}]}
        ).encode(),
        f"action {len(FULL['actions'])}: ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_bad_record_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    data, needle = BAD_RECORDS[case]
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    for args in (("replay", str(path)), ("replay", str(path), "--json")):
        result = subprocess.run(
            [sys.executable, "-m", "gonuts", *args], check=False, capture_output=True, timeout=60
        )
        err = result.stderr.decode()
        assert result.returncode == 2, err
        assert result.stdout == b""
        assert err.count("\n") == 1 and err.endswith("\n"), err
        assert needle in err, err
        assert "Traceback" not in err


def test_action_after_the_end_names_the_end() -> None:
    data, _ = BAD_RECORDS["action after the end"]
    with pytest.raises(RecordError) as info:
        Record.from_json(data.decode()).replay()
    assert info.value.index == len(FULL["actions"])
    assert "after the end" in str(info.value)


def test_bad_record_from_stdin_and_missing_file() -> None:
    result = gonuts("replay", "-", stdin=b"not json")
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().count("\n") == 1
    result = gonuts("replay", "/definitely/not/here.json")
    assert result.returncode == 2 and b"cannot read" in result.stderr


# -- play ------------------------------------------------------------------------------------------


def test_play_against_random_bots_saves_a_record_that_replays(tmp_path: Path) -> None:
    """A human who always answers "1" (always legal: position 1, or the first option)."""
    path = tmp_path / "game.json"
    answers = b"1\n" * 400
    result = gonuts(
        "play",
        "--players",
        "3",
        "--seed",
        "5",
        "--bot-seed",
        "1",
        "--bots",
        "random",
        "--save",
        str(path),
        stdin=answers,
    )
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert "Final scores" in out and ("wins!" in out or "share the victory" in out)
    record = Record.from_json(path.read_text())
    game = record.replay()
    assert game.is_over
    assert record.extra["seats"] == ["human", "random", "random"]
    replay = gonuts("replay", str(path), "--json")
    assert json.loads(replay.stdout)["over"] is True


def test_play_reasks_on_bad_input_and_accepts_notation(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    answers = b"banana\n9\n0\npick 2\n" + b"1\n" * 400
    result = gonuts("play", "--players", "2", "--seed", "9", "--save", str(path), stdin=answers)
    out = result.stdout.decode()
    assert result.returncode == 0
    assert out.count("Type a position from 1 to 3") == 3
    human = [a for a in Record.from_json(path.read_text()).actions if a.player == 0]
    assert human[0].action == "pick 2"


def test_play_hot_seat_hides_picks_between_humans(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = gonuts(
        "play",
        "--players",
        "2",
        "--humans",
        "2",
        "--names",
        "Ana,Ben",
        "--seed",
        "3",
        "--save",
        str(path),
        stdin=b"\n1\n" * 400,
    )
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    assert "Pass the keyboard to Ana" in out and "Pass the keyboard to Ben" in out
    assert Record.from_json(path.read_text()).replay().is_over


def test_play_all_bots_and_end_of_input(tmp_path: Path) -> None:
    path = tmp_path / "bots.json"
    result = gonuts("play", "--players", "5", "--humans", "0", "--seed", "1", "--save", str(path))
    assert result.returncode == 0
    assert Record.from_json(path.read_text()).replay().is_over
    # A human whose input ends: the game is abandoned, the partial record still saved.
    path2 = tmp_path / "partial.json"
    result = gonuts("play", "--players", "3", "--save", str(path2), stdin=b"1\n")
    assert result.returncode == 1 and b"abandoned" in result.stdout
    assert not Record.from_json(path2.read_text()).replay().is_over


@pytest.mark.parametrize(
    "args",
    [["--players", "7"], ["--players", "3", "--humans", "4"], ["--bots", "nonsense"]],
)
def test_play_refuses_bad_options(args: list[str]) -> None:
    result = gonuts("play", *args, "--no-save", stdin=b"")
    assert result.returncode == 2
    assert b"Traceback" not in result.stderr
