"""Caches bounded by bytes, not entries.

A count bound says nothing about memory when the entries' size is up to the client: the cache
of localized events was keyed by player names, and forty uploads of records with long names
once held 1.4 GB (issue 17). :class:`ByteLRU` drops the least recently used entries once the
sizes of what it holds pass ``budget``; :func:`byte_lru` puts one in front of a function like
``functools.lru_cache`` does. (Thirty lines instead of a dependency: ``cachetools`` has the
same idea, but is not in the locked environments.)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Final, Generic, ParamSpec, TypeVar

import pydantic_core

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")

ACTIONS_CACHE_BYTES: Final = 4 << 20
"""Localized actions (:func:`gonuts.server.play.messages.action_json`), keyed by players' names."""
EVENTS_CACHE_BYTES: Final = 8 << 20
"""Localized events (:func:`gonuts.server.play.messages.event_json`), keyed by players' names."""

ENTRY_OVERHEAD: Final = 200
"""Bytes counted for an entry on top of its value's size (the key, the dict slot)."""


def json_size(value: object) -> int:
    """Roughly what ``value`` costs in memory: the length of its JSON, plus the entry."""
    return len(pydantic_core.to_json(value)) + ENTRY_OVERHEAD


class ByteLRU(Generic[K, V]):
    """A thread-safe LRU mapping holding at most ``budget`` bytes, as ``size`` counts them
    (a value larger than the whole budget is not kept)."""

    def __init__(self, budget: int, size: Callable[[V], int] = json_size) -> None:
        if budget < 1:
            raise ValueError("budget must be positive")
        self.budget = budget
        self.size = size
        self.nbytes = 0
        # The values and their costs in two mappings, not (value, cost) pairs: a pair would be
        # one more object per entry for the garbage collector to walk (see ``put``).
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._costs: dict[K, int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                return None
            self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` (not None) under ``key``, dropping the least recently used entries
        beyond the budget.

        What a server caches lives for a while, so it outlives the garbage collector's young
        generation and is walked by every older collection until it is dropped: the budget
        is memory, but every entry also costs collection time, so keep entries small in
        objects (see :func:`gonuts.server.play.messages.event_json`)."""
        cost = self.size(value)
        with self._lock:
            if self._entries.pop(key, None) is not None:
                self.nbytes -= self._costs.pop(key)
            if cost > self.budget:
                return
            self._entries[key] = value
            self._costs[key] = cost
            self.nbytes += cost
            while self.nbytes > self.budget:
                dropped, _ = self._entries.popitem(last=False)
                self.nbytes -= self._costs.pop(dropped)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._costs.clear()
            self.nbytes = 0


class CachedFunction(Generic[P, R]):
    """``fn`` with its results kept in a :class:`ByteLRU` (arguments must be hashable)."""

    def __init__(self, fn: Callable[P, R], budget: int, size: Callable[[R], int]) -> None:
        self.fn = fn
        self.cache: ByteLRU[Hashable, R] = ByteLRU(budget, size)
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", "cached")

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        found = self.cache.get(key)
        if found is not None:
            return found
        value = self.fn(*args, **kwargs)
        self.cache.put(key, value)
        return value

    def cache_clear(self) -> None:
        self.cache.clear()


def byte_lru(
    budget: int, size: Callable[[Any], int] = json_size
) -> Callable[[Callable[P, R]], CachedFunction[P, R]]:
    """Decorator: cache the function's results (never None) in at most ``budget`` bytes."""

    def wrap(fn: Callable[P, R]) -> CachedFunction[P, R]:
        return CachedFunction(fn, budget, size)

    return wrap


__all__ = [
    "ACTIONS_CACHE_BYTES",
    "EVENTS_CACHE_BYTES",
    "ByteLRU",
    "CachedFunction",
    "byte_lru",
    "json_size",
]
