"""Accounts' public face for the other features: the signed-in caller of a route, and who
owns a name (the lobby refuses a guest an account's name)."""

from __future__ import annotations

from collections.abc import Callable

from gonuts.server.accounts.api import CurrentAccount
from gonuts.server.accounts.service import lookup_key
from gonuts.server.accounts.store import AccountStore, StoredAccount


def name_owner(store: AccountStore) -> Callable[[str], int | None]:
    """A lookup: the id of the account that owns a name (folded as accounts fold names), or
    None."""

    def owner(name: str) -> int | None:
        key = lookup_key(name)
        account = store.account_by_key(key) if key is not None else None
        return None if account is None else account.id

    return owner


__all__ = ["CurrentAccount", "StoredAccount", "name_owner"]
