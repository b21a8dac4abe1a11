"""The compiled engine is the pure one, faster (issue 28).

* differential: 10,000 seeded random games -- every table size, no variant, each variant,
  all of them -- traced by the compiled build and by the same sources interpreted
  (``GONUTS_PURE=1``) in separate processes: every state, legal action list, event, score and
  a search-path playout agree (``tests/engine_trace.py``);
* both forms of the shuffle's arithmetic give the same swaps;
* ``GONUTS_PURE=1`` loads every engine module from source.

Without a compiled build the differential test is skipped, unless ``GONUTS_REQUIRE_COMPILED=1``
(CI's compiled run) makes that a failure.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import gonuts
from gonuts import build, rng

TESTS = Path(__file__).resolve().parent
GAMES = int(os.environ.get("GONUTS_DIFF_GAMES", "10000"))
"""Games the differential test plays (the issue's 10,000; fewer for a quick local check)."""
CHUNKS = 2
"""Processes per build (the games split between them)."""


def trace_env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != build.PURE_ENV}
    # The subprocesses import the gonuts this test imports.
    src = str(Path(gonuts.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    if pure:
        env[build.PURE_ENV] = "1"
    return env


def run_trace(pure: bool, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(TESTS / "engine_trace.py"), *args],
        env=trace_env(pure),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def digests(pure: bool, start: int, count: int) -> tuple[str, list[str]]:
    out = json.loads(run_trace(pure, str(start), str(count)))
    return out["build"], out["digests"]


def test_compiled_and_pure_builds_play_every_game_alike() -> None:
    if not build.compiled_available():
        if os.environ.get("GONUTS_REQUIRE_COMPILED") == "1":
            pytest.fail("GONUTS_REQUIRE_COMPILED=1 but gonuts is not compiled")
        pytest.skip("no compiled build installed (pip install . with a C compiler)")
    size = GAMES // CHUNKS
    jobs = [(pure, c * size) for pure in (False, True) for c in range(CHUNKS)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(lambda job: digests(job[0], job[1], size), jobs))
    compiled = [d for (name, d), (pure, _) in zip(results, jobs, strict=True) if not pure]
    interpreted = [d for (name, d), (pure, _) in zip(results, jobs, strict=True) if pure]
    names = {(pure, name) for (name, _), (pure, _) in zip(results, jobs, strict=True)}
    assert names == {(False, "compiled"), (True, "pure Python")}
    flat_compiled = [x for chunk in compiled for x in chunk]
    flat_pure = [x for chunk in interpreted for x in chunk]
    assert len(flat_compiled) == len(flat_pure) == GAMES
    differing = [i for i, (a, b) in enumerate(zip(flat_compiled, flat_pure, strict=True)) if a != b]
    if differing:
        first = differing[0]
        lines = zip(
            run_trace(False, "--game", str(first)).splitlines(),
            run_trace(True, "--game", str(first)).splitlines(),
            strict=False,
        )
        where = next(((a, b) for a, b in lines if a != b), ("(same lines)", "(a trace is longer)"))
        pytest.fail(
            f"{len(differing)} of {GAMES} games differ; game {first} first differs at\n"
            f"compiled: {where[0][:500]}\npure:     {where[1][:500]}"
        )


def test_both_forms_of_the_shuffle_arithmetic_agree() -> None:
    r = random.Random(28)
    for k in range(2000):
        seed = r.getrandbits(64) if k % 3 else -r.getrandbits(70)
        size = r.randrange(1, 150)
        assert rng._targets(size, seed) == rng._targets_halves(size, seed), (size, seed)


def test_gonuts_pure_loads_every_engine_module_from_source() -> None:
    code = (
        "import importlib, gonuts.build as b\n"
        "for name in b.COMPILED_MODULES:\n"
        "    assert importlib.import_module(name).__file__.endswith('.py'), name\n"
        "print(b.build_name())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=trace_env(pure=True),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "pure Python"), done.stderr


def test_without_a_c_compiler_the_wheel_is_pure_python(tmp_path: Path) -> None:
    """CC=false: setup.py says so in one line and builds a pure wheel (py3-none-any)."""
    import importlib.metadata  # noqa: PLC0415

    try:
        setuptools_major = int(importlib.metadata.version("setuptools").split(".")[0])
    except importlib.metadata.PackageNotFoundError:
        setuptools_major = 0
    if setuptools_major < 77:
        pytest.skip("the build tools of requirements/build.in are not installed here")
    root = TESTS.parent
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation"),
            *("--no-index", "-w", str(tmp_path), str(root)),
        ],
        env={k: v for k, v in os.environ.items() if k != build.PURE_ENV} | {"CC": "false"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    output = (done.stdout + done.stderr).splitlines()
    notices = [line.strip() for line in output if line.strip().startswith("gonuts:")]
    assert notices == ["gonuts: no working C compiler; installing the pure-Python engine"]
    assert [p.name for p in tmp_path.glob("*.whl")] == [
        f"gonuts-{gonuts.__version__}-py3-none-any.whl"
    ]


# -- installs and wheels (issue 28, item 4) ------------------------------------------------------
# Both need an index for the isolated build's requirements (setuptools, mypy) and for `build`:
# PyPI in CI, the machine's configured indexes here.

NOTICE = "gonuts: no working C compiler; installing the pure-Python engine"
BUILD_NAME = "from gonuts.build import build_name; print(build_name())"


def fresh_venv(where: Path) -> Path:
    """A new venv that sees this environment's installed packages after its own (a .pth line):
    gonuts itself comes from what the test installs into it."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "gonuts_test_deps.pth").write_text("\n".join(ours) + "\n")
    return python


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (build.PURE_ENV, "PYTHONPATH")}
    return env | extra


@pytest.mark.slow
def test_a_venv_install_without_a_c_compiler_runs_pure_python(tmp_path: Path) -> None:
    """``CC=false pip install .`` in a fresh venv: one line of notice, then the pure engine runs."""
    python = fresh_venv(tmp_path / "venv")
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-v", "--no-deps", str(TESTS.parent)],
        env=clean_env(CC="false"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = (done.stdout + done.stderr).splitlines()
    assert [line.strip() for line in lines if line.strip().startswith("gonuts:")] == [NOTICE]
    ran = subprocess.run(
        [str(python), "-c", BUILD_NAME], env=clean_env(), cwd=tmp_path, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (ran.returncode, ran.stdout.strip()) == (0, "pure Python"), ran.stderr[-2000:]


@pytest.mark.slow
def test_python_m_build_gives_a_platform_wheel_and_a_pure_wheel(tmp_path: Path) -> None:
    """``python -m build --wheel``: a compiled wheel for this platform that installs and runs
    compiled; with ``GONUTS_PURE=1`` a ``py3-none-any`` wheel without extension modules."""
    if not build.compiled_available():
        pytest.skip("no C compiler build here (the compiled wheel is what this test checks)")
    python = fresh_venv(tmp_path / "venv")
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "build"], env=clean_env(), check=True, timeout=600)
    wheels = {}
    for pure in (False, True):
        out = tmp_path / ("pure" if pure else "platform")
        extra = {build.PURE_ENV: "1"} if pure else {}
        done = subprocess.run(
            [str(python), "-m", "build", "--wheel", "--outdir", str(out), str(TESTS.parent)],
            env=clean_env(**extra), cwd=tmp_path, capture_output=True, text=True,
            timeout=1200, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        (wheel,) = out.glob("*.whl")
        wheels[pure] = wheel
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert wheels[False].name.startswith(f"gonuts-{gonuts.__version__}-{tag}-{tag}-linux_")
    assert wheels[True].name == f"gonuts-{gonuts.__version__}-py3-none-any.whl"
    import zipfile  # noqa: PLC0415

    with zipfile.ZipFile(wheels[True]) as z:
        assert not [n for n in z.namelist() if n.endswith(".so")]
    with zipfile.ZipFile(wheels[False]) as z:
        compiled = {n.split(".")[0] for n in z.namelist() if n.endswith(".so")}
    expected = {name.replace(".", "/") for name in build.COMPILED_MODULES}
    assert expected <= compiled
    subprocess.run([*pip, "--no-deps", str(wheels[False])], env=clean_env(), check=True)
    ran = subprocess.run(
        [str(python), "-c", BUILD_NAME], env=clean_env(), cwd=tmp_path, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert (ran.returncode, ran.stdout.strip()) == (0, "compiled"), ran.stderr[-2000:]


def test_the_signal_poll_of_the_search_loops_stays_interpreted() -> None:
    """Compiled loops let Ctrl-C through only by calling interpreted code (bots.budget)."""
    import types  # noqa: PLC0415

    from gonuts.bots.budget import poll_signals  # noqa: PLC0415

    assert "gonuts.bots.budget" not in build.COMPILED_MODULES
    assert isinstance(poll_signals, types.FunctionType)
