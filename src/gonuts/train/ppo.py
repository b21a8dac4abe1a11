"""PPO by self-play on :mod:`gonuts.batch`: one policy-and-value network for 2–6 players.

Why one network: the observation already carries the number of players (one-hot) and uses
seats relative to the observer, so the same weights can play every table size; the cards'
values differ by table size but share most of what there is to learn (sets, majorities,
which powers help), and one network gets five times the data of each per-count network.

Each iteration plays ``batch`` games at one table size (the sizes take turns) inside one
jitted step function: every seat that must act is played by the current network (masked
sampling), except seats drawn as *league* opponents: uniformly random players (a fixed
opponent, ``random_seat``), past snapshots of the network (``past_seat``) and a scripted
points-first player (:func:`scripted_picks`, ``scripted_seat``). ``init`` resumes from trained
weights. The games run to the end; every decision of a
learning seat gets the seat's final reward (win share, plus a little score margin, so lost
games still rank moves) as its Monte Carlo return (no discount: the game is short and only
the end counts), the value head is its baseline, and PPO's clipped objective updates the
network for a few epochs. Evaluation: the greedy (argmax) policy in one seat (rotated) against
random players and against the scripted player, at 2 and 4 players, on the same device program.
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

from gonuts import cards, scoring
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
    scripted_seat: float = 0.0
    past_seat: float = 0.0
    snapshot_every: int = 20
    init: str = ""
    eval_every: int = 10
    eval_players: tuple[int, ...] = (2, 4)
    out: str = "runs/neural"
    notes: dict[str, Any] = field(default_factory=dict)


LEARNER, RANDOM, SCRIPTED, PAST = 0, 1, 2, 3
"""Who plays a seat: the learning network, a uniformly random player, the scripted
immediate-points player (:func:`scripted_picks`), or a past snapshot of the network."""
DENIAL = 0.5
"""Scripted player: weight of the points a pick denies the opponent who gains most from it."""


SCRIPTED_TEMPERATURE = 2.0
"""Scripted player: softmax temperature (points) of its model of the others' picks."""
SCRIPTED_UNIFORM = 0.3
"""Scripted player: share of uniform play in its model of the others' picks."""


def _set_lookahead() -> jax.Array:
    """``[K, 8]``: per set kind and count held, half the points one further card would add
    after the next (the hope that makes the first cards of a set worth taking)."""
    table = np.zeros((core.K, 8), np.float32)
    for kind in (cards.DONUT_HOLES, cards.JELLY_FILLED, cards.BOSTON_CREAM):
        points = scoring.SET_TABLES[kind]
        last = len(points) - 1
        for c in range(8):
            nxt, after = min(c + 1, last), min(c + 2, last)
            table[kind, c] = 0.5 * max(0.0, float(points[after] - points[nxt]))
    return jnp.asarray(table)


