"""Ratings (gonuts.server.accounts.ratings): places by the rules' winning order, openskill
Plackett–Luce updates with fixed bot and guest ratings, the displayed scale, and a
game rated once."""

from __future__ import annotations

import pytest

from gonuts.game import Game
from gonuts.server.accounts.ratings import (
    BOT_RATINGS,
    GUEST_RATING,
    NEW_RATING,
    display,
    game_places,
    places,
    rate,
    rate_finished,
)
from gonuts.server.accounts.store import RatedSeat
from gonuts.server.play.store import StoredSeat, StoredTable, with_account
from gonuts.server.store import TableStore


def account(seat: int, account_id: int, mu: float = 25.0, sigma: float = 25 / 3) -> RatedSeat:
    return RatedSeat(seat, "human", None, account_id, mu, sigma)


def test_places_follow_total_then_cards_and_share_full_ties() -> None:
    assert places([10, 20, 15], [5, 5, 5]) == [3, 1, 2]
    # equal totals: more cards first; equal on both: the same place, the next one skipped
    assert places([20, 20, 20, 5], [7, 9, 7, 9]) == [2, 1, 2, 4]
    assert places([12, 12], [6, 6]) == [1, 1]


def test_the_winner_gains_and_the_loser_loses() -> None:
    new = rate([account(0, 1), account(1, 2)], [1, 2])
    (mu1, sigma1), (mu2, sigma2) = new[1], new[2]
    assert mu1 > 25.0 > mu2
    assert sigma1 < 25 / 3 and sigma2 < 25 / 3
    assert display(mu1, sigma1) > 1000


def test_a_shared_place_moves_equal_players_equally() -> None:
    new = rate([account(0, 1), account(1, 2), account(2, 3)], [1, 1, 3])
    assert new[1] == pytest.approx(new[2])
    assert new[3][0] < 25.0 < new[1][0]


def test_bots_and_guests_take_part_but_are_not_updated() -> None:
    bot_hard = RatedSeat(2, "bot", "hard", None, None, None)
    guest = RatedSeat(3, "human", None, None, None, None)
    seats = [account(0, 1), account(1, 2), bot_hard, guest]
    new = rate(seats, [2, 3, 1, 4])
    assert set(new) == {1, 2}  # only accounts get new ratings
    # losing to a hard bot costs less than losing to an easy one
    easy = rate(
        [account(0, 1), account(1, 2), RatedSeat(2, "bot", "easy", None, None, None)], [2, 3, 1]
    )
    hard = rate(
        [account(0, 1), account(1, 2), RatedSeat(2, "bot", "hard", None, None, None)], [2, 3, 1]
    )
    assert hard[1][0] > easy[1][0]
    assert BOT_RATINGS["hard"][0] > BOT_RATINGS["medium"][0] > BOT_RATINGS["easy"][0]
    assert GUEST_RATING == NEW_RATING


def test_displayed_rating_of_a_new_account_is_1000() -> None:
    assert display(*NEW_RATING) == 1000
    assert display(30.0, 2.0) == 1000 + 40 * 24


def finished_game(seed: int = 1) -> Game:
    game = Game.new(["Ana", "Ben", "Bot"], seed=seed)
    while not game.is_over:
        for seat in game.to_act:
            if not game.is_over and seat in game.to_act:
                game.apply(seat, game.legal_actions(seat)[0])
    return game


@pytest.fixture
def store(db_url: str) -> TableStore:
    return TableStore(db_url)


def stored_table(store: TableStore, table_id: str, accounts: list[int | None]) -> None:
    seats = tuple(
        StoredSeat(i, "human" if i < 2 else "bot", None if i < 2 else "easy", f"P{i}")
        for i in range(3)
    )
    table = StoredTable(table_id, "finished", ("plain",) * 3, seats)
    for seat, account_id in enumerate(accounts):
        if account_id is not None:
            table = with_account(table, seat, account_id)
    store.create(table)


def test_a_game_is_rated_once_and_only_with_two_accounts(store: TableStore) -> None:
    ana = store.create_account("Ana", "ana", "x", *NEW_RATING)
    ben = store.create_account("Ben", "ben", "x", *NEW_RATING)
    assert ana is not None and ben is not None
    assert store.create_account("ANA", "ana", "x", *NEW_RATING) is None
    game = finished_game()
    expected = game_places(game)

    stored_table(store, "one", [ana, None, None])
    assert not rate_finished(store, "one", game)  # one account: not rated
    stored_table(store, "two", [ana, ben, None])
    assert rate_finished(store, "two", game)
    assert not rate_finished(store, "two", game)  # never twice
    for account_id, seat in ((ana, 0), (ben, 1)):
        got = store.account(account_id)
        assert got is not None and got.games == 1
        assert got.wins == (1 if expected[seat] == 1 else 0)
        [change] = store.rating_history(account_id, 10)
        assert change.table_id == "two" and change.rank == expected[seat]
        assert (change.mu, change.sigma) == (got.mu, got.sigma)
        assert (change.mu_before, change.sigma_before) == NEW_RATING
    board, total = store.leaderboard(10, 0)
    assert total == 2
    assert [a.mu - 3 * a.sigma for a in board] == sorted(
        (a.mu - 3 * a.sigma for a in board), reverse=True
    )
    store.close()
