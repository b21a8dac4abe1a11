"""The server's database as one object: every feature's store on one engine.

Each feature owns its SQL (``play/store.py``, ``games/store.py``, ``accounts/store.py``, all on
:class:`~gonuts.server.kernel.db.Database`); the app, the command line and the tests open the
database once, as a :class:`TableStore`, and hand each feature its part.
"""

from __future__ import annotations

from gonuts.server.accounts.store import AccountStore
from gonuts.server.chat.store import ChatStore
from gonuts.server.games.store import GamesStore
from gonuts.server.lobby.store import RoomStore
from gonuts.server.matching.store import QueueStore
from gonuts.server.mygames.store import MyGamesStore
from gonuts.server.notify.store import NotifyStore
from gonuts.server.play.store import PlayStore
from gonuts.server.review.store import ReviewStore


class TableStore(
    PlayStore,
    GamesStore,
    AccountStore,
    ReviewStore,
    RoomStore,
    ChatStore,
    QueueStore,
    MyGamesStore,
    NotifyStore,
):
    """Tables, seats, actions, finished games, accounts, sessions and ratings, reviews; waiting
    rooms, chat, the "Play now" queue; whose unfinished tables are whose (my games); notification
    settings and push subscriptions."""


__all__ = ["TableStore"]
