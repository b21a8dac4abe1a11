"""Every command's contract with users and scripts: one error style, complete help, shell
completion, missing extras, JSON on stdout only, interrupted arenas, bounds on numbers, names
as text, plain terminals, and the play screen's choices and wording."""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from gonuts.actions import Action
from gonuts.bots import RandomBot
from gonuts.bots.arena import GameResult
from gonuts.bots.hint import Hint
from gonuts.bots.mcts import ActionEstimate
from gonuts.cards import KIND_BY_ID
from gonuts.cli import COMMANDS, main
from gonuts.cli.arena import collect
from gonuts.cli.play import TerminalGame
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.record import Record
from gonuts.render import (
    a_card,
    describe_action,
    describe_event,
    find_kind,
    hint_table,
    join_names,
    points_text,
    table_renderable,
)
from gonuts.state import Phase

RECORDS = Path(__file__).parent.parent / "records"
MARKUP_NAMES = ["a[/b]", "[red]x[/red]", "[bold"]


def gonuts(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gonuts", *args],
        input=stdin.decode() if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, **(env or {})},
        encoding="utf-8",
        errors="replace",
    )


def markup_record(tmp_path: Path, *, finished: bool) -> Path:
    game = Game.new(MARKUP_NAMES, seed=11)
    bots = [RandomBot(i) for i in range(3)]
    steps = 10_000 if finished else 7
    while not game.is_over and steps:
        for seat in game.to_act:
            if seat in game.to_act:
                game.apply(seat, bots[seat].choose(game.view(seat)))
        steps -= 1
    path = tmp_path / "markup.json"
    path.write_text(Record.from_game(game).to_json(), encoding="utf-8")
    return path


# -- one error style, help, completion ----------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_every_usage_error_is_one_line_gonuts_cmd_message(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--no-such-option"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"gonuts {command}: ") and err.count("\n") == 1, err
    assert "usage:" not in err


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_complete(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "%%" not in out and "%(" not in out
    assert "default" in out or command == "completion"


def test_play_help_names_the_keys_and_the_save_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for needle in ("? NAME", " q ", " h ", " l ", "Ctrl-C", "gonuts/games", "--resume",
                   "numbered from 0", "easy", "hard", "(default 3)", "(default 1)"):  # fmt: skip
        assert needle in out, needle
    assert main(["arena", "--help"]) == 0
    out = capsys.readouterr().out
    assert "95% CI" in out and "(default 0)" in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for word in ("play", "replay", "arena", "--upto", "--difficulty", "--resume"):
        assert word in script, word
    if shell == "bash":
        check = subprocess.run(
            ["bash", "-n"], input=script, text=True, capture_output=True, check=False
        )
        assert check.returncode == 0, check.stderr


def test_completion_refuses_other_shells(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "cmd.exe"]) == 2
    assert capsys.readouterr().err.startswith("gonuts completion: ")


# -- missing optional extras: one line, status 2 -------------------------------------------------

BLOCK = (
    "import sys\n"
    "for name in {names!r}: sys.modules[name] = None\n"
    "from gonuts.cli import main\n"
    "sys.exit(main({argv!r}))\n"
)
WEB = ["fastapi", "uvicorn", "sqlalchemy", "alembic", "psycopg", "prometheus_client", "httpx",
       "websockets"]  # fmt: skip
RESEARCH = ["numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel", "matplotlib"]


@pytest.mark.parametrize(
    ("names", "argv", "extra"),
    [
        (WEB, ["serve"], "web"),
        (WEB, ["loadtest", "--clients", "2", "--duration", "1"], "web"),
        (["ray"], ["arena", "--players", "2", "--bots", "random", "--games", "1", "--ray"], "ray"),
    ],
)
def test_a_missing_extra_is_named_in_one_line(
    names: list[str], argv: list[str], extra: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", BLOCK.format(names=names, argv=argv)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"gonuts {argv[0]}: needs the '{extra}' extra: pip install 'gonuts[{extra}]'\n"
    )


