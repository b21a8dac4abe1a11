"""Whether the engine runs compiled (mypyc) or interpreted, for the few places that differ.

The two builds run the same code except where one form is fast compiled and another when
interpreted (copying a state, the shuffle's 64-bit arithmetic); both forms give the same
results, which the tests check by calling both.
"""

from __future__ import annotations

from types import FunctionType
from typing import Final


def _compiled() -> bool:
    """True when this module runs compiled: mypyc makes its functions built-in functions."""
    return not isinstance(_compiled, FunctionType)


COMPILED: Final = _compiled()
"""True in the compiled build (this module is compiled with the rest of the engine)."""
