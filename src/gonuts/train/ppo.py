"""PPO by self-play on :mod:`gonuts.batch`: one policy-and-value network for 2–6 players.

Why one network: the observation already carries the number of players (one-hot) and uses
seats relative to the observer, so the same weights can play every table size; the cards'
values differ by table size but share most of what there is to learn (sets, majorities,
which powers help), and one network gets five times the data of each per-count network.

Each iteration plays ``batch`` games at one table size (the sizes take turns) inside one
jitted step function: every seat that must act is played by the current network (masked
sampling), except seats drawn as *league* opponents (uniformly random players, a fixed
opponent, with probability ``random_seat``). The games run to the end; every decision of a
learning seat gets the seat's final reward (win share, plus a little score margin, so lost
games still rank moves) as its Monte Carlo return (no discount: the game is short and only
the end counts), the value head is its baseline, and PPO's clipped objective updates the
network for a few epochs. Evaluation: the greedy (argmax) policy in one seat (rotated) against
random players, at 2 and 4 players, on the same device program.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax  # type: ignore[import-untyped]

from gonuts.batch import core, functional
from gonuts.batch.core import State
from gonuts.batch.play import random_actions
from gonuts.cards import canonical_deck
from gonuts.envs.encoding import NUM_ENV_ACTIONS, OBS_HIGH, OBS_SIZE

Params = Any
MARGIN_WEIGHT = 0.01
"""Score-margin share of the reward (a 20-point margin is worth a fifth of a win)."""


def input_scale() -> np.ndarray[Any, np.dtype[np.float32]]:
    """Per-feature factors that bring the raw counts of the observation near [0, 1]."""
    return (1.0 / np.minimum(OBS_HIGH, 10.0)).astype(np.float32)


def forward(model: nn.Module, params: Params, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``model.apply`` with its result typed: (logits, values)."""
    return cast(tuple[jax.Array, jax.Array], model.apply(params, x))


class PolicyValue(nn.Module):
    """An MLP with a policy head (logits over the 521 environment ids) and a value head."""

    hidden: int = 256

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = nn.relu(nn.Dense(self.hidden, name="dense0")(x))
        h = nn.relu(nn.Dense(self.hidden, name="dense1")(h))
        logits = nn.Dense(NUM_ENV_ACTIONS, name="policy")(h)
        value = nn.Dense(1, name="value")(h)[..., 0]
        return logits, value


@dataclass
class Config:
    """Everything that defines a run (saved beside its checkpoints)."""

    seed: int = 0
    iterations: int = 200
    batch: int = 128
    players: tuple[int, ...] = (2, 3, 4, 5, 6)
    hidden: int = 256
    lr: float = 3e-4
    epochs: int = 3
    minibatch: int = 2048
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    random_seat: float = 0.2
    eval_every: int = 10
    eval_players: tuple[int, ...] = (2, 4)
    out: str = "runs/neural"
    notes: dict[str, Any] = field(default_factory=dict)


def _game_step(  # noqa: PLR0917 - vmapped positionally
    apply: Callable[..., tuple[jax.Array, jax.Array]],
    params: Params,
    s: State,
    randoms: jax.Array,
    greedy: jax.Array,
    key: jax.Array,
) -> tuple[State, dict[str, jax.Array]]:
    """One decision step of one game: the network plays every acting seat but ``randoms``."""
    n = core.num_players(s)
    seats = jnp.arange(n)
    legal = core.legal(s)
    waiting = core.to_act(s) & (s.phase != core.OVER)
    obs = jax.vmap(lambda p: core.observe(s, p))(seats)
    mask = jax.vmap(lambda row, p: functional.env_mask(row, p, n))(legal, seats)
    logits, value = apply(params, obs * jnp.asarray(input_scale()))
    logits = jnp.where(mask, logits, -1e9)
    k_pick, k_rand = jax.random.split(key)
    sampled = jax.random.categorical(k_pick, logits)
    env = jnp.where(greedy, jnp.argmax(logits, axis=-1), sampled)
    logp = jax.nn.log_softmax(logits)[seats, env]
    engine = jax.vmap(lambda a, p: functional.engine_action(a, p, n))(env, seats)
    mine = jnp.where(waiting, engine, -1)
    theirs = random_actions(k_rand, s)
    actions = jnp.where(randoms, theirs, mine)
    record = {
        "obs": obs,
        "mask": mask,
        "action": env,
        "logp": logp,
        "value": value,
        "active": waiting & ~randoms,
    }
    return core.step(s, actions), record


