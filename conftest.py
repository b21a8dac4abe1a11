"""Collection over ``src/gonuts`` (``--doctest-modules``): a module that runs compiled (a mypyc
extension beside its ``.py``) would be collected from its source file while ``import`` finds the
extension under the same name, which pytest refuses ("import file mismatch"). Those sources are
left out of collection while they run compiled; ``GONUTS_PURE=1`` collects them as usual."""

from __future__ import annotations

import importlib
import importlib.machinery

from gonuts import build


def _running_compiled(name: str) -> bool:
    module = importlib.import_module(name)
    return (getattr(module, "__file__", None) or "").endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES)
    )


collect_ignore = [
    "src/" + name.replace(".", "/") + ".py"
    for name in build.COMPILED_MODULES
    if _running_compiled(name)
]