def test_the_core_commands_run_without_any_extra(tmp_path: Path) -> None:
    record = RECORDS / "complete-3p.json"
    save = tmp_path / "g.json"
    for argv in (
        ["replay", str(record), "--json"],
        ["hint", str(RECORDS / "pending-french-cruller-3p.json"), "--player", "0",
         "--budget", "20"],
        ["play", "--humans", "0", "--bots", "random", "--seed", "1", "--save", str(save)],
        ["arena", "--players", "2", "--bots", "random", "--games", "2", "--quiet"],
        ["completion", "bash"],
    ):  # fmt: skip
        result = subprocess.run(
            [sys.executable, "-c", BLOCK.format(names=[*WEB, *RESEARCH, "jax", "ray"], argv=argv)],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert result.returncode == 0, (argv, result.stderr)


# -- arena: JSON on stdout only, seconds per decision, interruption -----------------------------


def test_arena_json_on_stdout_is_only_json() -> None:
    result = gonuts("arena", "--players", "2", "--bots", "greedy,random", "--games", "2",
                    "--quiet", "--json", "-")  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)  # the whole of stdout
    assert data["games"] == 2
    for bot in data["bots"]:
        assert bot["seconds_per_decision"] > 0
    assert "Arena: 2 games" in result.stderr  # the table went to stderr


def test_collect_keeps_the_games_finished_before_ctrl_c() -> None:
    def source() -> Iterator[GameResult]:
        yield GameResult(0, 0, ("a", "b"), (3, 1), (2, 2), (0,))
        yield GameResult(1, 1, ("b", "a"), (1, 3), (2, 2), (1,))
        raise KeyboardInterrupt

    marks: list[bool] = []
    console = Console(file=io.StringIO())
    results = collect(source(), 5, console, quiet=True, save_dir=None, interrupted=marks)
    assert results is not None and [r.index for r in results] == [0, 1] and marks == [True]


def test_an_interrupted_arena_prints_the_summary_of_the_games_finished(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gonuts", "arena", "--players", "2", "--bots", "random",
         "--games", "1000000", "--quiet", "--json", "-", "--save", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("*.json"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)  # the games are under way
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()  # a failed test leaves no million-game arena behind
    assert process.returncode == 130, err
    data = json.loads(out)
    assert 1 <= data["games"] < 1_000_000
    assert f"interrupted after {data['games']} of 1000000 games" in err
    assert "Traceback" not in err


# -- numbers, bounds, names, saving -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["replay", str(RECORDS / "complete-2p.json"), "--upto", "-1"], "--upto"),
        (["replay", str(RECORDS / "complete-2p.json"), "--upto", "100000"], "has only"),
        (["play", "--delay", "-1", "--no-save"], "--delay"),
        (["play", "--delay", "nan", "--no-save"], "--delay"),
        (["play", "--players", "-3", "--no-save"], "--players"),
        (["play", "--hint-budget", "0", "--no-save"], "--hint-budget"),
        (["bench", "--seconds", "-1"], "--seconds"),
        (["arena", "--players", "2", "--bots", "random", "--games", "-2"], "--games"),
        (["hint", str(RECORDS / "complete-2p.json"), "--player", "-1"], "--player"),
        (["play", "--names", "Ana,ana", "--humans", "2", "--no-save"], "different name"),
        (["play", "--names", "Ana,Bot 2 (medium)", "--humans", "2", "--no-save"], "different"),
    ],
)
def test_bad_numbers_and_names_are_refused(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"gonuts {argv[0]}: ") and err.count("\n") == 1
    assert needle in err


