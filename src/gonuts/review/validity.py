"""The measurements behind docs/review.md: is the review valid, stable and fast enough?

``python -m gonuts.review.validity accuracy --games DIR … --bot neural:N --out FILE.jsonl``
    reviews every arena record (``gonuts arena --save DIR``: the records name each seat's bot)
    and appends one line per game: each seat's bot, accuracy, score, rank and win share. A
    line is written as each game finishes (with a progress line on stderr), so a stopped run
    keeps what it did and ``--resume`` carries on.
``… summary FILE.jsonl``
    mean accuracy per bot with a 95 % interval, the order of the levels, and Spearman's ρ
    between a seat's accuracy and its final rank (over every seat of every game, and the
    mean within games).
``… stability --games DIR --count K --bot neural:N --seeds 0,1``
    reviews K games twice with different seeds and reports the share of decisions whose
    label agrees (and whose best action agrees).
``… timing RECORD …``
    the wall and CPU seconds of a whole review of each record at ``--bot``.

Everything is printed as text and, with ``--json FILE``, written as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

Z95: Final = 1.959963984540054
LEVEL_ORDER: Final = ("hard", "medium", "easy", "random")


def records_in(dirs: Sequence[str]) -> list[Path]:
    """Every ``*.json`` record in the directories, sorted by directory then name."""
    out: list[Path] = []
    for name in dirs:
        out.extend(sorted(Path(name).glob("*.json")))
    return out


def ranks(scores: Sequence[int], cards: Sequence[int]) -> list[float]:
    """Rank per seat (1 = best) by score then cards; ties share the average rank (as the
    arena ranks)."""
    keys = list(zip(scores, cards, strict=True))
    out = []
    for key in keys:
        better = sum(1 for k in keys if k > key)
        equal = sum(1 for k in keys if k == key)
        out.append(better + (equal + 1) / 2)
    return out


def review_game(task: tuple[str, str, int]) -> dict[str, Any]:
    """Review one record; the JSON line of ``accuracy``."""
    path, spec, seed = task
    from gonuts.game import Game  # noqa: PLC0415 - workers import on demand
    from gonuts.record import Record  # noqa: PLC0415
    from gonuts.review import parse_analyser, review_record  # noqa: PLC0415

    record = Record.from_json(Path(path).read_bytes())
    start = time.perf_counter()
    cpu = time.process_time()
    review = review_record(record, analyser=parse_analyser(spec), seed=seed)
    game: Game = record.replay(events=False)
    n = game.num_players
    bots = record.extra.get("bots") or list(record.players)
    winners = game.winner_seats
    return {
        "record": str(path),
        "bot": spec,
        "seed": seed,
        "players": n,
        "bots": list(bots),
        "accuracy": [review.accuracy(s) for s in range(n)],
        "scores": game.scores(),
        "ranks": ranks(game.scores(), [game.state.cards_owned(p) for p in range(n)]),
        "win_share": [1.0 / len(winners) if s in winners else 0.0 for s in range(n)],
        "decisions": [len(review.seat_decisions(s)) for s in range(n)],
        "labels": [d.label for d in review.decisions],
        "seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
    }


def _pool_map(tasks: list[tuple[str, str, int]], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs <= 1:
        for task in tasks:
            yield review_game(task)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs) as pool:
        yield from pool.imap_unordered(review_game, tasks)


def run_accuracy(args: argparse.Namespace) -> int:
    paths = records_in(args.games)
    out = Path(args.out)
    done: set[str] = set()
    if args.resume and out.exists():
        for text in out.read_text(encoding="utf-8").splitlines():
            if text.strip():
                done.add(json.loads(text)["record"])
    tasks = [(str(p), args.bot, args.seed) for p in paths if str(p) not in done]
    total = len(tasks)
    print(f"reviewing {total} records with {args.bot} ({len(done)} already done)", file=sys.stderr)
    start = time.perf_counter()
    with out.open("a", encoding="utf-8") as sink:
        for count, line in enumerate(_pool_map(tasks, args.jobs), 1):
            sink.write(json.dumps(line) + "\n")
            sink.flush()
            elapsed = time.perf_counter() - start
            eta = elapsed / count * (total - count)
            print(
                f"[{time.strftime('%H:%M:%S')}] {count}/{total} games, "
                f"{elapsed:.0f} s elapsed, about {eta:.0f} s left "
                f"(last: {Path(line['record']).name}, {line['cpu_seconds']} s CPU)",
                file=sys.stderr,
                flush=True,
            )
    return 0


# -- summary ----------------------------------------------------------------------------------


def rank_values(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing the average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ: Pearson's correlation of the ranks (ties averaged)."""
    return pearson(rank_values(x), rank_values(y))


