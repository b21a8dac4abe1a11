"""The examples run (tiny budgets)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch
from sb3_contrib import MaskablePPO

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_quick_tour(capsys: pytest.CaptureFixture[str]) -> None:
    load("quick_tour").main()
    out = capsys.readouterr().out
    assert "== 5. OpenSpiel" in out and "returns" in out


def test_mcts_example() -> None:
    share = load("openspiel_mcts").play(players=2, games=1, simulations=8, seed=0)
    assert 0.0 <= share <= 1.0


def test_training_example_smoke() -> None:
    train = load("train_maskable_ppo")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the example does: tiny nets are slower on several threads
    try:
        model = MaskablePPO("MlpPolicy", train.make_env(3, "score_diff"), n_steps=64, batch_size=32)
        model.learn(total_timesteps=64)
        assert 0.0 <= train.evaluate(model, 3, games=2, seed=0) <= 1.0
    finally:
        torch.set_num_threads(threads)


def test_benchmark_helpers() -> None:
    bench = load("benchmark_envs")
    assert bench.parallel_steps(2, 0.05) > 0
    assert bench.gym_steps(2, 0.05) > 0
    assert bench.openspiel_steps(2, 0.05) > 0
