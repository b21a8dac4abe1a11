"""The web server: lobby, live tables over WebSockets, replays (docs/protocol.md).

``create_app`` is imported on first use: a thinking worker process
(:mod:`gonuts.server.kernel.thinking`) imports this package but needs none of the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gonuts.server.app import create_app


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from gonuts.server.app import create_app  # noqa: PLC0415 - the web stack, when asked

        return create_app
    raise AttributeError(f"module 'gonuts.server' has no attribute {name!r}")


__all__ = ["create_app"]