def test_replay_upto_the_end_is_fine(capsys: pytest.CaptureFixture[str]) -> None:
    path = RECORDS / "complete-2p.json"
    n = len(Record.from_json(path.read_text()).actions)
    assert main(["replay", str(path), "--upto", str(n), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["over"] is True
    assert main(["replay", str(path), "--upto", "0", "--json"]) == 0


def test_a_bad_save_path_is_refused_before_the_game(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = [(blocker, "the file exists"), (blocker / "g.json", "cannot create")]
    if Path("/proc/self").is_dir():  # a folder where even root cannot create a file
        cases.append((Path("/proc/gonuts-record.json"), "cannot write in /proc"))
    for path, needle in cases:
        result = gonuts("play", "--save", str(path), stdin=b"1\n" * 50)
        assert result.returncode == 2
        assert result.stdout == ""  # no game was shown
        assert result.stderr.startswith("gonuts play: --save") and needle in result.stderr


def test_quitting_on_purpose_exits_0_and_saves(tmp_path: Path) -> None:
    save = tmp_path / "q.json"
    result = gonuts("play", "--difficulty", "easy", "--seed", "2", "--save", str(save),
                    stdin=b"2\nq\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "You left the game." in result.stdout and "--resume" in result.stdout
    record = json.loads(save.read_text())
    assert record["seats"] == ["human", "easy", "easy"]
    assert {"player": 0, "action": "pick 2"} in record["actions"]


def test_resume_refuses_new_players_and_finished_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--resume", str(RECORDS / "complete-3p.json"), "--players", "3"]) == 2
    assert "--resume takes the players from the record" in capsys.readouterr().err
    finished = tmp_path / "done.json"
    record = json.loads((RECORDS / "complete-3p.json").read_text())
    finished.write_text(json.dumps({**record, "seats": ["human", "random", "random"]}))
    assert main(["play", "--resume", str(finished)]) == 2
    assert "already over" in capsys.readouterr().err
    assert main(["play", "--resume", str(RECORDS / "complete-3p.json")]) == 2
    assert "not saved by gonuts play" in capsys.readouterr().err


@pytest.mark.parametrize("encoding", ["utf-8", "ascii", "latin-1"])
def test_markup_names_replay_and_hint_as_text(encoding: str, tmp_path: Path) -> None:
    env = {"PYTHONIOENCODING": encoding}
    done = markup_record(tmp_path, finished=True)
    result = gonuts("replay", str(done), "--log", env=env)
    assert result.returncode == 0, result.stderr
    for name in MARKUP_NAMES:
        assert name in result.stdout
    assert "Traceback" not in result.stderr
    running = markup_record(tmp_path, finished=False)
    game = Record.from_json(running.read_text()).replay()
    seat = game.to_act[0]
    result = gonuts("hint", str(running), "--player", str(seat), "--budget", "30", env=env)
    assert result.returncode == 0, result.stderr
    assert MARKUP_NAMES[seat] in result.stdout and "Recommended:" in result.stdout


def test_plain_terminal_play_does_not_crash(tmp_path: Path) -> None:
    result = gonuts("play", "--players", "4", "--humans", "2", "--names", "Élodie,[b]Zoë",
                    "--bots", "random", "--seed", "8", "--no-save", stdin=b"1\n" * 600,
                    env={"PYTHONIOENCODING": "ascii"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.isascii() and "Elodie" in result.stdout and "[b]Zoe" in result.stdout


# -- the play screen: two-step choices, seats, wording -----------------------------------------


def two_step_game() -> tuple[Game, int]:
    """A 4-player game at a Sprinkled or Bear Claw choice with at least two opponents."""
    for seed in range(400):
        game = Game.new(4, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            if game.phase in (Phase.SPRINKLED, Phase.BEAR_CLAW):
                (actor,) = game.to_act
                if len({a.seat for a in game.legal_actions(actor)}) >= 2:
                    return game, actor
            for seat in game.to_act:
                if seat in game.to_act:
                    game.apply(seat, rng.choice(game.legal_actions(seat)))
    raise AssertionError("no such game in 400 seeds")


def scripted(game: Game, seat: int, answers: list[str]) -> tuple[TerminalGame, io.StringIO]:
    out = io.StringIO()
    seats = [None if s == seat else RandomBot(s) for s in range(game.num_players)]
    session = TerminalGame(Console(file=out, width=100, height=40), game, seats)
    feed = iter(answers)
    session.read = lambda prompt: next(feed)  # type: ignore[method-assign]
    return session, out


def test_sprinkled_and_bear_claw_ask_whom_then_which_card() -> None:
    game, actor = two_step_game()
    view = game.view(actor)
    targets = sorted({a.seat for a in view.legal if a.seat is not None})
    first, last = targets[0], targets[-1]
    options = [a for a in view.legal if a.seat == last]
    answers = ["9", str(first), "b", "Nobody", view.players[last], str(len(options))]
    if len([a for a in view.legal if a.seat == first]) == 1:
        answers.remove("b")  # one card: the first seat's answer is final
        answers = ["9", view.players[last], str(len(options))]
    session, out = scripted(game, actor, answers)
    action = session.ask(view)
    text = out.getvalue()
    assert action.seat == last and action in view.legal
    if len(options) > 1:
        assert action is options[-1]
    assert "whom?" in text.lower() and "Type one of the seat numbers" in text
    assert f"  {first}) {view.players[first]}" in text  # seats as the notation numbers them


def test_a_seat_choice_accepts_the_full_notation() -> None:
    game, actor = two_step_game()
    view = game.view(actor)
    target = view.legal[-1]
    session, _ = scripted(game, actor, [target.notation])
    assert session.ask(view) is target


def test_hint_key_and_unknown_hint_moments() -> None:
    game = Game.new(["Ana", "Ben", "Cy"], seed=3)
    session, out = scripted(game, 0, ["h", "2"])
    session.hint_budget = 20
    assert session.ask(game.view(0)).notation == "pick 2"
    assert "Recommended: pick" in out.getvalue()
    session.show_hint(None)
    assert "no decision to hint" in out.getvalue()


def test_wording() -> None:
    assert a_card("eclair") == "an Éclair" and a_card("old_fashioned") == "an Old Fashioned"
    assert a_card("glazed") == "a Glazed"
    assert points_text(KIND_BY_ID["cinnamon_twist"]) == "1 pt"
    assert points_text(KIND_BY_ID["glazed"]) == "2 pts"
    assert points_text(KIND_BY_ID["bear_claw"]) == "−2 pts"
    assert join_names(["A", "B", "C"]) == "A, B and C" and join_names(["A", "B"]) == "A and B"
    names = ["Ana", "Ben", "Cy"]
    contested = Event(EventType.CARD_CONTESTED, card="glazed", position=2, players=(0, 1, 2))
    assert describe_event(contested, names).plain.startswith("Ana, Ben and Cy chose position 2")
    moved = Event(EventType.CARD_MOVED, player=0, other=2, card="eclair", source="bear_claw")
    assert describe_event(moved, names).plain == "Bear Claw: An Éclair moves from Ana to Cy."
    drawn = Event(EventType.CARD_DRAWN, player=1, card="eclair", source="chocolate_frosted")
    line = describe_event(drawn, names).plain
    assert line == "Chocolate Frosted: Ben draws an Éclair from the deck."
    assert line.count("Chocolate Frosted") == 1
    take = Action.parse("take eclair from 2")
    assert describe_action(take, names) == "Take an Éclair from Cy (seat 2)"
    assert find_kind("bear claw") == "bear_claw" and find_kind("ECLAIR") == "eclair"
    assert find_kind("maple") is None  # Maple Bar or Maple Frosted


def test_the_table_numbers_seats_like_the_notation() -> None:
    game = Game.new(["Ana", "Ben", "[red]Cy"], seed=1)
    out = io.StringIO()
    Console(file=out, width=120).print(table_renderable(game.view(0)))
    text = out.getvalue()
    assert "0 Ana" in text and "1 Ben" in text and "2 [red]Cy" in text


def test_compact_table_fits_sixty_by_twenty() -> None:
    game = Game.new(6, seed=2)
    out = io.StringIO()
    Console(file=out, width=60).print(table_renderable(game.view(0), compact=True))
    lines = out.getvalue().splitlines()
    assert len(lines) <= 18 and max(len(line) for line in lines) <= 60


# -- hint: when the recommendation is not the highest win probability --------------------------


def test_hint_explains_a_mixed_strategy() -> None:
    a, b = Action.parse("pick 1"), Action.parse("pick 2")
    mixed = Hint(
        seat=0,
        recommended=a,
        estimates=(ActionEstimate(a, 60, 0.30, 10.0, 0.7), ActionEstimate(b, 40, 0.35, 11.0, 0.3)),
        iterations=100,
        seconds=0.1,
        simultaneous=True,
    )
    assert mixed.highest_win_probability is b
    assert mixed.explanation is not None and "mixed strategy" in mixed.explanation
    data = mixed.to_dict()
    assert data["highest_win_probability"] == "pick 2" and "mixed" in data["explanation"]
    plain = Hint(0, a, (ActionEstimate(a, 60, 0.4, 10.0, 1.0), ActionEstimate(b, 40, 0.3, 9, 0)),
                 100, 0.1, False)  # fmt: skip
    assert plain.explanation is None and plain.to_dict()["explanation"] is None
    out = io.StringIO()
    Console(file=out, width=120).print(hint_table(mixed, ["Ana", "Ben"]))
    assert "mixed strategy" in " ".join(out.getvalue().split())
    assert "play it" in out.getvalue()


# -- house-rule variants ------------------------------------------------------------------------


def test_play_and_resume_keep_the_variants(tmp_path: Path) -> None:
    save = tmp_path / "v.json"
    result = gonuts("play", "--variant", "twist_pass_any", "--variant", "sprinkled_any_card",
                    "--bots", "random", "--seed", "4", "--save", str(save),
                    stdin=b"1\nq\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "House rules: sprinkled_any_card, twist_pass_any" in result.stdout
    record = json.loads(save.read_text())
    assert record["variants"] == ["sprinkled_any_card", "twist_pass_any"]
    resumed = gonuts("play", "--resume", str(save), stdin=b"1\n" * 600)
    assert resumed.returncode == 0, resumed.stderr
    final = Record.from_json(save.read_text())
    assert final.variants == ("sprinkled_any_card", "twist_pass_any")
    assert final.replay().is_over
    refused = gonuts("play", "--resume", str(save), "--variant", "milk_any_three")
    assert refused.returncode == 2 and "--variant" in refused.stderr


def test_arena_plays_every_game_with_the_variants(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    code = main(["arena", "--players", "3", "--bots", "greedy,random,random", "--games", "3",
                 "--variant", "milk_any_three", "--save", str(tmp_path / "games"),
                 "--json", str(out), "--quiet"])  # fmt: skip
    assert code == 0
    assert json.loads(out.read_text())["variants"] == ["milk_any_three"]
    games = sorted((tmp_path / "games").glob("*.json"))
    assert len(games) == 3
    for path in games:
        record = Record.from_json(path.read_text())
        assert record.variants == ("milk_any_three",) and record.replay().is_over


def test_a_command_module_that_needs_an_extra_is_listed_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.import_module

    def fake(name: str) -> object:
        if name == "gonuts.cli.analyze":
            raise ModuleNotFoundError("No module named 'numpy'", name="numpy")
        return real(name)

    monkeypatch.setattr(importlib, "import_module", fake)
    assert main(["--help"]) == 0
    assert "needs the 'research' extra" in " ".join(capsys.readouterr().out.split())
    assert main(["analyze", "--games", "5"]) == 2
    assert capsys.readouterr().err == (
        "gonuts analyze: needs the 'research' extra: pip install 'gonuts[research]'\n"
    )


def test_an_unexpected_import_error_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "shtab", None)
    monkeypatch.delenv("GONUTS_DEBUG", raising=False)
    assert main(["completion", "bash"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gonuts completion: internal error: ") and err.count("\n") == 1


def test_bench_seconds_reads_as_per_player_count(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 31: ``--seconds`` is the time of each player count, and the help says so."""
    assert main(["bench", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "seconds of play for EACH player count, not in all" in help_text
    assert main(["bench", "--players", "2,3", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "seconds (this" in out  # the column names what its seconds are
