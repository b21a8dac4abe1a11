"""PPO against fixed bots in the rules engine: the second training stage, on CPU workers.

Why a second stage: self-play on :mod:`gonuts.batch` taught the network what its league could
teach (it beats the batched scripted points player almost always at four players and more), yet
the shipped network still lost to the hand-written ``greedy`` bot at a four-player table. ``greedy``
is Python, too slow to sit inside the batched step but fast in the engine (about a millisecond
a decision): a four-player game of one learner against three ``greedy`` takes ~60 ms, so two
cores play ~100,000 such games an hour. This stage plays the learner there: a NumPy forward
pass that samples from the masked policy in one seat (rotated), the other seats by named bots
(``--against greedy``, or several drawn per seat), one game per seed in worker processes. Every
learner decision gets the seat's final reward (win share plus a little score margin, as in
:mod:`gonuts.train.ppo`) as its return, and the same clipped PPO loss
(:func:`gonuts.train.ppo.make_update`) updates the network in JAX.

Evaluation is the ``neural`` bot itself (the argmax policy) against the same opponents on fixed
seeds apart from the training seeds; checkpoints and a curve are written as by
:func:`gonuts.train.ppo.train`. Pick a checkpoint by that curve, then report it with
``gonuts arena`` on seeds the run never saw (what docs/bots.md does).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import optax  # type: ignore[import-untyped]

from gonuts.actions import ACTIONS
from gonuts.bots.arena import worker_context
from gonuts.bots.base import make_bot
from gonuts.bots.neural import WEIGHTS, Network
from gonuts.envs.encoding import (
    NUM_ENV_ACTIONS,
    OBS_SIZE,
    action_mask,
    encode_observation,
    from_env_action,
    terminal_rewards,
)
from gonuts.game import Game
from gonuts.train.ppo import (
    MARGIN_WEIGHT,
    PolicyValue,
    export_npz,
    load_params,
    make_update,
    ppo_epochs,
    to_arrays,
)
from gonuts.train.ppo import (
    Config as SelfPlayConfig,
)

Arrays = dict[str, np.ndarray[Any, Any]]
EVAL_SEED_BASE = 1 << 40
"""Evaluation games use seeds from here on; training games use ``seed * 10**7 + game``."""


@dataclass
class VersusConfig:
    """Everything that defines a run (saved beside its checkpoints)."""

    seed: int = 0
    iterations: int = 100
    games: int = 256
    """Games per iteration (the learner holds one seat of each)."""
    players: tuple[int, ...] = (4,)
    """Table sizes, taking turns by iteration (repeat one to weight it: ``4,3,4,5,4,6``)."""
    against: tuple[str, ...] = ("greedy",)
    """Bots for the other seats (``gonuts arena`` names), drawn uniformly per seat."""
    lr: float = 1e-4
    epochs: int = 3
    minibatch: int = 1024
    clip: float = 0.2
    entropy: float = 0.003
    value_coef: float = 0.5
    init: str = str(WEIGHTS)
    eval_every: int = 10
    eval_games: int = 192
    eval_players: tuple[int, ...] = (4,)
    jobs: int = 2
    out: str = "runs/versus"
    notes: dict[str, Any] = field(default_factory=dict)


def play_learner_games(
    arrays: Arrays,
    players: int,
    against: Sequence[str],
    seeds: Sequence[int],
    argmax: bool,
) -> tuple[Arrays, list[float]]:
    """Play one game per seed, the learner in seat ``seed % players``: its decisions (with a
    choice) as PPO samples, and its win share in each game. Runs in a worker process."""
    network = Network.from_arrays(arrays)
    columns: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "action", "logp", "value")}
    returns: list[float] = []
    shares: list[float] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        learner = seed % players
        bots = {
            p: make_bot(against[int(rng.integers(len(against)))], seed * 8 + p)
            for p in range(players)
            if p != learner
        }
        game = Game.new(players, seed=seed, events=False)
        decisions = 0
        while not game.is_over:
            for p in game.to_act:
                if p not in game.to_act:  # the phase moved on
                    continue
                view = game.view(p)
                if p != learner:
                    game.apply(p, bots[p].choose(view))
                    continue
                if len(view.legal) == 1:
                    game.apply(p, view.legal[0])
                    continue
                obs = encode_observation(view)
                mask = action_mask(view).astype(bool)
                logits, value = network.forward(obs)
                masked = np.where(mask, logits, -np.inf)
                z = np.exp(masked - masked.max())
                probs = z / z.sum()
                env = int(np.argmax(probs)) if argmax else int(rng.choice(len(probs), p=probs))
                columns["obs"].append(obs)
                columns["mask"].append(mask)
                columns["action"].append(env)
                columns["logp"].append(math.log(max(float(probs[env]), 1e-30)))
                columns["value"].append(float(value))
                decisions += 1
                game.apply(p, ACTIONS[from_env_action(env, p, players)])
        scores = game.scores()
        share = terminal_rewards(scores, game.winner_seats)[learner]
        margin = terminal_rewards(scores, game.winner_seats, "score_diff")[learner]
        returns += [share + MARGIN_WEIGHT * min(30.0, max(-30.0, margin))] * decisions
        shares.append(share)
    out: Arrays = {
        "obs": np.asarray(columns["obs"], np.float32).reshape(-1, OBS_SIZE),
        "mask": np.asarray(columns["mask"], bool).reshape(-1, NUM_ENV_ACTIONS),
        "action": np.asarray(columns["action"], np.int32),
        "logp": np.asarray(columns["logp"], np.float32),
        "value": np.asarray(columns["value"], np.float32),
        "return": np.asarray(returns, np.float32),
    }
    return out, shares


def _chunks(seeds: Sequence[int], parts: int) -> list[list[int]]:
    return [list(seeds[i::parts]) for i in range(parts) if seeds[i::parts]]


def train_versus(
    cfg: VersusConfig, progress: Callable[[int, dict[str, float]], None] | None = None
) -> Path:
    """Run ``cfg``; write checkpoints, ``history.json`` and the curve. The final weights' path."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    params = load_params(Path(cfg.init))
    hidden = int(params["params"]["dense0"]["kernel"].shape[1])
    model = PolicyValue(hidden)
    shape = SelfPlayConfig(
        clip=cfg.clip, entropy=cfg.entropy, value_coef=cfg.value_coef, epochs=cfg.epochs
    )
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(cfg.lr))
    opt = tx.init(params)
    update = make_update(model, shape, tx)
    rng = np.random.default_rng(cfg.seed)
    history: list[dict[str, float]] = []
    games = 0
    started = time.monotonic()

    with ProcessPoolExecutor(cfg.jobs, mp_context=worker_context()) as pool:

        def play(players: int, seeds: Sequence[int], argmax: bool) -> tuple[Arrays, list[float]]:
            arrays = to_arrays(params)
            jobs = [
                pool.submit(play_learner_games, arrays, players, cfg.against, part, argmax)
                for part in _chunks(seeds, cfg.jobs)
            ]
            results = [job.result() for job in jobs]
            data = {k: np.concatenate([r[0][k] for r in results]) for k in results[0][0]}
            return data, [s for r in results for s in r[1]]

        def record_eval(it: int) -> None:
            row: dict[str, float] = {
                "iteration": it,
                "games": games,
                "seconds": time.monotonic() - started,
            }
            for n in cfg.eval_players:
                seeds = [EVAL_SEED_BASE + n * 10**6 + i for i in range(cfg.eval_games)]
                _, shares = play(n, seeds, True)
                row[f"vs_{'+'.join(cfg.against)}_{n}p"] = float(np.mean(shares))
            history.append(row)
            (out / "history.json").write_text(json.dumps(history, indent=1))
            meta = {"config": asdict(cfg), "eval": row}
            export_npz(params, out / "checkpoint.npz", meta)
            export_npz(params, out / f"checkpoint-{it:05d}.npz", meta)
            plot(history, out / "curve.png")

        record_eval(0)
        for it in range(1, cfg.iterations + 1):
            n = cfg.players[(it - 1) % len(cfg.players)]
            base = (cfg.seed * 100_000 + it) * 10_000
            data, shares = play(n, range(base, base + cfg.games), False)
            games += cfg.games
            params, opt, stats = ppo_epochs(
                update, params, opt, data, cfg.epochs, cfg.minibatch, rng
            )
            if progress is not None:
                info = {k: float(v) for k, v in stats.items()}
                progress(it, info | {"players": float(n), "win_share": float(np.mean(shares))})
            if it % cfg.eval_every == 0 or it == cfg.iterations:
                record_eval(it)
    final = out / "final.npz"
    export_npz(params, final, {"config": asdict(cfg), "eval": history[-1]})
    return final


def plot(history: list[dict[str, float]], path: Path) -> None:
    """Win share of the ``neural`` policy against the opponents over training games."""
    import matplotlib  # noqa: PLC0415 - a plotting backend only when asked

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    games = [h["games"] for h in history]
    for key in sorted(k for k in history[0] if k.startswith("vs_")):
        n = int(key.rsplit("_", 1)[1].removesuffix("p"))
        opponents = key.removeprefix("vs_").rsplit("_", 1)[0]
        ax.plot(games, [h[key] for h in history], marker="o", label=f"{n} players vs {opponents}")
        ax.axhline(1 / n, linestyle=":", color=ax.lines[-1].get_color(), linewidth=1)
    ax.set_xlabel("training games")
    ax.set_ylabel("win share (argmax policy)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
