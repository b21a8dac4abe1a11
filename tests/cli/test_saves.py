"""``gonuts play`` saves (issue 31): never over an existing file without --force, a folder for
a new file, and never a pick nobody has seen yet — a quit in the middle of a selection saves
the game as of its start, and the picks are made again on resume (docs/cli.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gonuts.record import Record


def gonuts(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gonuts", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "XDG_DATA_HOME": os.environ.get("XDG_DATA_HOME", "/nonexistent")},
    )


BOTS = ("--players", "3", "--bots", "random", "--seed", "5", "--bot-seed", "1")


def test_an_existing_file_is_never_replaced_without_force(tmp_path: Path) -> None:
    save = tmp_path / "q.json"
    save.write_text("half a game I care about")
    refused = gonuts(*BOTS, "--save", str(save), stdin="q\n")
    assert refused.returncode == 2 and refused.stdout == ""
    assert "the file exists" in refused.stderr and "--force" in refused.stderr
    assert save.read_text() == "half a game I care about"
    forced = gonuts(*BOTS, "--save", str(save), "--force", stdin="2\nq\n")
    assert forced.returncode == 0, forced.stderr
    assert Record.load(save).players[0] == "Player"


def test_a_folder_gets_a_new_file(tmp_path: Path) -> None:
    for given in (f"{tmp_path / 'newdir'}/", str(tmp_path)):
        result = gonuts(*BOTS, "--save", given, stdin="2\nq\n")
        assert result.returncode == 0, result.stderr
        folder = Path(given.rstrip("/"))
        made = [p for p in folder.iterdir() if p.suffix == ".json"]
        assert len(made) == 1 and made[0].name.startswith("gonuts-")
        assert f"Record saved: {made[0]}" in result.stdout.replace("\n", "")
        made[0].rename(folder / "kept.json")
    assert not (tmp_path / "newdir").is_file()


def test_a_quit_before_your_pick_saves_no_bot_pick(tmp_path: Path) -> None:
    save = tmp_path / "solo.json"
    result = gonuts(*BOTS, "--save", str(save), stdin="q\n")  # the bots have picked already
    assert result.returncode == 0, result.stderr
    record = json.loads(save.read_text())
    assert record["actions"] == []


def test_a_hot_seat_quit_at_the_hand_over_saves_no_pick_and_resume_asks_again(
    tmp_path: Path,
) -> None:
    save = tmp_path / "hot.json"
    args = ("--players", "3", "--humans", "2", "--names", "Ana,Ben", "--bots", "random")
    result = gonuts(*args, "--seed", "3", "--save", str(save), stdin="\n3\nq\n")
    assert result.returncode == 0, result.stderr
    assert "Ben, press Enter" in result.stdout
    record = Record.load(save)
    assert record.actions == ()  # neither Ana's pick 3 nor the bot's pick of that round
    resumed = gonuts("--resume", str(save), stdin="\n1\n\n2\nq\n")
    assert resumed.returncode == 0, resumed.stderr
    assert "Ana, pick a donut" in resumed.stdout
    after = Record.load(save)
    assert {"player": 0, "action": "pick 1"} in [a.to_json() for a in after.actions]
    assert {"player": 1, "action": "pick 2"} in [a.to_json() for a in after.actions]


def test_the_quit_line_says_whether_the_game_is_saved(tmp_path: Path) -> None:
    unsaved = gonuts(*BOTS, "--no-save", stdin="q\n")
    assert "(the game is saved)" not in unsaved.stdout
    assert "not saved" in unsaved.stdout
    saved = gonuts(*BOTS, "--save", str(tmp_path / "s.json"), stdin="q\n")
    assert "q to quit (the game is saved)" in saved.stdout.replace("\n", " ")
