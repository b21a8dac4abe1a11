"""Accounts' public face for the other features: the signed-in caller of a route."""

from __future__ import annotations

from gonuts.server.accounts.api import CurrentAccount
from gonuts.server.accounts.store import StoredAccount

__all__ = ["CurrentAccount", "StoredAccount"]
