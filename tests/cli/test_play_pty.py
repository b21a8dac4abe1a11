"""``gonuts play`` driven through a pseudo-terminal, as a person types: a whole game with the
help, card reference, hint, log and table keys; a hot-seat hand-over whose screen and
scrollback keep no earlier pick; Ctrl-C saving, and ``--resume`` finishing the game; a 60×20
terminal that keeps the row and the prompt on screen."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest

from gonuts.record import Record

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CLEAR_ALL = "\x1b[2J\x1b[3J"
"""Erase the screen, then the scrollback."""
ALT_ON, ALT_OFF = "\x1b[?1049h", "\x1b[?1049l"
PROMPT = "› "


def plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


class Player:
    """One ``gonuts play`` process on a pty, read prompt by prompt."""

    def __init__(
        self, *args: str, rows: int = 40, cols: int = 120, encoding: str = "utf-8"
    ) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
        env["TERM"] = "xterm-256color"
        env["PYTHONIOENCODING"] = encoding
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "gonuts", "play", *args],
            dimensions=(rows, cols),
            encoding=encoding,
            timeout=90,
            env=env,
        )
        self.raw = ""
        """Everything the program wrote so far, escape sequences included."""
        try:
            self.mark = PROMPT.encode(encoding) and PROMPT
        except UnicodeEncodeError:
            self.mark = "> "  # the plain fallback of a terminal without ›

    def prompt(self) -> str | None:
        """Read up to the next prompt and return its line (plain text), or None at the end."""
        index = self.child.expect_exact([self.mark, pexpect.EOF])
        self.raw += self.child.before + (self.mark if index == 0 else "")
        if index == 1:
            return None
        return plain(self.raw).rsplit("\n", 1)[-1]

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def since(self, marker: str) -> str:
        """The raw output after the last ``marker``."""
        return self.raw.rsplit(marker, 1)[-1]

    def close(self) -> int:
        self.child.expect(pexpect.EOF, timeout=60)
        self.raw += self.child.before
        self.child.close()
        status: int | None = self.child.exitstatus
        assert status is not None, f"killed by signal {self.child.signalstatus}"
        return status


def first_choice(prompt: str) -> str:
    """An answer that is always legal: Enter, position 1, the first menu entry or seat."""
    if "press Enter" in prompt or "Press Enter" in prompt:
        return ""
    seats = re.search(r"seat number \((\d+)", prompt)
    if seats:
        return seats.group(1)
    return "1"


def play_out(
    player: Player,
    pending: str | None = None,
    answer: Callable[[str], str] = first_choice,
    limit: int = 800,
) -> int:
    """Answer every prompt (``pending``: one already read) to the end; the exit status."""
    prompt = pending
    for _ in range(limit):
        if prompt is not None:
            player.send(answer(prompt))
        prompt = player.prompt()
        if prompt is None:
            return player.close()
    raise AssertionError("the game did not end")


def test_a_whole_game_with_every_key(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    player = Player(
        "--players", "3", "--bots", "random", "--seed", "5", "--bot-seed", "1",
        "--hint-budget", "30", "--save", str(save),
    )  # fmt: skip
    prompt = player.prompt()
    assert "pick a donut" in (prompt or "")
    for key, expected in [
        ("?", "Keys at every prompt"),
        ("? eclair", "In notation: eclair"),
        ("? bear claw", "Take a card from an opponent."),
        ("? banana", "No card called 'banana'"),
        ("h", "Recommended: pick"),
        ("l", "Log: the last round and this one"),
        ("t", "Deck: "),
        ("9", "Type a position from 1 to 4"),
    ]:
        mark = len(player.raw)
        player.send(key)
        prompt = player.prompt()
        assert "pick a donut" in (prompt or "")
        assert expected in plain(player.raw[mark:]), key
    assert "green •• 2+" in plain(player.raw)  # the legend of colours and dots
    assert play_out(player, prompt) == 0
    out = plain(player.raw)
    assert "Game over" in out and "Final scores" in out
    assert f"Record saved: {save}" in out.replace("\n", "")
    assert Record.from_json(save.read_text()).replay().is_over


def test_hot_seat_hand_over_leaves_no_pick_on_screen_or_in_scrollback(tmp_path: Path) -> None:
    save = tmp_path / "hot.json"
    player = Player(
        "--players", "3", "--humans", "2", "--names", "Ana,Ben", "--bots", "random",
        "--seed", "3", "--bot-seed", "2", "--save", str(save),
    )  # fmt: skip
    prompt = player.prompt() or ""
    assert "Ana, press Enter" in prompt
    assert ALT_ON in player.raw  # the alternate screen keeps no scrollback
    mark = len(player.raw)
    player.send("?")  # ? works at the hand-over prompt too
    assert "Ana, press Enter" in (player.prompt() or "")
    assert "Keys at every prompt" in plain(player.raw[mark:])
    player.send("")
    assert "Ana, pick a donut" in (player.prompt() or "")
    player.send("2")
    assert "Ben, press Enter" in (player.prompt() or "")
    # Ana's pick was erased, scrollback included, before Ben was called to the keyboard.
    before_ben = player.raw.rsplit("Pass the keyboard to Ben", 1)[0]
    assert CLEAR_ALL in before_ben.rsplit("Ana, pick a donut", 1)[1]
    player.send("")
    assert "Ben, pick a donut" in (player.prompt() or "")
    visible = plain(player.since(CLEAR_ALL))  # everything on screen and in the scrollback
    assert "Ana, pick a donut" not in visible and "◀" not in visible
    assert "0 Ana" in visible and "✓" in visible  # Ana's row: chosen, not what
    player.send("1")
    prompt = player.prompt() or ""
    assert "Everyone may look. Press Enter" in prompt  # the round's result waits for Enter
    result = plain(player.since(CLEAR_ALL))
    assert re.search(r"Picks revealed: Ana 2, Ben 1, Bot 2 \(random\) \d", result)
    player.send("")
    prompt = player.prompt() or ""
    assert "press Enter when the others cannot see" in prompt
    player.send("q")  # q works at the hand-over prompt
    assert player.close() == 0  # quitting on purpose is a success
    after = plain(player.since(ALT_OFF))
    assert "You left the game." in after and "Record saved" in after
    record = Record.from_json(save.read_text())
    assert [a.action for a in record.actions[:1]] and not record.replay().is_over
    assert {"player": 0, "action": "pick 2"} in [a.to_json() for a in record.actions]


def test_ctrl_c_saves_and_resume_finishes_the_game(tmp_path: Path) -> None:
    save = tmp_path / "partial.json"
    player = Player(
        "--players", "3", "--bots", "random", "--seed", "7", "--bot-seed", "3",
        "--save", str(save),
    )  # fmt: skip
    assert "pick a donut" in (player.prompt() or "")
    player.send("3")
    assert player.prompt() is not None
    player.child.sendintr()
    assert player.close() == 130
    out = plain(player.raw).replace("\n", "")
    assert "Interrupted (Ctrl-C)" in out and f"Record saved: {save}" in out
    assert f"gonuts play --resume {save}" in out
    saved = json.loads(save.read_text())
    assert saved["seats"] == ["human", "random", "random"]
    assert {"player": 0, "action": "pick 3"} in saved["actions"]
    assert not Record.from_json(save.read_text()).replay().is_over

    resumed = Player("--resume", str(save))
    assert play_out(resumed) == 0
    assert "Resuming" in plain(resumed.raw)
    final = Record.from_json(save.read_text())  # saved again into the resumed file
    assert final.replay().is_over
    assert [a.to_json() for a in final.actions[: len(saved["actions"])]] == saved["actions"]


def test_small_terminal_keeps_the_row_and_the_prompt_on_screen(tmp_path: Path) -> None:
    player = Player(
        "--players", "6", "--bots", "random", "--seed", "1", "--no-save", rows=20, cols=60
    )  # fmt: skip
    prompt = player.prompt() or ""
    assert "pick a donut: position 1–7" in prompt
    screen = plain(player.raw).split("Go Nuts for Donuts — round 1")[-1].split("\n")
    assert len(screen) <= 20, "\n".join(screen)
    assert max(map(len, screen)) <= 60
    rows = [line for line in screen if re.match(r"\s*[1-7]  \S", line)]
    assert len(rows) == 7, "\n".join(screen)  # every row position is listed
    player.send("q")
    assert player.close() == 0


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_plain_terminals_and_markup_names(encoding: str) -> None:
    player = Player(
        "--players", "2", "--humans", "2", "--names", "a[/b],[red]x[/red]", "--seed", "4",
        "--no-save", encoding=encoding,
    )  # fmt: skip
    assert play_out(player) == 0
    out = plain(player.raw)
    assert "Pass the keyboard to a[/b]" in out and "[red]x[/red] and a[/b]" not in out
    assert "Traceback" not in out and "Final scores" in out
    assert re.search(r"(a\[/b\]|\[red\]x\[/red\])( and .*)? (wins|share the victory)!", out)
    if encoding == "ascii":
        assert out.isascii() and "Final scores" in out
