"""The analysis report: matplotlib plots as PNG, and one self-contained HTML page.

matplotlib (the ``research`` extra) is the plotting library every scientific Python user
already has; the PNGs are embedded in the page as base64 ``data:`` URLs, so ``report.html``
needs no network and no other file. The same PNGs can be written out for the docs.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import matplotlib

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt  # after choosing the backend
from matplotlib.figure import Figure

from gonuts.analysis.simulate import Tally
from gonuts.cards import KIND_BY_ID

DPI: Final = 80
COLOURS: Final = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")
VARIANT_KINDS: Final = ("sprinkled", "milk", "cinnamon_twist")


@dataclass(frozen=True, slots=True)
class Run:
    """One simulated configuration: its label, summaries and tallies by player count."""

    label: str
    summaries: dict[int, dict[str, Any]]
    tallies: dict[int, Tally]


def _dark(rgba: tuple[float, float, float, float]) -> bool:
    """Whether a cell colour needs white text (relative luminance below one half)."""
    r, g, b = rgba[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def seat_plot(runs: Sequence[Run]) -> bytes:
    """Win share by seat with 95 % intervals, one panel per player count; 1/N dashed."""
    counts = sorted(runs[0].summaries)
    fig, axes = plt.subplots(1, len(counts), figsize=(2.4 * len(counts) + 0.6, 2.8), squeeze=False)
    width = 0.8 / len(runs)
    for ax, n in zip(axes[0], counts, strict=True):
        for r, run in enumerate(runs):
            seats = run.summaries[n]["seat_win_share"]
            xs = [s["seat"] + (r - (len(runs) - 1) / 2) * width for s in seats]
            shares = [s["share"] for s in seats]
            lo = [s["share"] - s["ci95"][0] for s in seats]
            hi = [s["ci95"][1] - s["share"] for s in seats]
            ax.bar(xs, shares, width, yerr=[lo, hi], capsize=2, color=COLOURS[r], label=run.label)
        ax.axhline(1 / n, color="black", linestyle="--", linewidth=0.8)
        ax.set_title(f"{n} players", fontsize=9)
        ax.set_xticks(range(n))
        ax.set_xlabel("seat (from 0, as in records)", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("win share", fontsize=8)
    if len(runs) > 1:
        axes[0][-1].legend(fontsize=7)
    return _png(fig)


def card_value_plot(run: Run) -> bytes:
    """Kinds × player counts: points when owned, and win-share lift (N × win share; 1 = even)."""
    counts = sorted(run.summaries)
    # Only kinds some simulated player count deals: a row of blanks says nothing.
    kinds = [k for k in KIND_BY_ID if any(k in run.summaries[n]["kinds"] for n in counts)]
    points = [[float("nan")] * len(counts) for _ in kinds]
    lift = [[float("nan")] * len(counts) for _ in kinds]
    for j, n in enumerate(counts):
        for i, kind in enumerate(kinds):
            stats = run.summaries[n]["kinds"].get(kind)
            if stats and stats["mean_points_when_owned"] is not None:
                points[i][j] = stats["mean_points_when_owned"]
                lift[i][j] = stats["win_share_when_owned"] * n
    # At least 4 inches a panel, so the two titles never run into each other.
    fig, axes = plt.subplots(1, 2, figsize=(2.2 + max(4.0, 0.9 * len(counts)) * 2, 7.2))
    panels = (
        (points, "points when owned", "RdYlGn", None),
        (lift, "win-share lift when owned\n(N × win share; 1 = even)", "RdBu", (0.0, 2.0)),
    )
    for ax, (data, title, cmap, limits) in zip(axes, panels, strict=True):
        image = ax.imshow(
            data,
            aspect="auto",
            cmap=cmap,
            vmin=None if limits is None else limits[0],
            vmax=None if limits is None else limits[1],
        )
        ax.set_xticks(range(len(counts)), [str(n) for n in counts], fontsize=7)
        ax.set_yticks(range(len(kinds)), [KIND_BY_ID[k].name for k in kinds], fontsize=7)
        ax.set_xlabel("players", fontsize=8)
        ax.set_title(title, fontsize=9)
        for i in range(len(kinds)):
            for j in range(len(counts)):
                value = data[i][j]
                if not math.isnan(value):
                    ink = "white" if _dark(image.cmap(image.norm(value))) else "black"
                    ax.text(j, i, f"{value:.1f}", ha="center", va="center", fontsize=6, color=ink)
        fig.colorbar(image, ax=ax, shrink=0.6)
    axes[1].set_yticks(range(len(kinds)), [""] * len(kinds))
    fig.tight_layout()
    return _png(fig)


def _distribution(ax: Any, counts: dict[int, int], colour: str, style: str, label: str) -> None:
    total = sum(counts.values())
    if not total:
        return
    xs = sorted(counts)
    ax.plot(xs, [counts[x] / total for x in xs], color=colour, linestyle=style, label=label)


def distribution_plot(runs: Sequence[Run]) -> bytes:
    """Final scores (every seat) and game lengths (rounds), one line per player count."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3))
    styles = ("-", "--", ":", "-.")
    for r, run in enumerate(runs):
        for c, n in enumerate(sorted(run.tallies)):
            label = f"{n}p" + (f" {run.label}" if len(runs) > 1 else "")
            tally = run.tallies[n]
            _distribution(left, tally.scores, COLOURS[c % 5], styles[r % 4], label)
            _distribution(right, tally.rounds, COLOURS[c % 5], styles[r % 4], label)
    left.set_title("final score (every seat)", fontsize=9)
    left.set_xlabel("points", fontsize=8)
    right.set_title("game length", fontsize=9)
    right.set_xlabel("rounds", fontsize=8)
    for ax in (left, right):
        ax.set_ylabel("share", fontsize=8)
        ax.tick_params(labelsize=7)
    right.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return _png(fig)


