"""The load tester: simulated players over WebSockets against a real server (docs/loadtest.md).

* :mod:`gonuts.loadtest.launcher` — server processes on loopback ports (the load test's own
  server, or ``gonuts serve``), CPU pinning and CPU time;
* :mod:`gonuts.loadtest.client` — the lobby over HTTP, :class:`Player` (the one player loop)
  and :func:`drive` (the load run);
* :mod:`gonuts.loadtest.report` — percentiles, :class:`Result` and its JSON keys.

``gonuts loadtest`` (:mod:`gonuts.cli.loadtest`) is the command line on top; the process tests
(tests/web/procs.py) use the same launcher and player. Needs the ``web`` extra.
"""

from __future__ import annotations

from gonuts.loadtest.client import Player, Stats, drive, group_sizes
from gonuts.loadtest.launcher import ServerProcess, is_loopback, local_server
from gonuts.loadtest.report import Result, percentile

__all__ = [
    "Player",
    "Result",
    "ServerProcess",
    "Stats",
    "drive",
    "group_sizes",
    "is_loopback",
    "local_server",
    "percentile",
]
