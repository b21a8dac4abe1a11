"""Test-wide settings."""

from __future__ import annotations

import os

from hypothesis import settings

# In CI (CI=true), property tests run the same examples every time, so a landing never depends
# on luck; locally they explore new examples on every run (and keep failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