def variant_plot(runs: Sequence[Run]) -> bytes:
    """Default vs variants: win-share lift of the three kinds the variants touch, and rounds."""
    counts = sorted(runs[0].summaries)
    fig, axes = plt.subplots(1, len(VARIANT_KINDS), figsize=(9, 2.8), sharey=True)
    width = 0.8 / len(runs)
    for ax, kind in zip(axes, VARIANT_KINDS, strict=True):
        for r, run in enumerate(runs):
            xs, ys = [], []
            for j, n in enumerate(counts):
                stats = run.summaries[n]["kinds"].get(kind)
                if stats and stats["win_share_when_owned"] is not None:
                    xs.append(j + (r - (len(runs) - 1) / 2) * width)
                    ys.append(stats["win_share_when_owned"] * n)
            ax.bar(xs, ys, width, color=COLOURS[r], label=run.label)
        ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
        ax.set_xticks(range(len(counts)), [f"{n}p" for n in counts], fontsize=7)
        ax.set_title(f"{KIND_BY_ID[kind].name}: win-share lift", fontsize=9)
        ax.tick_params(labelsize=7)
    axes[-1].legend(fontsize=6)
    fig.tight_layout()
    return _png(fig)


def plots(runs: Sequence[Run]) -> dict[str, bytes]:
    """Every figure as PNG bytes by file name (the variant one only when comparing)."""
    out = {
        "seat_advantage.png": seat_plot(runs),
        "card_value.png": card_value_plot(runs[-1]),
        "distributions.png": distribution_plot(runs),
    }
    if len(runs) > 1:
        out["variants.png"] = variant_plot(runs)
    return out


# -- the page ------------------------------------------------------------------------------------

