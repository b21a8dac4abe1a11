"""The examples run (tiny budgets)."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

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
    # One seat convention: the agent rewarded in section 2 is the seat the render names.
    rewards = ast.literal_eval(re.search(r"rewards (\{.*\})", out).group(1))  # type: ignore[union-attr]
    won = sorted(int(a.removeprefix("player_")) for a, r in rewards.items() if r > 0)
    shown = re.search(r"^winners: (.*)$", out, re.MULTILINE).group(1)  # type: ignore[union-attr]
    assert shown == ", ".join(f"seat {s}" for s in won)


def test_mcts_example_beats_random_bots() -> None:
    """The example's number is MCTS's mean win share at seat 0: a perfect-information search
    against random bots wins far above par (1/2 and 1/3), and a share is a mean of 0/½/1."""
    play = load("openspiel_mcts").play
    two = play(players=2, games=4, simulations=30, seed=0)
    assert two >= 0.75 and (two * 4 * 2) == int(two * 4 * 2)
    three = play(players=3, games=3, simulations=30, seed=1)
    assert three > 1 / 3


@pytest.mark.parametrize("blocked", ["torch", "sb3_contrib"])
def test_training_example_without_its_extra(blocked: str) -> None:
    """PyTorch is opt-in (in no lock): without it the example says what to install, in one line."""
    script = (
        f"import runpy, sys; sys.modules[{blocked!r}] = None; sys.argv = ['train']; "
        f"runpy.run_path({str(EXAMPLES / 'train_maskable_ppo.py')!r}, run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    # torch is imported first: where it is not installed at all, it is the one named.
    named = blocked if importlib.util.find_spec("torch") is not None else "torch"
    assert f"{named} is missing" in lines[0] and "gonuts[sb3]" in lines[0]


def test_training_example_smoke() -> None:
    # Runs where the opt-in sb3 extra and PyTorch are installed (never by the locks).
    torch = pytest.importorskip("torch", reason="PyTorch (the opt-in sb3 extra) is not installed")
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="the opt-in sb3 extra is not installed")
    train = load("train_maskable_ppo")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the example does: tiny nets are slower on several threads
    try:
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy", train.make_env(3, "score_diff"), n_steps=64, batch_size=32
        )
        model.learn(total_timesteps=64)
        assert 0.0 <= train.evaluate(model, 3, games=2, seed=0) <= 1.0
    finally:
        torch.set_num_threads(threads)


def test_benchmark_helpers() -> None:
    bench = load("benchmark_envs")
    assert bench.parallel_steps(2, 0.05) > 0
    assert bench.gym_steps(2, 0.05) > 0
    assert bench.openspiel_steps(2, 0.05) > 0
