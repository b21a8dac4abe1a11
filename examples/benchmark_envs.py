"""Steps per second of every environment, random legal play, one CPU core.

    .venv/bin/python examples/benchmark_envs.py            # all player counts
    .venv/bin/python examples/benchmark_envs.py --players 3

* AEC: PettingZoo's own ``pettingzoo.test.performance_benchmark`` (5 s; "turns" = AEC steps).
* Parallel: parallel ``step`` calls per second (one call = one decision point: a whole
  selection, or a power's decision).
* Gymnasium: ``gonuts/GoNuts-v0`` agent steps per second, bots' moves included.
* OpenSpiel: ``python_gonuts`` actions applied per second (chance deals and joint actions
  count one each), with ``legal_actions`` at every node.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import time
from collections.abc import Callable

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
from pettingzoo.test import performance_benchmark  # type: ignore[import-untyped,unused-ignore]

import gonuts.envs.openspiel  # noqa: F401 - registers python_gonuts
from gonuts.envs.gymnasium import GoNutsEnv
from gonuts.envs.pettingzoo import env, parallel_env


def timed(body: Callable[[], int], seconds: float) -> float:
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += body()
    return steps / (time.perf_counter() - start)


def aec_steps(players: int) -> float:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(env(players=players))
    found = re.search(r"([0-9.]+) turns per second", out.getvalue())
    assert found is not None
    return float(found.group(1))


def parallel_steps(players: int, seconds: float) -> float:
    penv = parallel_env(players=players)
    rng = np.random.default_rng(0)

    def game() -> int:
        obs, _ = penv.reset()
        steps = 0
        while penv.agents:
            actions = {
                a: int(rng.choice(np.flatnonzero(o["action_mask"])))
                for a, o in obs.items()
                if o["action_mask"].any()
            }
            obs, *_ = penv.step(actions)
            steps += 1
        return steps

    return timed(game, seconds)


def gym_steps(players: int, seconds: float) -> float:
    genv = GoNutsEnv(players=players)
    rng = np.random.default_rng(0)

    def game() -> int:
        obs, _ = genv.reset()
        steps, done = 0, False
        while not done:
            obs, _, done, _, _ = genv.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        return steps

    return timed(game, seconds)


def openspiel_steps(players: int, seconds: float) -> float:
    game = pyspiel.load_game("python_gonuts", {"players": players})
    rng = np.random.default_rng(0)

    def play() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            elif state.is_simultaneous_node():
                state.apply_actions(
                    [int(rng.choice(state.legal_actions(p))) for p in range(players)]
                )
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
        return steps

    return timed(play, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print("| players | AEC (performance_benchmark) | parallel | gymnasium | openspiel |")
    print("|---|---|---|---|---|")
    for n in args.players:
        print(
            f"| {n} | {aec_steps(n):,.0f} | {parallel_steps(n, args.seconds):,.0f} "
            f"| {gym_steps(n, args.seconds):,.0f} | {openspiel_steps(n, args.seconds):,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