def make_step(
    model: PolicyValue,
) -> Callable[..., tuple[State, dict[str, jax.Array]]]:
    """The batched, jitted step (compiled once per table size and batch size)."""

    @jax.jit
    def step(
        params: Params, s: State, randoms: jax.Array, greedy: jax.Array, key: jax.Array
    ) -> tuple[State, dict[str, jax.Array]]:
        keys = jax.random.split(key, randoms.shape[0])
        return jax.vmap(
            partial(_game_step, partial(forward, model), params), in_axes=(0, 0, None, 0)
        )(s, randoms, greedy, keys)

    return step


@partial(jax.jit, static_argnums=(0, 2))
def deal(players: int, key: jax.Array, size: int) -> State:
    deck = jnp.asarray(canonical_deck(players), jnp.int32)
    decks = jax.vmap(lambda k: jax.random.permutation(k, deck))(jax.random.split(key, size))
    return jax.vmap(lambda d: core.initial(d, players))(decks)


@jax.jit
def final_rewards(s: State) -> jax.Array:
    """``[B, n]``: win share plus a little of the score margin."""
    share = jax.vmap(lambda g: functional.rewards(g, "win_share"))(s)
    margin = jax.vmap(lambda g: functional.rewards(g, "score_diff"))(s)
    return share + MARGIN_WEIGHT * jnp.clip(margin, -30.0, 30.0)


@jax.jit
def win_shares(s: State) -> jax.Array:
    return jax.vmap(lambda g: functional.rewards(g, "win_share"))(s)


def play_games(  # noqa: PLR0917 - a plain helper of train()
    step: Callable[..., tuple[State, dict[str, jax.Array]]],
    params: Params,
    players: int,
    randoms: np.ndarray[Any, Any],
    greedy: bool,
    key: jax.Array,
) -> tuple[State, list[dict[str, np.ndarray[Any, Any]]]]:
    """Play ``len(randoms)`` games to the end; the per-step records (host arrays)."""
    key, sub = jax.random.split(key)
    s = deal(players, sub, len(randoms))
    rand = jnp.asarray(randoms)
    flag = jnp.asarray(greedy)
    records: list[dict[str, np.ndarray[Any, Any]]] = []
    for _ in range(1000):
        key, sub = jax.random.split(key)
        s, rec = step(params, s, rand, flag, sub)
        host = {k: np.asarray(v) for k, v in rec.items()}
        if not host["active"].any() and bool(np.asarray(s.phase == core.OVER).all()):
            break
        records.append(host)
        if bool(np.asarray(s.phase == core.OVER).all()):
            break
    return s, records


def flatten(
    records: list[dict[str, np.ndarray[Any, Any]]], rewards: np.ndarray[Any, Any]
) -> dict[str, np.ndarray[Any, Any]]:
    """Every active decision as one sample, with its seat's final reward as the return."""
    stacked = {k: np.stack([r[k] for r in records]) for k in records[0]}
    active = stacked["active"]
    ret = np.broadcast_to(rewards[None], active.shape)
    out = {k: v[active] for k, v in stacked.items() if k != "active"}
    out["return"] = ret[active].astype(np.float32)
    return out


def make_update(model: PolicyValue, cfg: Config, tx: optax.GradientTransformation) -> Any:
    scale = jnp.asarray(input_scale())

    def loss_fn(params: Params, b: dict[str, jax.Array]) -> tuple[jax.Array, dict[str, jax.Array]]:
        logits, value = forward(model, params, b["obs"] * scale)
        logits = jnp.where(b["mask"], logits, -1e9)
        logp_all = jax.nn.log_softmax(logits)
        logp = jnp.take_along_axis(logp_all, b["action"][:, None], axis=1)[:, 0]
        adv = b["return"] - b["value"]
        w = b["weight"]
        wsum = jnp.maximum(w.sum(), 1.0)
        adv = (adv - (adv * w).sum() / wsum) / (jnp.sqrt((w * adv**2).sum() / wsum) + 1e-6)
        ratio = jnp.exp(logp - b["logp"])
        pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv)
        probs = jnp.exp(logp_all)
        ent = -jnp.where(b["mask"], probs * logp_all, 0.0).sum(-1)
        vloss = (value - b["return"]) ** 2
        total = (w * (pg + cfg.value_coef * vloss - cfg.entropy * ent)).sum() / wsum
        stats = {
            "policy_loss": (w * pg).sum() / wsum,
            "value_loss": (w * vloss).sum() / wsum,
            "entropy": (w * ent).sum() / wsum,
        }
        return total, stats

    @jax.jit
    def update(
        params: Params, opt: optax.OptState, b: dict[str, jax.Array]
    ) -> tuple[Params, optax.OptState, dict[str, jax.Array]]:
        grads, stats = jax.grad(loss_fn, has_aux=True)(params, b)
        updates, opt = tx.update(grads, opt, params)
        return optax.apply_updates(params, updates), opt, stats

    return update


