"""``gonuts review RECORD``: every decision of a game judged from the deciding seat's view."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from gonuts.cli.completion import file_argument
from gonuts.cli.errors import fail as _fail
from gonuts.cli.replay import RecordFileError, load_record
from gonuts.errors import RecordError
from gonuts.record import Record
from gonuts.render import seat_label

if TYPE_CHECKING:
    from gonuts.review import Analyser, Review

EXIT_USAGE = 2
LABEL_STYLES = {
    "best": "bold green",
    "excellent": "green",
    "good": "cyan",
    "inaccuracy": "yellow",
    "mistake": "dark_orange",
    "blunder": "bold red",
}
SHORT_LABELS = {
    "best": "best",
    "excellent": "excel.",
    "good": "good",
    "inaccuracy": "inacc.",
    "mistake": "mist.",
    "blunder": "blund.",
}
DEFAULT_BOT = "neural-mixed:512"
"""Kept equal to :data:`gonuts.review.DEFAULT_ANALYSER` (a test checks), without importing the
analyser (NumPy) to build the parser."""


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "review",
        help="judge every decision of a game record: labels, accuracy, win-probability graph",
        description="Replay a gonuts-record/1 file (or - for standard input) and judge every "
        "decision of more than one legal action from the deciding seat's own view at that "
        "moment (no peeking at the deck or at simultaneous picks): the win probability of the "
        "action taken and of the analyser's best, the loss, a label (best, excellent, good, "
        "inaccuracy, mistake, blunder), each seat's accuracy (0-100) and the rounds where its "
        "chances moved most. Deterministic for a --seed. A bad record exits with status 2 and "
        "one line on stderr. See docs/review.md.",
    )
    file_argument(p.add_argument("file", help="record file, or - for standard input"))
    p.add_argument(
        "--bot",
        default=DEFAULT_BOT,
        metavar="ANALYSER",
        help="the analyser and its budget per decision: neural-mixed:N (N determinized "
        "samples, the network's one-round look-ahead, half the others' picks as greedy makes "
        "them: the judge that orders the bots' levels); neural:N (the others pick from the "
        "network), neural-greedy:N, neural2:N, rollout:N, search:N (the other judges tried "
        "for validity); mcts:N or neural-mcts:N (the bots' searches, N iterations) "
        f"(default {DEFAULT_BOT}: labels 90%% stable; neural-mixed:128 is four times faster)",
    )
    p.add_argument(
        "--budget",
        type=int,
        metavar="N",
        help="the budget per decision for the analyser of --bot (samples or iterations), "
        "instead of the one it names",
    )
    p.add_argument(
        "--players-only",
        metavar="S,…",
        help="judge only these seats (comma-separated, from 0 as in the record notation)",
    )
    file_argument(
        p.add_argument(
            "--json",
            metavar="FILE",
            help="write the review as JSON to FILE ('-': standard output, and no table)",
        )
    )
    p.add_argument("--seed", type=int, default=0, help="analyser seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def fail(message: str) -> int:
    return _fail("review", message, EXIT_USAGE)


def parse_seats(text: str, players: int) -> list[int]:
    """``"0,2"`` → ``[0, 2]``; ``ValueError`` for anything else or a seat out of range."""
    seats: list[int] = []
    for item in text.split(","):
        part = item.strip()
        if not part.isdigit():
            raise ValueError(f"--players-only: {part!r} is not a seat number")
        seat = int(part)
        if seat >= players:
            raise ValueError(f"--players-only: no seat {seat} in this {players}-player game")
        seats.append(seat)
    return seats


def run(args: argparse.Namespace) -> int:
    from gonuts.review import ReviewCancelledError, parse_analyser  # noqa: PLC0415

    try:
        analyser = parse_analyser(args.bot)
        if args.budget is not None:
            analyser = parse_analyser(f"{analyser.kind}:{args.budget}")
    except ValueError as exc:
        return fail(str(exc))
    try:
        record = load_record(args.file)
        record.replay(events=False)
    except (RecordFileError, RecordError) as exc:
        return fail(str(exc))
    seats = None
    if args.players_only is not None:
        try:
            seats = parse_seats(args.players_only, len(record.players))
        except ValueError as exc:
            return fail(str(exc))
    to_stdout = args.json == "-"
    err = Console(stderr=True, highlight=False)
    show_progress = not args.quiet and not to_stdout and err.is_terminal
    start = time.perf_counter()
    try:
        review = _review(
            record, analyser, seed=args.seed, seats=seats, console=err, show=show_progress
        )
    except ReviewCancelledError:  # pragma: no cover - the CLI never cancels
        return fail("cancelled")
    seconds = time.perf_counter() - start
    if args.json is not None:
        text = json.dumps(review.to_dict(), ensure_ascii=False, indent=1) + "\n"
        if to_stdout:
            sys.stdout.write(text)
            return 0
        try:
            Path(args.json).write_text(text, encoding="utf-8")
        except OSError as exc:
            return _fail("review", f"cannot write {args.json}: {exc.strerror or exc}", 1)
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=120)
    out.print(review_renderable(review, seconds))
    return 0


def _review(
    record: Record,
    analyser: Analyser,
    *,
    seed: int,
    seats: Sequence[int] | None,
    console: Console,
    show: bool,
) -> Review:
    from gonuts.review import review_record  # noqa: PLC0415 - NumPy only when reviewing

    progress = Progress(
        TextColumn("[bold]review"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("decisions"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not show,
    )
    with progress:
        task = progress.add_task("decisions", total=None)

        def report(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return review_record(record, analyser=analyser, seed=seed, seats=seats, progress=report)


# -- the text report ---------------------------------------------------------------------------


def label_text(label: str) -> Text:
    style = next((LABEL_STYLES[k] for k, v in SHORT_LABELS.items() if v == label), "")
    return Text(label, style=LABEL_STYLES.get(label, style))


def review_renderable(review: Review, seconds: float | None = None) -> RenderableType:
    """The whole report: the summary, one table per judged seat, and the key moments."""
    names = review.players
    parts: list[RenderableType] = []
    head = Text("Review of ", style="bold")
    head.append(", ".join(names))
    head.append(f" — analyser {review.analyser.spec}, seed {review.seed}", style="")
    if seconds is not None:
        head.append(f", {len(review.decisions)} decisions in {seconds:.1f} s", style="dim")
    parts.append(head)
    parts.append(summary_table(review))
    for seat in review.seats:
        parts.append(seat_table(review, seat))
    parts.append(key_moments(review))
    return Group(*parts)


def summary_table(review: Review) -> Table:
    from gonuts.review import LABELS  # noqa: PLC0415

    table = Table(title="Accuracy and labels per seat")
    table.add_column("seat", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("accuracy", justify="right")
    table.add_column("judged", justify="right")
    for name in LABELS:
        table.add_column(label_text(SHORT_LABELS[name]), justify="right")
    for seat in range(len(review.players)):
        label = seat_label(review.players, seat)
        if seat in review.winners:
            label.append(" 🏆")
        accuracy = review.accuracy(seat)
        counts = review.counts(seat)
        judged = seat in review.seats
        table.add_row(
            label,
            str(review.scores[seat]),
            "–" if accuracy is None else f"{accuracy:.1f}",
            str(len(review.seat_decisions(seat))) if judged else "no",
            *[str(counts[name]) if judged else "" for name in LABELS],
        )
    return table


def seat_table(review: Review, seat: int) -> Table:
    title = Text("Decisions of ")
    title.append_text(seat_label(review.players, seat))
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("round", justify="right")
    table.add_column("taken")
    table.add_column("win %", justify="right")
    table.add_column("best")
    table.add_column("best win %", justify="right")
    table.add_column("loss", justify="right")
    table.add_column("label")
    for d in review.seat_decisions(seat):
        same = d.best == d.action
        table.add_row(
            str(d.index),
            str(d.round),
            d.action,
            f"{d.win_prob:.1%}",
            "=" if same else d.best,
            "" if same else f"{d.best_win_prob:.1%}",
            f"{d.loss * 100:.1f}",
            label_text(d.label),
        )
    return table


def key_moments(review: Review) -> RenderableType:
    """Per judged seat: the rounds its chances moved most, and its worst decisions."""
    lines: list[RenderableType] = [Text("Key moments", style="bold underline")]
    for seat in review.seats:
        line = seat_label(review.players, seat)
        line.append(": ")
        turns = review.turning_points(seat)
        if turns:
            line.append("chances moved most in ")
            line.append(", ".join(f"round {t.round} ({t.change * 100:+.0f} points)" for t in turns))
        worst = sorted(
            (d for d in review.seat_decisions(seat) if d.label in ("mistake", "blunder")),
            key=lambda d: -d.loss,
        )[:3]
        if worst:
            line.append("; worst: ")
            for i, d in enumerate(worst):
                if i:
                    line.append(", ")
                line.append(f"round {d.round} {d.action} (best {d.best}, ")
                line.append_text(label_text(d.label))
                line.append(f" −{d.loss * 100:.0f})")
        elif review.seat_decisions(seat):
            line.append("; no mistake or blunder")
        lines.append(line)
    return Group(*lines)