def scripted_picks(s: State, key: jax.Array) -> jax.Array:
    """``[n]`` row positions: each seat's pick by points (a batched cousin of ``greedy``).

    A row card's worth to a seat is what it adds to that seat's end-game score now (plus, for
    a set, half of what the card after it would add), plus half of what the opponent who would
    gain most from it would add (taking it denies them). Like ``greedy``, the pick weighs each
    card's worth by the chance that no one else picks it (a contested card goes to nobody),
    each other seat modelled as a softmax over its own worths mixed with uniform play. Why:
    ``greedy`` beat the self-play network heads-up, so the network must learn to play against
    a points-first opponent, and the arena's ``greedy`` is Python (too slow to sit inside the
    batched training step).
    """
    n = core.num_players(s)
    base = core.scores(s.coll)
    live = s.row >= 0
    kinds = jnp.where(live, s.row, 0)
    onehot = (kinds[:, None] == jnp.arange(core.K)[None, :]).astype(s.coll.dtype)  # [P, K]
    lookahead = _set_lookahead()

    def gain(seat: jax.Array, card: jax.Array, kind: jax.Array) -> jax.Array:
        add = (jnp.arange(n) == seat)[:, None] * card[None, :]
        held = s.coll[seat, kind]
        return (core.scores(s.coll + add) - base)[seat] + lookahead[kind, jnp.minimum(held, 7)]

    seats = jnp.arange(n)
    gains = jax.vmap(lambda c, k: jax.vmap(lambda p: gain(p, c, k))(seats))(onehot, kinds)
    others = jnp.where(jnp.eye(n, dtype=bool)[None], -1e9, gains[:, None, :]).max(axis=-1)
    worth = jnp.where(live[:, None], gains + DENIAL * jnp.maximum(others, 0.0), -jnp.inf)  # [P, n]
    top = worth.max(axis=0, keepdims=True)
    soft = jnp.where(live[:, None], jnp.exp((worth - top) / SCRIPTED_TEMPERATURE), 0.0)
    soft = soft / soft.sum(axis=0, keepdims=True)
    q = (1 - SCRIPTED_UNIFORM) * soft + SCRIPTED_UNIFORM * live[:, None] / live.sum()
    # log of the chance that no other seat picks each position: sum over the others
    free = jnp.log1p(-jnp.minimum(q, 0.999))  # [P, n]
    alone = jnp.exp(free.sum(axis=1, keepdims=True) - free)
    expected = worth * alone + 0.1 * jax.random.gumbel(key, worth.shape)
    expected = jnp.where(live[:, None], expected, -jnp.inf)
    return jnp.argmax(expected, axis=0).astype(jnp.int32)


def _game_step(  # noqa: PLR0917 - vmapped positionally
    apply: Callable[..., tuple[jax.Array, jax.Array]],
    params: Params,
    past: Params,
    s: State,
    who: jax.Array,
    greedy: jax.Array,
    key: jax.Array,
) -> tuple[State, dict[str, jax.Array]]:
    """One decision step of one game: ``who`` says who plays each seat (:data:`LEARNER`…)."""
    n = core.num_players(s)
    seats = jnp.arange(n)
    legal = core.legal(s)
    waiting = core.to_act(s) & (s.phase != core.OVER)
    obs = jax.vmap(lambda p: core.observe(s, p))(seats)
    mask = jax.vmap(lambda row, p: functional.env_mask(row, p, n))(legal, seats)
    x = obs * jnp.asarray(input_scale())
    logits, value = apply(params, x)
    logits = jnp.where(mask, logits, -1e9)
    past_logits, _ = apply(past, x)
    past_logits = jnp.where(mask, past_logits, -1e9)
    k_pick, k_rand, k_past, k_script = jax.random.split(key, 4)
    sampled = jax.random.categorical(k_pick, logits)
    env = jnp.where(greedy, jnp.argmax(logits, axis=-1), sampled)
    logp = jax.nn.log_softmax(logits)[seats, env]

    def to_engine(a: jax.Array, p: jax.Array) -> jax.Array:
        return jax.vmap(lambda x, y: functional.engine_action(x, y, n))(a, p)

    mine = jnp.where(waiting, to_engine(env, seats), -1)
    past_env = jax.random.categorical(k_past, past_logits)
    old = jnp.where(waiting, to_engine(past_env, seats), -1)
    # The scripted player picks by points; its power decisions are the past network's.
    picks = jnp.where(waiting, scripted_picks(s, k_script), -1)
    scripted = jnp.where(s.phase == core.SELECT, picks, old)
    theirs = random_actions(k_rand, s)
    actions = jnp.select(
        [who == RANDOM, who == SCRIPTED, who == PAST], [theirs, scripted, old], mine
    )
    record = {
        "obs": obs,
        "mask": mask,
        "action": env,
        "logp": logp,
        "value": value,
        "active": waiting & (who == LEARNER),
    }
    return core.step(s, actions), record


