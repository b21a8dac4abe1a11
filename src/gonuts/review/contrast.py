"""Does a judge prefer ``hard``'s choice where ``medium`` would have chosen otherwise?

A cheaper, sharper probe of a judge than whole-game accuracy (docs/review.md, "A deeper
judge?"): at every decision a ``hard`` seat took in an arena record, ask ``medium`` (greedy)
what it would have played on the same view; where the two differ, the judge values both
actions on that view and the probe keeps ``value(hard's) − value(medium's)``. ``hard`` wins far
more often than ``medium``, so a judge that sees what it sees should rate its choice higher
on average (a positive mean, and a share of the contested decisions above one half).

``python -m gonuts.review.contrast --games DIR … --bot search:32 --out FILE.jsonl [--jobs 2]``
appends one JSON line per game (so ``--resume`` carries on), then prints the summary;
``… --summary FILE.jsonl`` prints it again.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

Z95: Final = 1.959963984540054


def contrast_game(task: tuple[str, str, int, str, str]) -> dict[str, Any]:
    """One record's JSON line: the judge's value difference at each contested decision."""
    path, spec, seed, level, versus = task
    from gonuts.actions import parse_action  # noqa: PLC0415 - workers import on demand
    from gonuts.bots import make_bot  # noqa: PLC0415
    from gonuts.game import Game  # noqa: PLC0415
    from gonuts.record import Record, apply_recorded  # noqa: PLC0415
    from gonuts.review.engine import judge, parse_analyser  # noqa: PLC0415
    from gonuts.review.run import decision_rng  # noqa: PLC0415
    from gonuts.review.validity import level_of  # noqa: PLC0415

    record = Record.from_json(Path(path).read_bytes())
    analyser = parse_analyser(spec)
    bots = [level_of(b) for b in (record.extra.get("bots") or record.players)]
    game = Game.new(
        record.players, deck=record.initial_deck(), events=False, variants=record.variants
    )
    cpu = time.process_time()
    decisions = 0
    diffs: list[float] = []
    phases: list[str] = []
    for index, recorded in enumerate(record.actions):
        seat = recorded.player
        if bots[seat] == level and len(game.legal_action_ids(seat)) > 1:
            decisions += 1
            view = game.view(seat)
            other = make_bot(versus, seed * 1_000_003 + index).choose(view)
            taken = parse_action(recorded.action)
            if other != taken:
                j = judge(view, analyser, decision_rng(seed, index))
                diffs.append(round(j.value(taken) - j.value(other), 5))
                phases.append(view.phase.name.lower())
        apply_recorded(game, index, seat, recorded.action)
    return {
        "record": path,
        "bot": spec,
        "level": level,
        "versus": versus,
        "decisions": decisions,
        "diffs": diffs,
        "phases": phases,
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def pick_collisions(paths: Sequence[Path]) -> dict[str, dict[str, float]]:
    """Per level: its picks, and the share of them that another player picked too (a shared
    card goes to nobody), over the arena records."""
    from gonuts.record import Record  # noqa: PLC0415
    from gonuts.review.validity import level_of  # noqa: PLC0415

    picks: dict[str, int] = {}
    shared: dict[str, int] = {}
    for path in paths:
        record = Record.from_json(path.read_bytes())
        bots = [level_of(b) for b in (record.extra.get("bots") or record.players)]
        n = len(bots)
        current: dict[int, str] = {}
        for recorded in record.actions:
            if not recorded.action.startswith("pick "):
                continue
            current[recorded.player] = recorded.action
            if len(current) == n:  # a round's picks are all in
                chosen = list(current.values())
                for seat, action in current.items():
                    picks[bots[seat]] = picks.get(bots[seat], 0) + 1
                    if chosen.count(action) > 1:
                        shared[bots[seat]] = shared.get(bots[seat], 0) + 1
                current = {}
    return {
        level: {"picks": count, "shared": round(shared.get(level, 0) / count, 3)}
        for level, count in picks.items()
    }


def _map(tasks: list[tuple[str, str, int, str, str]], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs <= 1:
        for task in tasks:
            yield contrast_game(task)
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(contrast_game, tasks)


def summarize(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The mean difference with a 95 % interval, over the contested decisions, and the share of
    them where the judge preferred the level's action to the other bot's (ties: half)."""
    diffs = [d for line in lines for d in line["diffs"]]
    n = len(diffs)
    mean = statistics.fmean(diffs) if diffs else math.nan
    half = Z95 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else math.nan
    preferred = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
    return {
        "games": len(lines),
        "bot": sorted({line["bot"] for line in lines}),
        "decisions": sum(line["decisions"] for line in lines),
        "contested": n,
        "mean_difference": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "preferred_share": round(preferred / n, 3) if n else None,
        "cpu_seconds_per_contested": round(sum(line["cpu_seconds"] for line in lines) / n, 3)
        if n
        else None,
    }


def _print(summary: dict[str, Any]) -> None:
    low, high = summary["ci95"]
    print(
        f"{', '.join(summary['bot'])}: {summary['games']} games, {summary['contested']} of "
        f"{summary['decisions']} decisions contested; value(level's) − value(versus's) = "
        f"{summary['mean_difference']:+.4f} ({low:+.4f} to {high:+.4f}); the judge prefers the "
        f"level's action on {summary['preferred_share']} of them; "
        f"{summary['cpu_seconds_per_contested']} s CPU per contested decision"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gonuts.review.contrast",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", nargs="+", metavar="DIR")
    parser.add_argument("--bot", default="neural:32")
    parser.add_argument("--level", default="hard", help="the seats judged (default hard)")
    parser.add_argument("--versus", default="medium", help="the bot asked (default medium)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--count", type=int, help="only the first COUNT records")
    parser.add_argument("--out", help="JSON lines, one per game (appended)")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--summary", nargs="+", metavar="FILE", help="only summarise these")
    parser.add_argument(
        "--collisions", action="store_true", help="only each level's share of shared picks"
    )
    args = parser.parse_args(argv)
    if args.collisions:
        from gonuts.review.validity import records_in  # noqa: PLC0415

        paths = records_in(args.games or [])[: args.count]
        for level, row in pick_collisions(paths).items():
            print(f"{level}: {row['picks']} picks, {row['shared']:.1%} shared with another player")
        return 0
    if args.summary:
        _print(summarize(_read(args.summary)))
        return 0
    if not args.games or not args.out:
        parser.error("--games and --out are needed (or --summary)")
    from gonuts.review.validity import records_in  # noqa: PLC0415

    out = Path(args.out)
    done: set[str] = set()
    if args.resume and out.exists():
        done = {json.loads(t)["record"] for t in out.read_text("utf-8").splitlines() if t.strip()}
    paths = records_in(args.games)[: args.count]
    tasks = [
        (str(p), args.bot, args.seed, args.level, args.versus) for p in paths if str(p) not in done
    ]
    with out.open("a", encoding="utf-8") as sink:
        for count, line in enumerate(_map(tasks, args.jobs), 1):
            sink.write(json.dumps(line) + "\n")
            sink.flush()
            print(
                f"[{time.strftime('%H:%M:%S')}] {count}/{len(tasks)} games "
                f"({len(line['diffs'])} contested, {line['cpu_seconds']} s CPU)",
                file=sys.stderr,
                flush=True,
            )
    _print(summarize(_read([str(out)])))
    return 0


def _read(names: Sequence[str]) -> list[dict[str, Any]]:
    return [
        json.loads(text)
        for name in names
        for text in Path(name).read_text(encoding="utf-8").splitlines()
        if text.strip()
    ]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
