"""Accounts in Chromium (issue 11, "Done when"): two people sign up, play a game against each
other, their ratings change, and the leaderboard and the profile page show it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect

from .conftest import Contexts, LiveServer
from .helpers import play_until_over

PASSWORD = "donuts for everyone"


def sign_up(page: Page, name: str) -> None:
    page.goto("/")
    page.get_by_test_id("sign-in-link").click()
    page.get_by_test_id("account-switch").click()  # "New here? Create an account"
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_test_id("account-submit").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_test_id("my-profile")).to_contain_text(name)
    expect(page.get_by_test_id("my-rating")).to_have_text("1000")


def test_sign_up_play_a_rated_game_then_the_leaderboard(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    ana = contexts.page()
    ben = contexts.page()
    sign_up(ana, "Ana")
    sign_up(ben, "Ben")

    # a wrong password is refused with the same words as an unknown name
    other = contexts.page()
    other.goto("/account")
    other.get_by_label("Name").fill("Ana")
    other.get_by_label("Password").fill("not the password")
    other.get_by_test_id("account-submit").click()
    expect(other.get_by_test_id("account-error")).to_have_text("Wrong name or password.")
    expect(other.get_by_test_id("sign-in-link")).to_be_visible()

    # Ana creates a table for two people: the lobby uses her account's name
    ana.goto("/")
    expect(ana.get_by_test_id("account-note")).to_contain_text("Signed in as Ana")
    expect(ana.get_by_label("Your name")).to_have_value("Ana")
    ana.get_by_test_id("seat-1").select_option("human")
    while ana.locator(".seat-list li").count() > 2:
        ana.get_by_test_id("remove-seat").click()
    ana.get_by_test_id("create").click()
    ana.wait_for_url(re.compile(r"/t/[^/?]+$"))
    table_id = ana.url.rsplit("/", 1)[1]
    invite = ana.get_by_test_id("invite-link").input_value()

    ben.goto(invite)
    expect(ben.get_by_test_id("waiting-room")).to_be_visible()
    ben.get_by_label("Your name").fill("Benjamin")  # signed in: the account's name wins
    ben.get_by_test_id("join").click()
    expect(ana.get_by_test_id("players")).to_contain_text("Ben")
    expect(ana.get_by_test_id("players")).not_to_contain_text("Benjamin")

    play_until_over([ana, ben], random.Random(21), timeout=150)
    summary = httpx.get(live_server.path(f"/api/tables/{table_id}")).json()
    winners = {summary["seats"][i]["name"] for i in summary["winners"]}
    # the end screen shows the rating change, and the header the new rating, without navigating
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        line = page.get_by_test_id("rating-change")
        expect(line).to_contain_text("Your rating: ")
        me = httpx.get(live_server.path(f"/api/players/{name}")).json()
        change = me["history"][-1]["change"]
        sign = "+" if change >= 0 else "−"
        expect(line).to_have_text(f"Your rating: {me['rating']} ({sign}{abs(change)})")
        expect(page.get_by_test_id("my-rating")).to_have_text(str(me["rating"]))

    # the leaderboard: both players, one rated game each; the winner gained
    ana.get_by_role("link", name="Leaderboard").first.click()
    board = ana.get_by_test_id("leaderboard")
    expect(board.locator("tbody tr")).to_have_count(2)
    api = httpx.get(live_server.path("/api/leaderboard")).json()["players"]
    for row, player in zip(board.locator("tbody tr").all(), api, strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells[1:] == [player["name"], str(player["rating"]), "1", str(player["wins"])]
    for player in api:
        if player["name"] in winners:
            assert player["rating"] > 1000
    ratings = {p["name"]: p["rating"] for p in api}
    expect(ana.get_by_test_id("my-rating")).to_have_text(str(ratings["Ana"]))
    ana.screenshot(path=screenshots / "leaderboard.png", full_page=True)

    # Ana's profile: the rating chart (the start and one game) and the game with its replay
    board.get_by_role("link", name="Ana").click()
    ana.wait_for_url(re.compile(r"/players/Ana$"))
    expect(ana.get_by_test_id("profile-rating")).to_have_text(str(ratings["Ana"]))
    chart = ana.get_by_test_id("rating-chart")
    expect(chart.locator("circle")).to_have_count(2)
    assert str(ratings["Ana"]) in (chart.get_attribute("aria-label") or "")
    games = ana.get_by_test_id("recent-games").locator("li")
    expect(games).to_have_count(1)
    ana.screenshot(path=screenshots / "profile.png", full_page=True)
    games.first.get_by_role("link", name="Watch the replay").click()
    ana.wait_for_url(re.compile(rf"/replay/{re.escape(table_id)}$"))
    expect(ana.get_by_text("Ben").first).to_be_visible()

    # signing out: a guest again, the header offers to sign in
    ana.get_by_test_id("sign-out").click()
    expect(ana.get_by_test_id("sign-in-link")).to_be_visible()
    assert contexts.errors == []