def make_step(
    model: PolicyValue,
) -> Callable[..., tuple[State, dict[str, jax.Array]]]:
    """The batched, jitted step (compiled once per table size and batch size)."""

    @jax.jit
    def step(  # noqa: PLR0917 - mirrors _game_step
        params: Params,
        past: Params,
        s: State,
        who: jax.Array,
        greedy: jax.Array,
        key: jax.Array,
    ) -> tuple[State, dict[str, jax.Array]]:
        keys = jax.random.split(key, who.shape[0])
        return jax.vmap(
            partial(_game_step, partial(forward, model), params, past), in_axes=(0, 0, None, 0)
        )(s, who, greedy, keys)

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
    past: Params,
    players: int,
    who: np.ndarray[Any, Any],
    greedy: bool,
    key: jax.Array,
) -> tuple[State, list[dict[str, np.ndarray[Any, Any]]]]:
    """Play ``len(who)`` games to the end (``who[g, seat]``: who plays); the per-step records."""
    key, sub = jax.random.split(key)
    s = deal(players, sub, len(who))
    rand = jnp.asarray(who, jnp.int32)
    flag = jnp.asarray(greedy)
    records: list[dict[str, np.ndarray[Any, Any]]] = []
    for _ in range(1000):
        key, sub = jax.random.split(key)
        s, rec = step(params, past, s, rand, flag, sub)
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


def ppo_epochs(  # noqa: PLR0917 - the state of one PPO update, passed through
    update: Any,
    params: Params,
    opt: optax.OptState,
    data: dict[str, np.ndarray[Any, Any]],
    epochs: int,
    minibatch: int,
    rng: np.random.Generator,
) -> tuple[Params, optax.OptState, dict[str, jax.Array]]:
    """``epochs`` passes of ``update`` over the samples in shuffled minibatches of one fixed
    size (the last one padded with zero-weight samples, so the update compiles once)."""
    size = len(data["return"])
    mb = min(minibatch, 1 << max(0, math.ceil(math.log2(max(size, 1)))))
    stats: dict[str, jax.Array] = {}
    for _ in range(epochs):
        order = rng.permutation(size)
        for start in range(0, size, mb):
            idx = order[start : start + mb]
            pad = mb - len(idx)
            batch = {k: np.concatenate([v[idx], v[idx[:1].repeat(pad)]]) for k, v in data.items()}
            batch["weight"] = np.concatenate([np.ones(len(idx)), np.zeros(pad)]).astype(np.float32)
            params, opt, stats = update(params, opt, {k: jnp.asarray(v) for k, v in batch.items()})
    return params, opt, stats


def to_arrays(params: Params) -> dict[str, np.ndarray[Any, Any]]:
    """The weights as the plain arrays of a weight file (no ``meta``)."""
    p = params["params"]
    arrays = {
        f"{layer}_{kind}": np.asarray(p[layer][name], np.float32)
        for layer in ("dense0", "dense1", "policy", "value")
        for kind, name in (("w", "kernel"), ("b", "bias"))
    }
    arrays["scale"] = input_scale()
    return arrays


def export_npz(params: Params, path: Path, meta: dict[str, Any]) -> None:
    """The weights as plain arrays (what :mod:`gonuts.bots.neural` loads with NumPy)."""
    arrays = to_arrays(params)
    arrays["meta"] = np.asarray(json.dumps(meta))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def load_params(path: Path) -> Params:
    """Weights written by :func:`export_npz` as flax parameters (to resume from them)."""
    with np.load(path, allow_pickle=False) as data:
        return {
            "params": {
                layer: {
                    "kernel": jnp.asarray(data[f"{layer}_w"]),
                    "bias": jnp.asarray(data[f"{layer}_b"]),
                }
                for layer in ("dense0", "dense1", "policy", "value")
            }
        }


def evaluate(
    steps: dict[int, Any], params: Params, reference: Params, cfg: Config, key: jax.Array
) -> dict[str, float]:
    """Win share of the argmax policy in one seat (rotated) against random players and against
    the scripted points player (its power decisions by the fixed ``reference`` network)."""
    out: dict[str, float] = {}
    for n in cfg.eval_players:
        seat = np.arange(cfg.batch) % n
        others = np.arange(n)[None, :] != seat[:, None]
        for name, code in (("random", RANDOM), ("scripted", SCRIPTED)):
            key, sub = jax.random.split(key)
            s, _ = play_games(steps[n], params, reference, n, others * code, True, sub)
            share = np.asarray(win_shares(s))
            out[f"vs_{name}_{n}p"] = float(share[np.arange(cfg.batch), seat].mean())
    return out


