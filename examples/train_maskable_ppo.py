"""Train a masked PPO agent (sb3-contrib ``MaskablePPO``, CPU) against gonuts bots.

    .venv/bin/python examples/train_maskable_ppo.py --players 3 --timesteps 100000

It needs the opt-in ``sb3`` extra and PyTorch, which no lock file installs: install PyTorch's
CPU build as PyTorch's own install page describes, then ``pip install -e '.[sb3]'`` (README,
"Extras"). Without them it says so in one line and exits with status 2.

The agent plays a random seat of ``gonuts/GoNuts-v0`` against random bots, learning from the
observation vector of :mod:`gonuts.envs.encoding` (rescaled) with the legal-action mask. It
trains on the final score difference (``reward="score_diff"``, denser than the win share) and
is then evaluated on the win share over ``--eval-games`` fresh games, next to a random agent in
the same seat on the same deals.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import gymnasium
import numpy as np

from gonuts.envs.encoding import OBS_HIGH, OBS_LOW, OBS_SIZE, OBS_SLICES
from gonuts.envs.gymnasium import GoNutsEnv

try:  # opt-in: PyTorch is in no lock file (its CPU build comes from PyTorch's own index)
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
except ImportError as missing:
    print(
        f"train_maskable_ppo.py: {missing.name or 'a module'} is missing; this example needs "
        "PyTorch's CPU build and the sb3 extra: pip install 'gonuts[sb3]' (see the README)",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

SCALE = 1.0 / np.minimum(np.maximum(OBS_HIGH, 1.0), 10.0)
_a, _b = OBS_SLICES["scores"]
SCALE[_a:_b] = 1.0 / 30.0


class VectorObservation(gymnasium.ObservationWrapper[np.ndarray[Any, Any], np.int64, Any]):
    """Keep the observation vector (rescaled to roughly [0, 1]); masks come from the env."""

    def __init__(self, env: GoNutsEnv) -> None:
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Box(
            OBS_LOW * SCALE, OBS_HIGH * SCALE, (OBS_SIZE,), np.float32
        )

    def observation(self, observation: Any) -> np.ndarray[Any, Any]:
        vector: np.ndarray[Any, Any] = observation["observation"] * SCALE
        return vector.astype(np.float32)


def make_env(players: int, reward: str, opponents: str = "random") -> gymnasium.Env[Any, Any]:
    base = GoNutsEnv(players=players, reward=reward, opponents=opponents)
    masked: gymnasium.Env[Any, Any] = ActionMasker(
        VectorObservation(base), lambda env: base.action_masks()
    )
    return masked


def evaluate(
    model: MaskablePPO | None, players: int, games: int, seed: int, opponents: str = "random"
) -> float:
    """Mean win share of ``model`` (None: uniformly random legal actions) over ``games``."""
    env = GoNutsEnv(players=players, reward="win_share", opponents=opponents)
    rng = np.random.default_rng(seed)
    total = 0.0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        reward: Any = 0.0
        while not done:
            mask = obs["action_mask"].astype(bool)
            if model is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                vec = (obs["observation"] * SCALE).astype(np.float32)
                act, _ = model.predict(vec, action_masks=mask, deterministic=True)
                action = int(act)
            obs, reward, done, _, _ = env.step(action)
        total += float(reward)
    return total / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--timesteps", type=int, default=100_000)
    parser.add_argument("--reward", default="score_diff", choices=["score_diff", "win_share"])
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--opponents", default="random", help="gonuts bot name for every opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="where to save the trained model (.zip)")
    args = parser.parse_args()

    torch.set_num_threads(1)
    start = time.perf_counter()
    env = make_env(args.players, args.reward, args.opponents)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=2048,
        batch_size=256,
        learning_rate=3e-4,
        gamma=1.0,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=args.timesteps)
    trained = time.perf_counter() - start
    if args.save:
        model.save(args.save)
    eval_seed = 10_000_000 + args.seed
    ppo = evaluate(model, args.players, args.eval_games, eval_seed, args.opponents)
    rnd = evaluate(None, args.players, args.eval_games, eval_seed, args.opponents)
    print(
        f"{args.players} players, {args.timesteps} steps ({trained:.0f} s): "
        f"MaskablePPO win share {ppo:.3f} vs random agent {rnd:.3f} against {args.opponents} "
        f"over {args.eval_games} games (fair share {1 / args.players:.3f})"
    )


if __name__ == "__main__":
    main()
