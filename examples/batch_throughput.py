"""Steps per second of the vectorised environments over gonuts.batch (needs the batch extra).

    python examples/batch_throughput.py [--envs 1024] [--seconds 10]

Measures the pgx-style functional API (``jit(vmap(step))`` with a random legal action per
game, chosen on the device) and the Gymnasium ``VectorEnv`` (random legal actions chosen on
the host from the returned masks), and prints environment steps per second for each.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from gonuts.batch import functional as F  # noqa: N812
from gonuts.batch.core import State
from gonuts.batch.play import random_choice
from gonuts.envs.vector import GoNutsVectorEnv


def functional_steps_per_s(players: int, envs: int, seconds: float) -> float:
    """Decisions per second of ``jit(vmap(F.step))``, finished games dealt again."""

    def one(state: State, key: jax.Array) -> State:
        deal_key, act_key = jax.random.split(key)
        action = random_choice(act_key, F.legal_action_mask(state))
        stepped = F.step(state, action)
        fresh = F.init(deal_key, players)
        out: State = jax.tree.map(
            lambda f, s: jnp.where(F.terminated(stepped), f, s), fresh, stepped
        )
        return out

    @jax.jit
    def run(state: State, key: jax.Array) -> State:
        def body(i: jax.Array, s: State) -> State:
            new: State = jax.vmap(one)(s, jax.random.split(jax.random.fold_in(key, i), envs))
            return new

        looped: State = jax.lax.fori_loop(0, 100, body, state)
        return looped

    state = jax.vmap(lambda k: F.init(k, players))(jax.random.split(jax.random.key(0), envs))
    state = run(state, jax.random.key(1))
    state.top.block_until_ready()
    steps, start, i = 0, time.perf_counter(), 2
    while time.perf_counter() - start < seconds:
        state = run(state, jax.random.key(i))
        state.top.block_until_ready()
        steps += 100 * envs
        i += 1
    return steps / (time.perf_counter() - start)


def vector_env_steps_per_s(players: int, envs: int, seconds: float) -> float:
    """Sub-environment steps per second of :class:`GoNutsVectorEnv` (random legal actions)."""
    env = GoNutsVectorEnv(envs, players=players)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def act(masks: np.ndarray) -> np.ndarray:
        noise = rng.random(masks.shape) * masks
        chosen: np.ndarray = noise.argmax(axis=1)
        return chosen

    obs, *_ = env.step(act(obs["action_mask"]))  # compile
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, *_ = env.step(act(obs["action_mask"]))
        steps += envs
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    f = functional_steps_per_s(args.players, args.envs, args.seconds)
    print(f"functional jit(vmap(step)), {args.envs} games: {f:,.0f} steps/s")
    v = vector_env_steps_per_s(args.players, args.envs, args.seconds)
    print(f"GoNutsVectorEnv, {args.envs} envs: {v:,.0f} steps/s")


if __name__ == "__main__":
    main()