CSS: Final = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
img { max-width: 100%; }
.note { color: #555; font-size: 0.9em; }
"""


def _img(name: str, data: bytes, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<img alt="{html.escape(alt)}" data-plot="{name}" src="data:image/png;base64,{encoded}">'
    )


def _overview(runs: Sequence[Run]) -> str:
    rows = []
    for run in runs:
        for n in sorted(run.summaries):
            s = run.summaries[n]
            seats = ", ".join(
                f"{x['share']:.3f} [{x['ci95'][0]:.3f}–{x['ci95'][1]:.3f}]"
                for x in s["seat_win_share"]
            )
            rows.append(
                f"<tr><td>{html.escape(run.label)}</td><td>{n}</td><td>{s['games']}</td>"
                f"<td>{s['rounds']['mean']:.2f} ± {s['rounds']['sd']:.2f}</td>"
                f"<td>{s['scores']['mean']:.2f} ± {s['scores']['sd']:.2f}</td>"
                f"<td>{s['scores']['winner_mean']:.2f}</td><td>{seats}</td></tr>"
            )
    head = (
        "<tr><th>rules</th><th>players</th><th>games</th><th>rounds (mean ± sd)</th>"
        "<th>score (mean ± sd)</th><th>winner's score</th>"
        "<th>win share by seat 0, 1, … [95 % interval]</th></tr>"
    )
    return f"<table>{head}{''.join(rows)}</table>"


def _kinds_table(run: Run) -> str:
    counts = sorted(run.summaries)
    head = "<tr><th>kind</th>" + "".join(
        f"<th>{n}p taken/game</th><th>{n}p points</th><th>{n}p win lift</th><th>{n}p contested</th>"
        for n in counts
    )
    rows = []
    for kind in KIND_BY_ID:
        cells = []
        present = False
        for n in counts:
            stats = run.summaries[n]["kinds"].get(kind)
            if stats is None:
                cells.append("<td></td>" * 4)
                continue
            present = True
            pts = stats["mean_points_when_owned"]
            win = stats["win_share_when_owned"]
            con = stats["contested_rate"]
            cells.append(
                f"<td>{stats['taken_per_game']:.2f}</td>"
                f"<td>{'' if pts is None else f'{pts:.2f}'}</td>"
                f"<td>{'' if win is None else f'{win * n:.2f}'}</td>"
                f"<td>{'' if con is None else f'{con:.1%}'}</td>"
            )
        if present:
            rows.append(f"<tr><td>{html.escape(KIND_BY_ID[kind].name)}</td>{''.join(cells)}</tr>")
    return f"<table>{head}</tr>{''.join(rows)}</table>"


def render_html(runs: Sequence[Run], *, bots: str, seed: int, images: dict[str, bytes]) -> str:
    """The whole report page (no external URL: styles inline, plots as data URLs)."""
    main = runs[-1]
    title = "Go Nuts for Donuts — simulation report"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        f"<p>Bots: <b>{html.escape(bots)}</b>; seed {seed}; "
        f"rules: {', '.join(html.escape(r.label) for r in runs)}. "
        + (
            "Every seat plays uniformly at random, so the seats differ only by their place. "
            if bots == "random"
            else "The bots rotate through the seats with the arena's seating. "
        )
        + "Seats are numbered from 0, as in records; a shared victory is split between "
        "winners.</p>",
        "<h2>Overview</h2>",
        _overview(runs),
        "<h2>Seat advantage</h2>",
        '<p class="note">Mean win share per seat with 95 % intervals; the dashed line is 1/N, '
        "a perfectly fair seat.</p>",
        _img("seat_advantage.png", images["seat_advantage.png"], "win share by seat"),
        f"<h2>Card value by player count ({html.escape(main.label)})</h2>",
        '<p class="note">Left: points a kind scored for a seat that ended the game owning it. '
        "Right: win-share lift of those seats (N × win share; 1.0 = an average seat).</p>",
        _img("card_value.png", images["card_value.png"], "card value by player count"),
        _kinds_table(main),
        "<h2>Scores and game length</h2>",
        _img("distributions.png", images["distributions.png"], "score and length distributions"),
    ]
    if "variants.png" in images:
        parts += [
            "<h2>Default vs variants</h2>",
            '<p class="note">The same decks and random streams under each rule set. '
            "Win-share lift of owning the three kinds the variants change.</p>",
            _img("variants.png", images["variants.png"], "default vs variants"),
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
