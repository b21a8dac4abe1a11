"""gonuts.batch beyond the differential test: dealing, refusals, random play on the device,
the pgx-style functional API, the Gymnasium vector environment and ``gonuts bench --batch``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
gymnasium = pytest.importorskip("gymnasium")

import jax.numpy as jnp  # noqa: E402

import gonuts.envs  # noqa: E402, F401 - registers gonuts/GoNuts-v0
from gonuts import batch, rules  # noqa: E402
from gonuts.batch import core  # noqa: E402
from gonuts.batch import functional as F  # noqa: E402, N812
from gonuts.batch.play import random_games  # noqa: E402
from gonuts.cards import KIND_IDS, canonical_deck  # noqa: E402
from gonuts.envs._core import IllegalEnvActionError  # noqa: E402
from gonuts.envs.encoding import (  # noqa: E402
    from_env_action,
    legal_env_actions,
    mask_from_ids,
    terminal_rewards,
)
from gonuts.envs.vector import GoNutsVectorEnv  # noqa: E402
from gonuts.game import Game  # noqa: E402
from gonuts.variants import VARIANTS, UnknownVariantError  # noqa: E402

# Each test compiles its own JAX programs (tens of seconds on a busy 2-core machine).
pytestmark = pytest.mark.timeout(600)


def test_random_deal_is_a_shuffled_deck() -> None:
    s = batch.new(4, key=jax.random.key(1), size=16)
    decks = np.asarray(s.deck)
    assert decks.shape == (16, 61)
    for deck in decks:
        assert sorted(deck.tolist()) == list(canonical_deck(4))
    assert len({tuple(d) for d in decks.tolist()}) == 16  # not the same shuffle
    assert np.asarray(batch.legal(s)).sum(axis=2).tolist() == [[5] * 4] * 16


def test_new_refuses_bad_arguments() -> None:
    with pytest.raises(ValueError, match="2 to 6"):
        batch.new(7, key=jax.random.key(0), size=1)
    with pytest.raises(ValueError, match=r"\[B, 50\]"):
        batch.new(3, np.zeros((2, 37), np.int32))
    with pytest.raises(ValueError, match="key and a size"):
        batch.new(3)
    not_a_deck = np.array([list(canonical_deck(2))] * 2, np.int32)
    not_a_deck[1, 0] = not_a_deck[1, 1] = 4
    with pytest.raises(ValueError, match="deck 1 is not the deck for 2 players"):
        batch.new(2, not_a_deck)
    s = batch.new(2, not_a_deck[:1])
    with pytest.raises(IndexError, match="no game 1 in a batch of 1"):
        batch.summary(s, 1)
    with pytest.raises(ValueError, match="no seat 2 in a 2-player game"):
        batch.observe(s, 2)


def test_illegal_and_missing_actions_change_nothing() -> None:
    s = batch.new(2, key=jax.random.key(2), size=3)
    before = jax.tree.map(np.asarray, s)
    # an id of the wrong phase, an out-of-range pick, nothing at all
    after = batch.step(s, jnp.array([[14, 600], [5, -1], [-1, -1]], jnp.int32))
    for x, y in zip(jax.tree.leaves(before), jax.tree.leaves(after), strict=True):
        assert np.array_equal(x, np.asarray(y))
    # one seat of a simultaneous selection may act alone; the other is still awaited
    one = batch.step(s, jnp.array([[1, -1]] * 3, jnp.int32))
    assert np.asarray(one.picks)[:, 0].tolist() == [1, 1, 1]
    assert batch.summary(one, 0)["to_act"] == [
        {"player": 1, "legal": ["pick 1", "pick 2", "pick 3"]}
    ]


@pytest.mark.parametrize("variants", [(), VARIANTS])
def test_random_games_on_the_device_finish_and_conserve_cards(variants: tuple[str, ...]) -> None:
    bits = core.variant_mask(variants)
    final, decisions, ticks = random_games(3, jax.random.key(3), 64, bits)
    s = jax.tree.map(np.asarray, final)
    assert (np.asarray(batch.done(final))).all()
    assert (s.variants == bits).all()
    # the winners set once after the loop are those of the final collections
    assert np.array_equal(s.winners, np.asarray(jax.jit(jax.vmap(core.winners))(final.coll)))
    deck_len = s.deck.shape[1]
    for b in range(64):
        on_table = (s.row[b] >= 0).sum() + deck_len - s.top[b] + s.pile_len[b]
        assert on_table + s.coll[b].sum() == deck_len
        assert s.winners[b].any()
    assert int(decisions) > 64 * 30 and int(ticks) > 20


def test_variants_are_checked_and_dealt() -> None:
    s = batch.new(3, key=jax.random.key(6), size=2, variants=["twist_pass_any", "milk_any_three"])
    want = core.VARIANT_BITS["twist_pass_any"] | core.VARIANT_BITS["milk_any_three"]
    assert np.asarray(s.variants).tolist() == [want, want]
    assert np.asarray(batch.new(3, key=jax.random.key(6), size=2).variants).tolist() == [0, 0]
    with pytest.raises(UnknownVariantError, match="unknown variant 'milk_any_two'"):
        batch.new(3, key=jax.random.key(6), size=2, variants=["milk_any_two"])
    assert int(F.init(jax.random.key(6), 3, ["sprinkled_any_card"]).variants) == 1
    with pytest.raises(UnknownVariantError):
        GoNutsVectorEnv(2, players=3, variants=["nope"])


def test_functional_api_plays_like_the_rules_engine() -> None:
    init = jax.jit(F.init, static_argnums=1)
    step = jax.jit(F.step)
    mask_of = jax.jit(F.legal_action_mask)
    player = jax.jit(F.current_player)
    observe = jax.jit(F.observe)
    rng = random.Random(4)
    s = init(jax.random.key(4), 3)
    game = Game.new(3, deck=[KIND_IDS[c] for c in np.asarray(s.deck).tolist()], events=False)
    illegal_tried = False
    while not game.is_over:
        seat = int(player(s))
        assert seat == min(rules.to_act(game.state))
        want = mask_from_ids(rules.legal_ids(game.state, seat), seat, 3)
        assert np.array_equal(np.asarray(mask_of(s)).astype(np.int8), want)
        assert np.asarray(observe(s, seat)).shape == (538,)
        legal = legal_env_actions(rules.legal_ids(game.state, seat), seat, 3)
        action = rng.choice(legal)
        if not illegal_tried and 520 not in legal:
            action, illegal_tried = 520, True  # replaced by the lowest legal id
        chosen = action if action in legal else min(legal)
        rules.apply(game.state, seat, from_env_action(chosen, seat, 3))
        s = step(s, jnp.int32(action))
    assert illegal_tried and bool(F.terminated(s)) and int(player(s)) == -1
    for mode in ("win_share", "score_diff"):
        want_r = terminal_rewards(game.scores(), game.state.winners, mode)
        assert np.allclose(np.asarray(F.rewards(s, mode)), want_r)


def test_vector_env_through_make_vec_refuses_an_illegal_id_by_default() -> None:
    envs = gymnasium.make_vec(
        "gonuts/GoNuts-v0", num_envs=2, vectorization_mode="vector_entry_point", players=2
    )
    obs, _ = envs.reset(seed=5)
    assert obs["action_mask"][0, 520] == 0
    with pytest.raises(IllegalEnvActionError, match="action 520 is not legal"):
        envs.step(np.array([520, int(np.flatnonzero(obs["action_mask"][1])[0])]))


def test_vector_env_through_make_vec() -> None:
    envs = gymnasium.make_vec(
        "gonuts/GoNuts-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        players=2,
        illegal_action="substitute",
    )
    assert isinstance(envs, GoNutsVectorEnv)
    obs, info = envs.reset(seed=5)
    assert obs in envs.observation_space
    rng = np.random.default_rng(5)
    finished = 0
    restarting = np.zeros(4, bool)
    for _ in range(60):
        masks = obs["action_mask"]
        # a game that just ended has no legal action (the next step starts a new one)
        assert ((masks.sum(axis=1) >= 1) != restarting).all()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        acts[0] = 520 if masks[0, 520] == 0 else acts[0]  # env 0 keeps sending an illegal id
        obs, rewards, terminated, truncated, info = envs.step(acts)
        assert obs in envs.observation_space and not truncated.any()
        assert info["illegal_action"][0] != restarting[0]
        assert (rewards[restarting] == 0).all() and not terminated[restarting].any()
        assert set(rewards[terminated].tolist()) <= {0.0, 0.5, 1.0}
        finished += int(terminated.sum())
        restarting = terminated
    assert finished >= 4


def test_vector_env_options() -> None:
    with pytest.raises(ValueError, match="random opponents"):
        GoNutsVectorEnv(2, players=3, opponents="greedy")
    with pytest.raises(ValueError, match="no seat 3"):
        GoNutsVectorEnv(2, players=3, seat=3)
    envs = GoNutsVectorEnv(
        2,
        players=3,
        seat=2,
        reward="score_diff",
        illegal_action="raise",
        variants=["twist_pass_any", "sprinkled_any_card"],
    )
    _, info = envs.reset(seed=1)
    assert info["seat"].tolist() == [2, 2]
    assert envs.variants == ("sprinkled_any_card", "twist_pass_any")
    assert envs._state is not None and np.asarray(envs._state.variants).tolist() == [5, 5]
    with pytest.raises(ValueError, match="not legal"):
        envs.step(np.array([520, 520]))


def test_bench_batch_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    cmd = [sys.executable, "-m", "gonuts", "bench", "--batch", "--players", "2"]
    done = subprocess.run(
        [*cmd, "--batch-size", "16", "--seconds", "0.2", "--json", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert list(data) == [
        "device",
        "players",
        "batch_size",
        "games",
        "seconds",
        "games_per_s",
        "decisions_per_s",
        "compile_seconds",
    ]
    assert data["device"] == "cpu" and data["players"] == 2 and data["batch_size"] == 16
    assert data["games"] >= 16 and data["games"] % 16 == 0
    assert data["games_per_s"] > 0 and data["decisions_per_s"] > data["games_per_s"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batch-size", "0"], "--batch-size: '0' is not a whole number ≥ 1"),
        (["--seconds", "-1"], "--seconds: '-1' is not a number > 0"),
        (["--players", "7"], "--players: with --batch, one player count from 2 to 6"),
        (["--device", "gpu"], "no gpu device"),
    ],
)
def test_bench_batch_refusals(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gonuts", "bench", "--batch", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("gonuts bench: ") and message in done.stderr
    assert "Traceback" not in done.stderr


def test_bench_batch_without_jax() -> None:
    code = (
        "import sys; sys.modules['jax'] = None; "
        "from gonuts.cli import main; sys.exit(main(['bench', '--batch']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "gonuts bench: --batch needs the 'batch' extra: pip install 'gonuts[batch]'"
    )