def seat_roles(cfg: Config, n: int, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    """``[batch, n]`` who plays each seat: one learner per game at least, the other seats drawn
    as random, scripted or past players with the configured shares, the rest learners."""
    u = rng.random((cfg.batch, n))
    cuts = np.cumsum([cfg.random_seat, cfg.scripted_seat, cfg.past_seat])
    who = np.select([u < cuts[0], u < cuts[1], u < cuts[2]], [RANDOM, SCRIPTED, PAST], LEARNER)
    who[np.arange(cfg.batch), rng.integers(0, n, cfg.batch)] = LEARNER
    return who.astype(np.int32)


def train(cfg: Config, progress: Callable[[int, dict[str, float]], None] | None = None) -> Path:
    """Run ``cfg``; write checkpoints, ``history.json`` and the curve. The final weights' path."""
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=2))
    model = PolicyValue(cfg.hidden)
    key = jax.random.key(cfg.seed)
    key, init_key = jax.random.split(key)
    if cfg.init:
        params = load_params(Path(cfg.init))
        width = params["params"]["dense0"]["kernel"].shape[1]
        if width != cfg.hidden:
            raise ValueError(f"{cfg.init} has {width} hidden units, not --hidden {cfg.hidden}")
    else:
        params = model.init(init_key, jnp.zeros((1, OBS_SIZE), jnp.float32))
    reference = params
    pool = [params]  # past snapshots the PAST seats draw from
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
        row = {"iteration": it, "games": games, "seconds": time.monotonic() - started}
        row.update(evaluate(steps, params, reference, cfg, sub))
        history.append(row)
        (out / "history.json").write_text(json.dumps(history, indent=1))
        export_npz(params, out / "checkpoint.npz", {"config": asdict(cfg), "eval": row})
        export_npz(params, out / f"checkpoint-{it:05d}.npz", {"config": asdict(cfg), "eval": row})
        plot(history, out / "curve.png")

    record_eval(0)
    for it in range(1, cfg.iterations + 1):
        n = cfg.players[(it - 1) % len(cfg.players)]
        who = seat_roles(cfg, n, rng)
        past = pool[int(rng.integers(len(pool)))]
        key, sub = jax.random.split(key)
        s, records = play_games(steps[n], params, past, n, who, False, sub)
        games += cfg.batch
        data = flatten(records, np.asarray(final_rewards(s)))
        params, opt, stats = ppo_epochs(update, params, opt, data, cfg.epochs, cfg.minibatch, rng)
        if it % cfg.snapshot_every == 0:
            pool.append(params)
        if progress is not None:
            progress(it, {k: float(v) for k, v in stats.items()} | {"players": float(n)})
        if it % cfg.eval_every == 0 or it == cfg.iterations:
            record_eval(it)
    final = out / "final.npz"
    export_npz(params, final, {"config": asdict(cfg), "eval": history[-1]})
    plot(history, out / "curve.png")
    return final


def plot(history: list[dict[str, float]], path: Path) -> None:
    """Win share against each fixed opponent over training games, one line per table size."""
    import matplotlib  # noqa: PLC0415 - a plotting backend only when a run ends

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    opponents = [
        o for o in ("random", "scripted") if any(k.startswith(f"vs_{o}_") for k in history[0])
    ]
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 3.6), squeeze=False)
    games = [h["games"] for h in history]
    for ax, opponent in zip(axes[0], opponents, strict=True):
        prefix = f"vs_{opponent}_"
        for key in sorted(k for k in history[0] if k.startswith(prefix)):
            n = int(key.removeprefix(prefix).removesuffix("p"))
            ax.plot(games, [h[key] for h in history], marker="o", label=f"{n} players")
            ax.axhline(1 / n, linestyle=":", color=ax.lines[-1].get_color(), linewidth=1)
        ax.set_xlabel("training games")
        ax.set_ylabel(f"win share vs {opponent} (argmax policy)")
        ax.set_ylim(0, 1)
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
