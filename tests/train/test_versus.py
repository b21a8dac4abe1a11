"""The second training stage (``gonuts train --against``): PPO against fixed bots in the engine."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flax", reason="the train extra is not installed")
pytest.importorskip("optax", reason="the train extra is not installed")

import jax
import jax.numpy as jnp

from gonuts.bots.greedy import GreedyBot
from gonuts.bots.neural import Network, NeuralBot
from gonuts.envs.encoding import OBS_SIZE, terminal_rewards
from gonuts.game import Game
from gonuts.train.__main__ import main
from gonuts.train.ppo import MARGIN_WEIGHT, PolicyValue, export_npz, load_params, to_arrays
from gonuts.train.versus import play_learner_games

pytestmark = pytest.mark.timeout(600)


def _tiny(tmp_path: Path, seed: int = 5) -> Path:
    params = PolicyValue(16).init(jax.random.key(seed), jnp.zeros((1, OBS_SIZE)))
    export_npz(params, tmp_path / "tiny.npz", {})
    return tmp_path / "tiny.npz"


def test_evaluation_games_are_the_neural_bot_against_the_opponents(tmp_path: Path) -> None:
    # The argmax learner is exactly `neural` with these weights: replaying each game with
    # NeuralBot and seeded greedy bots gives the same result.
    arrays = to_arrays(load_params(_tiny(tmp_path)))
    seeds = [11, 12, 13]
    data, shares = play_learner_games(arrays, 3, ("greedy",), seeds, argmax=True)
    network = Network.from_arrays(arrays)
    for seed, share in zip(seeds, shares, strict=True):
        learner = seed % 3
        bots = {p: GreedyBot(seed * 8 + p) for p in range(3) if p != learner}
        neural = NeuralBot(network=network)
        game = Game.new(3, seed=seed, events=False)
        while not game.is_over:
            for p in game.to_act:
                if p in game.to_act:
                    bot = neural if p == learner else bots[p]
                    game.apply(p, bot.choose(game.view(p)))
        assert terminal_rewards(game.scores(), game.winner_seats)[learner] == share
    assert len(data["obs"]) > 0


def test_samples_are_legal_with_their_log_probability_and_final_return(tmp_path: Path) -> None:
    arrays = to_arrays(load_params(_tiny(tmp_path)))
    network = Network.from_arrays(arrays)
    data, shares = play_learner_games(arrays, 4, ("greedy", "random"), [7], argmax=False)
    size = len(data["action"])
    assert size > 5 and data["obs"].shape == (size, OBS_SIZE)
    # every chosen action was legal, and logp / value are the network's at that observation
    assert data["mask"][np.arange(size), data["action"]].all()
    logits, values = network.forward(data["obs"])
    masked = np.where(data["mask"], logits, -np.inf)
    logp = masked - masked.max(axis=1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(data["logp"], logp[np.arange(size), data["action"]], atol=1e-4)
    np.testing.assert_allclose(data["value"], values, atol=1e-5)
    # every decision of the game carries the learner's final reward
    assert len(set(data["return"].tolist())) == 1
    ret = float(data["return"][0])
    assert shares[0] - MARGIN_WEIGHT * 30 <= ret <= shares[0] + MARGIN_WEIGHT * 30 + 1e-6


def test_tiny_run_from_the_command_line_trains_and_writes_curve(tmp_path: Path) -> None:
    start = _tiny(tmp_path)
    out = tmp_path / "run"
    code = main(
        [
            "--against",
            "greedy",
            "--players",
            "4",
            "--iterations",
            "2",
            "--batch",
            "6",
            "--eval-every",
            "1",
            "--eval-games",
            "4",
            "--jobs",
            "1",
            "--init",
            str(start),
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    history = json.loads((out / "history.json").read_text())
    assert [row["iteration"] for row in history] == [0, 1, 2]
    assert all(0.0 <= row["vs_greedy_4p"] <= 1.0 for row in history)
    assert (out / "curve.png").stat().st_size > 1000
    assert (out / "checkpoint-00002.npz").is_file()
    before, after = np.load(start), np.load(out / "final.npz")
    assert not np.allclose(before["policy_w"], after["policy_w"])  # it learned something
    meta = json.loads(str(after["meta"]))
    assert meta["config"]["against"] == ["greedy"]
    # the stage's own defaults where the option was not given
    assert (meta["config"]["lr"], meta["config"]["minibatch"]) == (1e-4, 1024)


def test_command_line_refuses_options_of_the_other_stage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--against", "greedy", "--hidden", "64", "--quiet"]) == 2
    assert "--hidden: not an option of --against" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--against", "grandmaster"])
    assert "grandmaster" in capsys.readouterr().err
