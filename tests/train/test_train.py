"""A tiny self-play run really trains and writes its checkpoint, history and curve."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("flax", reason="the train extra is not installed")
pytest.importorskip("optax", reason="the train extra is not installed")

import jax
import jax.numpy as jnp

from gonuts.bots.neural import Network
from gonuts.envs.encoding import OBS_SIZE
from gonuts.train.__main__ import main
from gonuts.train.ppo import Config, PolicyValue, export_npz, input_scale, train


def test_tiny_run_trains_and_writes_checkpoint_and_curve(tmp_path: Path) -> None:
    cfg = Config(
        seed=3,
        iterations=2,
        batch=8,
        players=(2,),
        hidden=32,
        minibatch=256,
        eval_every=1,
        eval_players=(2,),
        out=str(tmp_path / "run"),
    )
    final = train(cfg)
    run = tmp_path / "run"
    assert final == run / "final.npz" and final.exists()
    assert (run / "checkpoint.npz").exists()
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    history = json.loads((run / "history.json").read_text())
    assert [h["iteration"] for h in history] == [0, 1, 2]
    assert all(0.0 <= h["vs_random_2p"] <= 1.0 for h in history)
    assert history[-1]["games"] == 16
    # It really trained: the weights moved away from the seeded initialisation.
    model = PolicyValue(32)
    init = model.init(jax.random.split(jax.random.key(3))[1], jnp.zeros((1, OBS_SIZE)))
    net = Network(final)
    start = np.asarray(init["params"]["policy"]["kernel"])
    assert net.policy[0].shape == start.shape
    assert not np.allclose(net.policy[0], start)


def test_numpy_forward_matches_flax(tmp_path: Path) -> None:
    model = PolicyValue(16)
    params = model.init(jax.random.key(0), jnp.zeros((1, OBS_SIZE)))
    export_npz(params, tmp_path / "w.npz", {})
    x = np.random.default_rng(0).integers(0, 5, (4, OBS_SIZE)).astype(np.float32)
    logits, value = model.apply(params, jnp.asarray(x * input_scale()))
    np_logits, np_value = Network(tmp_path / "w.npz").forward(x)
    np.testing.assert_allclose(np_logits, np.asarray(logits), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np_value, np.asarray(value), rtol=1e-4, atol=1e-4)


def test_command_line_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--players", "7"])
    assert "player counts must be 2 to 6" in capsys.readouterr().err
    assert main(["--random-seat", "1.5", "--quiet"]) == 2
    assert "--random-seat" in capsys.readouterr().err
