"""Issue 31 at the terminal: names from a record someone sent cannot drive the terminal, a
60×20 terminal keeps the position numbers you type, ASCII terminals keep tables aligned,
and the small wordings (help, hints, the card reference, declined powers)."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from rich.console import Console

from gonuts.actions import Action
from gonuts.bots import RandomBot
from gonuts.bots.arena import wilson
from gonuts.bots.hint import Hint
from gonuts.bots.mcts import ActionEstimate
from gonuts.cli import main
from gonuts.cli.session import TerminalGame
from gonuts.game import Game
from gonuts.record import Record
from gonuts.render import card_panel, display_names, hint_table, printable
from gonuts.view import PlayerView

from .test_play_pty import Player, plain, play_out

EVIL = "\x1b]0;PWNED\x07\x1b[2J"


def evil_record(tmp_path: Path, names: list[str]) -> Path:
    game = Game.new(names, seed=4)
    game.apply(0, "pick 1")
    path = tmp_path / "esc.json"
    path.write_text(Record.from_game(game).to_json(), encoding="utf-8")
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gonuts", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_printable_escapes_every_control_character() -> None:
    assert printable(EVIL) == "\\x1b]0;PWNED\\x07\\x1b[2J"
    assert printable("a\u202eb\x85c\u2028") == "a\\u202eb\\x85c\\u2028"
    assert printable("Éclair ★ 李") == "Éclair ★ 李"
    assert display_names(["Ana", "ana", "Ben"]) == ("Ana (seat 0)", "ana (seat 1)", "Ben")


def test_replay_shows_control_characters_escaped(tmp_path: Path) -> None:
    path = evil_record(tmp_path, [EVIL, "Ben", "a\x1b[31mred"])
    result = run("replay", str(path), "--log")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b]0;PWNED\\x07\\x1b[2J" in result.stdout and "a\\x1b[31mred" in result.stdout
    data = json.loads(run("replay", str(path), "--json").stdout)
    assert data["players"][0] == EVIL  # the JSON keeps the name exactly (escaped by JSON)


def test_replay_in_a_terminal_never_sends_the_names_escape_sequences(tmp_path: Path) -> None:
    path = evil_record(tmp_path, [EVIL, "Ben", "Cy"])
    child = pexpect.spawn(
        sys.executable, ["-m", "gonuts", "replay", str(path)], dimensions=(20, 60),
        encoding="utf-8", timeout=60,
    )  # fmt: skip
    child.expect(pexpect.EOF)
    out = child.before
    assert "\x1b]0;" not in out and "\x07" not in out and "\x1b[2J" not in out
    assert "PWNED" in out


def test_replay_tells_duplicate_names_apart(tmp_path: Path) -> None:
    path = evil_record(tmp_path, ["Ana", "Ana", "Cy"])
    out = run("replay", str(path)).stdout
    assert "Ana (seat 0)" in out and "Ana (seat 1)" in out


def test_play_refuses_control_characters_in_names_and_resume_of_such_a_record(
    tmp_path: Path,
) -> None:
    result = run("play", "--humans", "2", "--names", "a\x1b[31mred,Ben", "--no-save")
    assert result.returncode == 2 and result.stdout == ""
    assert "control character" in result.stderr and "\x1b" not in result.stderr
    path = evil_record(tmp_path, [EVIL, "Ben", "Cy"])
    data = json.loads(path.read_text())
    data["seats"] = ["human", "random", "random"]
    path.write_text(json.dumps(data))
    resumed = run("play", "--resume", str(path), "--no-save")
    assert resumed.returncode == 2 and "control characters" in resumed.stderr
    assert "\x1b" not in resumed.stderr


def test_sixty_by_twenty_keeps_the_position_numbers_from_round_one() -> None:
    player = Player(
        "--players", "3", "--bots", "random", "--seed", "1", "--no-save", rows=20, cols=60
    )  # fmt: skip
    assert "pick a donut" in (player.prompt() or "")
    screen = plain(player.raw).split("round 1")[-1].split("\n")
    rows = [line for line in screen if re.match(r"[1-4]  \S", line)]
    assert len(rows) == 4, "\n".join(screen)
    assert "Chocolate Frosted ★" in rows[0]  # the name whole, not "Chocolate Frosted…"
    assert max(map(len, screen)) <= 60
    mark = len(player.raw)
    player.send("?")
    player.prompt()
    help_lines = plain(player.raw[mark:]).split("\n")
    key_lines = [line for line in help_lines if re.match(r"\s*(\?|h|t|l|q)\s{2,}", line)]
    assert len(key_lines) >= 5  # the keys stay in their column: descriptions wrap beside them
    assert not [line for line in help_lines if line.startswith(("number, or the", "or '? bear"))]
    player.send("q")
    assert player.close() == 0


def test_ascii_terminal_tables_stay_aligned() -> None:
    player = Player(
        "--players", "3", "--bots", "random", "--seed", "1", "--no-save", encoding="ascii"
    )  # fmt: skip
    assert "pick a donut" in (player.prompt() or "")
    out = plain(player.raw)
    assert out.isascii()
    table = [line for line in out.split("\n") if re.match(r"\| (Seat|\d [A-Z])|\|-", line)]
    assert len(table) == 5 and len({len(line.rstrip()) for line in table}) == 1, "\n".join(table)
    columns = {tuple(i for i, c in enumerate(line) if c in "|+") for line in table}
    assert len(columns) == 1, "\n".join(table)  # every column border in the same place
    player.send("q")
    assert player.close() == 0


def test_the_sprinkled_power_ends_with_an_ellipsis_when_cut() -> None:
    out = io.StringIO()
    Console(file=out, width=100).print(card_panel("sprinkled", 1))
    text = out.getvalue()
    assert "…" in text
    body = " ".join(line.strip("│ ") for line in text.splitlines()[3:-1])
    assert body.endswith("…")


def test_hint_wording() -> None:
    a, b = Action.parse("pick 1"), Action.parse("pick 2")
    pure = Hint(
        seat=0,
        recommended=a,
        estimates=(ActionEstimate(a, 90, 0.30, 10.0, 1.0), ActionEstimate(b, 10, 0.35, 11.0, 0.0)),
        iterations=2160,
        seconds=0.1,
        simultaneous=True,
    )
    assert pure.explanation is not None and "mixed strategy" not in pure.explanation
    out = io.StringIO()
    Console(file=out, width=120).print(hint_table(pure, ["Ana", "Ben"]))
    text = out.getvalue()
    assert "2160 search iterations" in text and "simulations" not in text
    assert "★" not in text and "→ recommended" in text


def test_help_names_every_bot_and_the_variants_without_rules_md(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "neural-mcts" in text and "neural," in text
    assert "RULES.md" not in text and "--force" in text


def test_card_reference_says_when_a_card_is_not_in_this_deck() -> None:
    player = Player("--players", "3", "--bots", "random", "--seed", "1", "--no-save")
    player.prompt()
    mark = len(player.raw)
    player.send("? bear claw")
    player.prompt()
    assert "Not in this game's deck" in " ".join(plain(player.raw[mark:]).split())
    mark = len(player.raw)
    player.send("? glazed")
    player.prompt()
    assert "Not in this game's deck" not in plain(player.raw[mark:])
    player.send("q")
    assert player.close() == 0


def test_a_declined_power_gets_a_line() -> None:
    # Find a game where a bot holds a French Cruller decision and stops: every line shown.
    for seed in range(200):
        game = Game.new(2, seed=seed)
        out = io.StringIO()
        session = TerminalGame(
            Console(file=out, width=100), game, [RandomBot(seed), RandomBot(seed + 1)]
        )
        assert session.run() == "finished"
        stops = [(p, a) for p, a in game.actions_taken() if a.notation == "stop"]
        if stops:
            assert " stops the " in out.getvalue()
            return
    pytest.fail("no game with a declined power in 200 seeds")


def test_play_out_with_an_ascii_terminal_does_not_crash() -> None:
    player = Player(
        "--players", "2", "--bots", "random", "--seed", "3", "--no-save", encoding="ascii"
    )  # fmt: skip
    assert play_out(player) == 0


def test_the_arena_interval_is_wilson_and_unbalanced_seating_is_warned() -> None:
    lo, hi = wilson(0, 30)
    assert lo == 0.0 and 0.10 < hi < 0.12  # not ±0.0 % at 0 of 30 wins
    lo, hi = wilson(30, 30)
    assert 0.88 < lo < 0.90 and hi == pytest.approx(1.0)
    arena = ("arena", "--players", "2", "--bots", "greedy,random", "--seed", "1", "--games")
    uneven = run(*arena, "5")
    assert uneven.returncode == 0
    assert "not a multiple of 2 players" in uneven.stderr and "6 would balance" in uneven.stderr
    assert "(95% Wilson)" in uneven.stdout
    even = run(*arena, "4")
    assert "not a multiple" not in even.stderr


def test_ctrl_c_during_a_long_hint_cancels_the_hint_not_the_game() -> None:
    player = Player(
        "--players", "3", "--bots", "random", "--seed", "1", "--no-save",
        "--hint-budget", "100000000",
    )  # fmt: skip
    assert "pick a donut" in (player.prompt() or "")
    player.send("h")
    player.child.expect_exact("Ctrl-C cancels")
    player.child.sendintr()
    prompt = player.prompt() or ""
    assert "pick a donut" in prompt and "Hint cancelled." in plain(player.raw)
    player.send("1")
    assert player.prompt() is not None  # the game goes on
    player.send("q")
    assert player.close() == 0


class Decliner(TerminalGame):
    """People who stop every power they may stop (otherwise pick at random); Enter at every
    hand-over. ``log_after_stop``: press ``l`` right after each stop and keep what it shows."""

    def __init__(self, *args: object, log_after_stop: bool = False, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.rng = random.Random(31)
        self.log_after_stop = log_after_stop
        self.logs: list[tuple[int, str]] = []

    def read(self, prompt: str) -> str:
        return ""

    def ask(self, view: PlayerView) -> Action:
        legal = list(view.legal)
        stop = [a for a in legal if a.notation == "stop"]
        return stop[0] if stop else legal[int(self.rng.random() * len(legal))]

    def apply(self, seat: int, action: Action) -> None:
        super().apply(seat, action)
        if self.log_after_stop and action.notation == "stop":
            out = self.console.file
            assert isinstance(out, io.StringIO)
            mark = len(out.getvalue())
            self.show_log()
            self.logs.append((seat, out.getvalue()[mark:]))


def games_with_a_stop(humans: int) -> list[int]:
    """Seeds whose game, played by Decliner's people (and random bots), has a declined power."""
    found = []
    for seed in range(60):
        session = Decliner(
            Console(file=io.StringIO(), width=100),
            Game.new(3, seed=seed),
            [None] * humans + [RandomBot(seed)] * (3 - humans),
        )
        session.run()
        if any(a.notation == "stop" for _, a in session.game.actions_taken()):
            found.append(seed)
        if len(found) == 3:
            break
    assert found, "no game with a declined power in 60 seeds"
    return found


def test_hot_seat_results_screens_show_every_declined_power() -> None:
    for seed in games_with_a_stop(humans=3):
        out = io.StringIO()
        session = Decliner(Console(file=out, width=100), Game.new(3, seed=seed), [None] * 3)
        assert session.run() == "finished"
        stops = [p for p, a in session.game.actions_taken() if a.notation == "stop"]
        shown = [line for line in out.getvalue().splitlines() if " stops the " in line]
        names = session.game.players
        expected = sorted(f"• {names[p]} stops the French Cruller." for p in stops)
        assert sorted(line.strip() for line in shown) == expected
        assert stops


def test_the_log_shows_a_declined_power() -> None:
    for seed in games_with_a_stop(humans=1):
        out = io.StringIO()
        session = Decliner(
            Console(file=out, width=100),
            Game.new(3, seed=seed),
            [None, RandomBot(seed), RandomBot(seed + 1)],
            log_after_stop=True,
        )
        session.run()
        stops = [p for p, a in session.game.actions_taken() if a.notation == "stop"]
        assert [seat for seat, _ in session.logs] == stops
        for seat, log in session.logs:
            assert f"{session.game.players[seat]} stops the French Cruller." in log
