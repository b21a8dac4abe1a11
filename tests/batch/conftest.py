"""One JAX compile per program for the whole test session.

JAX keeps compiled programs per process; the persistent compilation cache shares them between
the processes of one session (pytest-xdist workers, and the ``gonuts bench --batch``
subprocesses, which inherit ``JAX_COMPILATION_CACHE_DIR``). The cache lives in the session's
temporary directory, so each session starts clean.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def jax_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    jax = pytest.importorskip("jax")
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this session
    cache = root / "jax-cache"
    cache.mkdir(exist_ok=True)
    old = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(cache)
    jax.config.update("jax_compilation_cache_dir", str(cache))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    yield cache
    if old is None:
        os.environ.pop("JAX_COMPILATION_CACHE_DIR", None)
    else:
        os.environ["JAX_COMPILATION_CACHE_DIR"] = old
