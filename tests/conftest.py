"""Test-wide settings."""

from __future__ import annotations

import os
import signal

from hypothesis import settings

# In CI (CI=true), property tests run the same examples every time, so a landing never depends
# on luck; locally they explore new examples on every run (and keep failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# A suite started in the background of a non-interactive shell (`make test &`) inherits Ctrl-C
# ignored (POSIX: such jobs get SIGINT set to SIG_IGN), and so would every program the Ctrl-C
# tests start, which then never see their interrupt. Restore the usual handler so that what the
# tests send is what a person at a terminal sends.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
