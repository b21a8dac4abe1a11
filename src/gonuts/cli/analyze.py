"""``gonuts analyze``: simulate many games and write summary.json and a report with plots."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from gonuts.analysis.run import run_tasks
from gonuts.analysis.simulate import Tally, make_tasks
from gonuts.analysis.summary import combine, summarize
from gonuts.bots.base import make_bot
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS
from gonuts.variants import VARIANTS, UnknownVariantError, check_variants, ordered

EXIT_USAGE = 2
TALLIES_FORMAT = "gonuts-analyze-tallies/1"
EXTRA_MESSAGE = "needs the 'research' extra: pip install 'gonuts[research]'"


def register(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "analyze",
        help="simulate many games; write summary.json and report.html with plots",
        description="Simulate --games games per player count (random play on the engine's fast "
        "path, or bots seated as in the arena) and write DIR/summary.json and DIR/report.html "
        "(seat advantage, card value, score and length distributions; with --variant, the "
        "default game side by side). Deterministic for a seed, whatever --jobs.",
    )
    p.add_argument("--players", default="2-6", help="player counts: 4, 2-6 or 3,5 (default 2-6)")
    p.add_argument("--games", type=int, help="games per player count (required unless --from)")
    p.add_argument(
        "--bots",
        default="random",
        help="bot for every seat (random, greedy, mcts:N, …), or one per seat comma-separated "
        "with a single player count (seats rotate as in the arena); default random",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help=f"house-rule variant, repeatable ({', '.join(VARIANTS)}); "
        "the default game is simulated too, for comparison",
    )
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="run on a Ray cluster (default: start a local one); needs pip install 'gonuts[ray]'",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--from",
        dest="sources",
        nargs="+",
        metavar="DIR",
        help="simulate nothing: merge the tallies.json of earlier --out folders (their games "
        "add up) and write the summary and report from them",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def fail(message: str) -> int:
    print(f"gonuts analyze: {message}", file=sys.stderr)
    return EXIT_USAGE


def parse_players(text: str) -> list[int]:
    """``4``, ``2-6`` or ``3,5`` → sorted distinct counts, each 2–6 (ValueError otherwise)."""
    counts: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        try:
            first = int(low)
            last = int(high) if dash else first
        except ValueError:
            raise ValueError(f"--players: {text!r} is not like 4, 2-6 or 3,5") from None
        if first > last:
            raise ValueError(f"--players: empty range {part.strip()!r}")
        counts.update(range(first, last + 1))
    bad = [n for n in sorted(counts) if not MIN_PLAYERS <= n <= MAX_PLAYERS]
    if bad:
        raise ValueError(f"--players: player counts are 2 to 6, not {bad[0]}")
    return sorted(counts)


def parse_bots(text: str, counts: list[int]) -> list[str]:
    bots = [b.strip() for b in text.split(",")]
    if any(not b for b in bots):
        raise ValueError("--bots: empty bot name")
    if len(bots) > 1 and (len(counts) > 1 or len(bots) != counts[0]):
        raise ValueError("--bots: several bots need a single --players count and one bot per seat")
    for name in dict.fromkeys(bots):
        make_bot(name, 0)  # ValueError for an unknown name or a bad budget
    return bots


def run(args: argparse.Namespace) -> int:
    try:
        report = importlib.import_module("gonuts.analysis.report")
    except ImportError:
        return fail(EXTRA_MESSAGE)
    if args.sources:
        try:
            bots_text, seed, tallies = load_tallies([Path(d) for d in args.sources])
        except ValueError as exc:
            return fail(str(exc))
        return write_outputs(report, Path(args.out), tallies, bots_text, seed, games=0)
    try:
        counts = parse_players(args.players)
        bots = parse_bots(args.bots, counts)
        variants = ordered(check_variants(args.variant))
    except (ValueError, UnknownVariantError) as exc:
        return fail(str(exc))
    if args.games is None:
        return fail("--games is required (or --from DIR to re-use earlier runs)")
    if args.games < 1:
        return fail("--games must be at least 1")
    if args.jobs < 1:
        return fail("--jobs must be at least 1")
    if args.ray is not None:
        try:
            importlib.import_module("ray")
        except ImportError:
            return fail("--ray needs Ray: pip install 'gonuts[ray]'")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return fail(f"cannot create {out}: {exc.strerror or exc}")
    rule_sets: list[tuple[str, ...]] = [(), variants] if variants else [()]
    tasks = [
        task
        for rule_set in rule_sets
        for n in counts
        for task in make_tasks(n, args.games, bots, rule_set, args.seed)
    ]
    console = Console(stderr=True, highlight=False)
    progress = Progress(
        TextColumn("[bold]analyze"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=args.quiet,
    )
    with progress:
        bar = progress.add_task("games", total=sum(t.count for t in tasks))
        tallies = run_tasks(
            tasks,
            jobs=args.jobs,
            ray_address=args.ray,
            progress=lambda games: progress.advance(bar, games),
        )

    games = sum(t.count for t in tasks)
    return write_outputs(report, out, tallies, ",".join(bots), args.seed, games=games)


Tallies = dict[tuple[int, tuple[str, ...]], Tally]


def write_outputs(
    report: Any, out: Path, tallies: Tallies, bots_text: str, seed: int, *, games: int
) -> int:
    """summary.json (and baseline.json with variants), tallies.json, plots/ and report.html."""
    rule_sets = sorted({variants for _, variants in tallies}, key=lambda v: (len(v), v))
    counts = sorted({n for n, _ in tallies})
    for rule_set in rule_sets:
        missing = [n for n in counts if (n, rule_set) not in tallies]
        if missing:
            label = "+".join(rule_set) or "default"
            return fail(f"the {label} rules have no games with {missing[0]} players")
    runs = []
    for rule_set in rule_sets:
        per = {n: tallies[(n, rule_set)] for n in counts}
        summaries = {n: summarize(per[n], bots_text, rule_set) for n in counts}
        runs.append(report.Run("+".join(rule_set) or "default", summaries, per))
    saved = {
        "format": TALLIES_FORMAT,
        "bots": bots_text,
        "seed": seed,
        "tallies": [
            {"variants": list(v), "tally": tallies[(n, v)].to_dict()}
            for v in rule_sets
            for n in counts
        ],
    }
    try:
        out.mkdir(parents=True, exist_ok=True)
        _write_json(out / "summary.json", combine(runs[-1].summaries))
        if len(runs) > 1:
            _write_json(out / "baseline.json", combine(runs[0].summaries))
        _write_json(out / "tallies.json", saved)
        images = report.plots(runs)
        plots_dir = out / "plots"
        plots_dir.mkdir(exist_ok=True)
        for name, data in images.items():
            (plots_dir / name).write_bytes(data)
        page = report.render_html(runs, bots=bots_text, seed=seed, images=images)
        (out / "report.html").write_text(page, encoding="utf-8")
    except OSError as exc:
        print(f"gonuts analyze: cannot write into {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    done = f"{games} games simulated; wrote" if games else "wrote"
    print(f"{done} {out / 'summary.json'} and {out / 'report.html'}")
    return 0


def load_tallies(folders: list[Path]) -> tuple[str, int, Tallies]:
    """Merge the tallies.json of earlier runs (ValueError with one line for a bad folder)."""
    merged: Tallies = {}
    bots: list[str] = []
    seed = 0
    for folder in folders:
        path = folder / "tallies.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != TALLIES_FORMAT:
                raise ValueError(f"format is not {TALLIES_FORMAT!r}")
            for item in data["tallies"]:
                tally = Tally.from_dict(item["tally"])
                key = (tally.players, ordered(check_variants(item["variants"])))
                if key in merged:
                    merged[key].merge(tally)
                else:
                    merged[key] = tally
            if data["bots"] not in bots:
                bots.append(str(data["bots"]))
            seed = int(data["seed"])
        except OSError as exc:
            raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path} is not an analyze tallies file ({exc})") from None
    return " / ".join(bots), seed, merged


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
