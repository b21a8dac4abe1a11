"""Draw the turn-based soak's timeouts: how late each came, against when it was due.

``GONUTS_SOAK_KEEP=DIR pytest tests/web/test_turn_soak.py …`` leaves ``DIR/timeline.json``
(the start and restart windows, and each timeout's due time and lateness in real seconds);
this draws one panel per run, the restarts shaded and the tolerance as a line. The runs of
docs/server.md ("The soak") are kept in docs/turn-soak/:

    python scripts/soak-timeline.py \\
        "docs/turn-soak/postgresql-two-processes-1.json:PostgreSQL, two processes (15:24)" \\
        "docs/turn-soak/postgresql-two-processes-2.json:PostgreSQL, two processes, again (15:43)" \\
        "docs/turn-soak/sqlite-one-process.json:SQLite, one process (15:35)" \\
        --title "Turn-based soak: 200 four-player tables, an hour's clock in 15 s (factor 240), \\
two restarts" --out docs/turn-soak.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "runs", nargs="+", help="DIR:TITLE or FILE.json:TITLE, a kept run and its panel's title"
    )
    parser.add_argument("--tolerance", type=float, default=8.0, help="seconds (the test's)")
    parser.add_argument("--title", default="", help="the figure's title")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    fig, axes = plt.subplots(
        len(args.runs), 1, figsize=(9, 2.8 * len(args.runs)), squeeze=False, sharey=True
    )
    for ax, spec in zip(axes[:, 0], args.runs, strict=True):
        where, _, title = spec.partition(":")
        path = Path(where) if where.endswith(".json") else Path(where) / "timeline.json"
        data = json.loads(path.read_text())
        due = [t for t, _ in data["timeouts"]]
        late = [x for _, x in data["timeouts"]]
        starts = data.get("down_at") or []
        for n, (a, b) in enumerate(starts):
            ax.axvspan(
                a, b, color="#f2c14e", alpha=0.35, lw=0, label="start / restart" if n == 0 else None
            )
        ax.scatter(due, late, s=4, alpha=0.5, color="#2a6f97", label="a timeout")
        ax.axhline(
            args.tolerance, color="#c0392b", lw=1, ls="--", label=f"tolerance {args.tolerance:g} s"
        )
        over = sum(x > args.tolerance for x in late)
        ordered = sorted(late)
        ax.set_title(
            f"{title}: {len(late):,} timeouts, each after its deadline by: median "
            f"{ordered[len(ordered) // 2]:.2f} s, p99 {ordered[int(0.99 * len(ordered))]:.2f} s, "
            f"max {ordered[-1]:.2f} s ({over} over {args.tolerance:g} s)",
            fontsize=9,
        )
        ax.set_ylabel("late by (s)")
        ax.set_ylim(bottom=-0.2, top=max(args.tolerance * 1.25, ordered[-1] * 1.1))
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("due at (s after the start, real time)")
    axes[0, 0].legend(loc="upper right", fontsize=8)
    if args.title:
        fig.suptitle(args.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