def export_npz(params: Params, path: Path, meta: dict[str, Any]) -> None:
    """The weights as plain arrays (what :mod:`gonuts.bots.neural` loads with NumPy)."""
    p = params["params"]
    arrays = {
        f"{layer}_{kind}": np.asarray(p[layer][name], np.float32)
        for layer in ("dense0", "dense1", "policy", "value")
        for kind, name in (("w", "kernel"), ("b", "bias"))
    }
    arrays["scale"] = input_scale()
    arrays["meta"] = np.asarray(json.dumps(meta))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def evaluate(
    steps: dict[int, Any], params: Params, cfg: Config, key: jax.Array
) -> dict[int, float]:
    """Win share of the argmax policy in one seat (rotated) against random players."""
    out: dict[int, float] = {}
    for n in cfg.eval_players:
        seat = np.arange(cfg.batch) % n
        randoms = np.arange(n)[None, :] != seat[:, None]
        key, sub = jax.random.split(key)
        s, _ = play_games(steps[n], params, n, randoms, True, sub)
        share = np.asarray(win_shares(s))
        out[n] = float(share[np.arange(cfg.batch), seat].mean())
    return out


def train(cfg: Config, progress: Callable[[int, dict[str, float]], None] | None = None) -> Path:
    """Run ``cfg``; write checkpoints, ``history.json`` and the curve. The final weights' path."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    model = PolicyValue(cfg.hidden)
    key = jax.random.key(cfg.seed)
    key, init_key = jax.random.split(key)
    params = model.init(init_key, jnp.zeros((1, OBS_SIZE), jnp.float32))
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(cfg.lr))
    opt = tx.init(params)
    step_fn = make_step(model)
    steps = dict.fromkeys(set(cfg.players) | set(cfg.eval_players), step_fn)
    update = make_update(model, cfg, tx)
    rng = np.random.default_rng(cfg.seed)
    history: list[dict[str, float]] = []
    games = 0
    started = time.monotonic()

    def record_eval(it: int) -> None:
        nonlocal key
        key, sub = jax.random.split(key)
        shares = evaluate(steps, params, cfg, sub)
        row = {"iteration": it, "games": games, "seconds": time.monotonic() - started}
        row.update({f"vs_random_{n}p": v for n, v in shares.items()})
        history.append(row)
        (out / "history.json").write_text(json.dumps(history, indent=1))
        export_npz(params, out / "checkpoint.npz", {"config": asdict(cfg), "eval": row})
        plot(history, out / "curve.png")

    record_eval(0)
    for it in range(1, cfg.iterations + 1):
        n = cfg.players[(it - 1) % len(cfg.players)]
        randoms = rng.random((cfg.batch, n)) < cfg.random_seat
        randoms[np.arange(cfg.batch), rng.integers(0, n, cfg.batch)] = False
        key, sub = jax.random.split(key)
        s, records = play_games(steps[n], params, n, randoms, False, sub)
        games += cfg.batch
        data = flatten(records, np.asarray(final_rewards(s)))
        size = len(data["return"])
        mb = min(cfg.minibatch, 1 << max(0, math.ceil(math.log2(max(size, 1)))))
        stats: dict[str, jax.Array] = {}
        for _ in range(cfg.epochs):
            order = rng.permutation(size)
            for start in range(0, size, mb):
                idx = order[start : start + mb]
                pad = mb - len(idx)
                batch = {
                    k: np.concatenate([v[idx], v[idx[:1].repeat(pad)]]) for k, v in data.items()
                }
                batch["weight"] = np.concatenate([np.ones(len(idx)), np.zeros(pad)]).astype(
                    np.float32
                )
                params, opt, stats = update(
                    params, opt, {k: jnp.asarray(v) for k, v in batch.items()}
                )
        if progress is not None:
            progress(it, {k: float(v) for k, v in stats.items()} | {"players": float(n)})
        if it % cfg.eval_every == 0 or it == cfg.iterations:
            record_eval(it)
    final = out / "final.npz"
    export_npz(params, final, {"config": asdict(cfg), "eval": history[-1]})
    plot(history, out / "curve.png")
    return final


def plot(history: list[dict[str, float]], path: Path) -> None:
    """Win share against random players over training games, one line per table size."""
    import matplotlib  # noqa: PLC0415 - a plotting backend only when a run ends

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, ax = plt.subplots(figsize=(6, 3.6))
    games = [h["games"] for h in history]
    for key in sorted(k for k in history[0] if k.startswith("vs_random_")):
        n = int(key.removeprefix("vs_random_").removesuffix("p"))
        ax.plot(games, [h[key] for h in history], marker="o", label=f"{n} players")
        ax.axhline(1 / n, linestyle=":", color=ax.lines[-1].get_color(), linewidth=1)
    ax.set_xlabel("self-play games")
    ax.set_ylabel("win share vs random (argmax policy)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
