"""Research environments: PettingZoo, Gymnasium and OpenSpiel wrappers around the engine.

Install the ``research`` extra for them. The modules are imported on demand:

* :mod:`gonuts.envs.encoding` — the fixed ``Discrete(521)`` action space, action masks and the
  observation vector (numpy only);
* :mod:`gonuts.envs.pettingzoo` — ``parallel_env(players=N)`` and ``env(players=N)``;
* :mod:`gonuts.envs.gymnasium` — the single-agent ``gonuts/GoNuts-v0`` (bots in the other
  seats); importing :mod:`gonuts.envs` registers it with Gymnasium when Gymnasium is installed;
* :mod:`gonuts.envs.openspiel` — importing it registers the OpenSpiel game ``python_gonuts``.
"""

from __future__ import annotations

GYM_ENV_ID = "gonuts/GoNuts-v0"


def _register_gymnasium() -> None:
    try:
        import gymnasium  # noqa: PLC0415 - optional: only with the research extra
    except ImportError:  # pragma: no cover - the research extra is not installed
        return
    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ENV_ID,
            entry_point="gonuts.envs.gymnasium:GoNutsEnv",
            # make_vec(..., vectorization_mode="vector_entry_point"): gonuts.batch, needs JAX
            vector_entry_point="gonuts.envs.vector:GoNutsVectorEnv",
        )


_register_gymnasium()

__all__ = ["GYM_ENV_ID"]