def spearman_interval(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """A 95 % interval for ρ by Fisher's z with the Bonett–Wright standard error."""
    rho = spearman(x, y)
    n = len(x)
    if n < 4 or not -1 < rho < 1:
        return (math.nan, math.nan)
    z = math.atanh(rho)
    se = math.sqrt((1 + rho * rho / 2) / (n - 3))
    return (math.tanh(z - Z95 * se), math.tanh(z + Z95 * se))


def level_of(bot: str) -> str:
    """An arena seat's bot name, without the seat suffix the arena may add."""
    return bot.partition(" (")[0]


def summarize(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    per_bot: dict[str, list[float]] = {}
    xs: list[float] = []
    ys: list[float] = []
    within: list[float] = []
    for line in lines:
        accs = line["accuracy"]
        game_x, game_y = [], []
        for bot, acc, rank in zip(line["bots"], accs, line["ranks"], strict=True):
            if acc is None:
                continue
            per_bot.setdefault(level_of(bot), []).append(acc)
            xs.append(acc)
            ys.append(rank)
            game_x.append(acc)
            game_y.append(rank)
        if len(set(game_y)) > 1 and len(set(game_x)) > 1:
            within.append(spearman(game_x, game_y))
    bots: dict[str, dict[str, Any]] = {}
    for bot, values in sorted(per_bot.items(), key=lambda kv: -statistics.fmean(kv[1])):
        mean = statistics.fmean(values)
        half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
        bots[bot] = {
            "seats": len(values),
            "mean_accuracy": round(mean, 2),
            "ci95": [round(mean - half, 2), round(mean + half, 2)],
        }
    levels = [b for b in LEVEL_ORDER if b in bots]
    ordered = all(bots[a]["ci95"][0] > bots[b]["ci95"][1] for a, b in itertools.pairwise(levels))
    means_ordered = all(
        bots[a]["mean_accuracy"] > bots[b]["mean_accuracy"] for a, b in itertools.pairwise(levels)
    )
    low, high = spearman_interval(xs, ys)
    paired = {f"{a}-{b}": paired_difference(lines, a, b) for a, b in itertools.pairwise(levels)}
    return {
        "games": len(lines),
        "bot": sorted({line["bot"] for line in lines}),
        "bots": bots,
        "levels_in_order": means_ordered,
        "levels_separated_by_intervals": ordered,
        "spearman_accuracy_rank": round(spearman(xs, ys), 3),
        "spearman_ci95": [round(low, 3), round(high, 3)],
        "spearman_seats": len(xs),
        "spearman_within_games_mean": round(statistics.fmean(within), 3) if within else None,
        "spearman_within_games": len(within),
        "paired": paired,
        "cpu_seconds_per_game": round(statistics.fmean(line["cpu_seconds"] for line in lines), 2),
    }


def paired_difference(lines: Sequence[dict[str, Any]], a: str, b: str) -> dict[str, Any]:
    """Level ``a``'s accuracy minus level ``b``'s within each game that seats each once: the
    mean with a 95 % interval, and in how many games ``a`` was ahead. Pairing removes what the
    game itself adds to every seat's accuracy (an easy deal, a short game)."""
    diffs = []
    for line in lines:
        levels = [level_of(bot) for bot in line["bots"]]
        if levels.count(a) != 1 or levels.count(b) != 1:
            continue
        x, y = line["accuracy"][levels.index(a)], line["accuracy"][levels.index(b)]
        if x is not None and y is not None:
            diffs.append(x - y)
    if len(diffs) < 2:
        return {"games": len(diffs)}
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return {
        "games": len(diffs),
        "mean": round(mean, 2),
        "ci95": [round(mean - half, 2), round(mean + half, 2)],
        "ahead": sum(d > 0 for d in diffs),
    }


def run_summary(args: argparse.Namespace) -> int:
    lines = []
    for name in args.results:
        for text in Path(name).read_text(encoding="utf-8").splitlines():
            if text.strip():
                lines.append(json.loads(text))
    if args.players is not None:
        lines = [line for line in lines if line["players"] == args.players]
    summary = summarize(lines)
    print(f"{summary['games']} games reviewed with {', '.join(summary['bot'])}")
    print("mean accuracy per bot (95 % interval), seats:")
    for bot, row in summary["bots"].items():
        low, high = row["ci95"]
        print(f"  {bot:>8}: {row['mean_accuracy']:6.2f}  ({low:.2f}–{high:.2f})  n={row['seats']}")
    print(
        f"levels in order hard > medium > easy > random: {summary['levels_in_order']} "
        f"(intervals apart: {summary['levels_separated_by_intervals']})"
    )
    low, high = summary["spearman_ci95"]
    print(
        f"Spearman's rho, accuracy vs final rank (1 = first): "
        f"{summary['spearman_accuracy_rank']} ({low}–{high}) over {summary['spearman_seats']} "
        f"seats; mean within a game {summary['spearman_within_games_mean']} over "
        f"{summary['spearman_within_games']} games"
    )
    for pair, row in summary["paired"].items():
        if "mean" in row:
            low, high = row["ci95"]
            print(
                f"paired {pair} within a game: {row['mean']:+.2f} ({low:+.2f} to {high:+.2f}), "
                f"ahead in {row['ahead']} of {row['games']} games"
            )
    print(f"CPU seconds per game review: {summary['cpu_seconds_per_game']}")
    _write_json(args.json, summary)
    return 0


# -- stability and timing --------------------------------------------------------------------


def run_stability(args: argparse.Namespace) -> int:
    from gonuts.record import Record  # noqa: PLC0415
    from gonuts.review import parse_analyser, review_record  # noqa: PLC0415

    seeds = [int(s) for s in args.seeds.split(",")]
    paths = records_in(args.games)[: args.count]
    analyser = parse_analyser(args.bot)
    same_label = same_best = total = 0
    per_game = []
    for path in paths:
        record = Record.from_json(path.read_bytes())
        reviews = [review_record(record, analyser=analyser, seed=s) for s in seeds]
        first = reviews[0].decisions
        for other in reviews[1:]:
            labels = sum(a.label == b.label for a, b in zip(first, other.decisions, strict=True))
            bests = sum(a.best == b.best for a, b in zip(first, other.decisions, strict=True))
            same_label += labels
            same_best += bests
            total += len(first)
            per_game.append(round(labels / len(first), 3))
        print(
            f"[{time.strftime('%H:%M:%S')}] {path.name}: labels agree {per_game[-1]:.1%}",
            file=sys.stderr,
            flush=True,
        )
    result = {
        "bot": args.bot,
        "seeds": seeds,
        "games": len(paths),
        "decisions": total,
        "label_agreement": round(same_label / total, 4),
        "best_agreement": round(same_best / total, 4),
        "per_game": per_game,
    }
    print(
        f"{args.bot}, seeds {args.seeds}, {len(paths)} games, {total} decision pairs: labels "
        f"agree {result['label_agreement']:.1%}, best actions agree {result['best_agreement']:.1%}"
    )
    _write_json(args.json, result)
    return 0


def run_timing(args: argparse.Namespace) -> int:
    from gonuts.record import Record  # noqa: PLC0415
    from gonuts.review import parse_analyser, review_record  # noqa: PLC0415

    analyser = parse_analyser(args.bot)
    rows = []
    for name in args.records:
        record = Record.from_json(Path(name).read_bytes())
        start = time.perf_counter()
        cpu = time.process_time()
        review = review_record(record, analyser=analyser, seed=0)
        wall = time.perf_counter() - start
        used = time.process_time() - cpu
        load = os.getloadavg()[0]
        rows.append(
            {
                "record": name,
                "players": len(record.players),
                "decisions": len(review.decisions),
                "wall_seconds": round(wall, 2),
                "cpu_seconds": round(used, 2),
                "load_average": round(load, 1),
            }
        )
        print(
            f"{name}: {len(record.players)} players, {len(review.decisions)} decisions, "
            f"{wall:.1f} s wall, {used:.1f} s CPU (load average {load:.1f}) with {args.bot}"
        )
    _write_json(args.json, {"bot": args.bot, "reviews": rows})
    return 0


def _write_json(name: str | None, payload: Any) -> None:
    if name:
        Path(name).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gonuts.review.validity",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("accuracy", help="review arena records, one JSON line per game")
    p.add_argument("--games", nargs="+", required=True, metavar="DIR")
    p.add_argument("--bot", default="neural:128")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--resume", action="store_true")
    p.set_defaults(handler=run_accuracy)
    p = sub.add_parser("summary", help="accuracy per level, order, Spearman's rho")
    p.add_argument("results", nargs="+")
    p.add_argument("--players", type=int)
    p.add_argument("--json")
    p.set_defaults(handler=run_summary)
    p = sub.add_parser("stability", help="label agreement between seeds")
    p.add_argument("--games", nargs="+", required=True, metavar="DIR")
    p.add_argument("--count", type=int, default=5)
    p.add_argument("--bot", default="neural:128")
    p.add_argument("--seeds", default="0,1")
    p.add_argument("--json")
    p.set_defaults(handler=run_stability)
    p = sub.add_parser("timing", help="seconds for a whole review of each record")
    p.add_argument("records", nargs="+")
    p.add_argument("--bot", default="neural:128")
    p.add_argument("--json")
    p.set_defaults(handler=run_timing)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
