"""The web server: lobby, live tables over WebSockets, replays (docs/protocol.md)."""

from gonuts.server.app import create_app

__all__ = ["create_app"]
