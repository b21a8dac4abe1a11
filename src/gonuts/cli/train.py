"""``gonuts train``: self-play training of the ``neural`` bot (the ``train`` extra)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    from gonuts.train.cli import add_arguments  # noqa: PLC0415 - argparse only, no JAX

    p: argparse.ArgumentParser = sub.add_parser(
        "train",
        help="train the neural bot by self-play on gonuts.batch (JAX)",
        description="PPO self-play on gonuts.batch for 2-6 players; writes checkpoints, "
        "history.json and a win-share curve (PNG) into --out. See docs/bots.md.",
    )
    add_arguments(p)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from gonuts.train.cli import run  # noqa: PLC0415

    return run(args)
