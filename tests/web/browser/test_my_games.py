"""My games in Chromium (issue 27, item 2): a signed-in player's unfinished games listed with
"Your turn" first (the turn-based one with its deadline in the reader's words), the header's
badge counting them (refreshed when the tab comes back), a guest's empty page, the phone
width; screenshots ``docs/screenshots/my-games.png`` and ``my-games-phone.png``."""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from playwright.sync_api import APIRequestContext, Page, expect
from sqlalchemy import create_engine, insert, update

from gonuts.server.kernel.db import DeadlineRow, TableRow, utcnow

from .axe import assert_accessible
from .conftest import Contexts, LiveServer

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "easy"}


def post(api: APIRequestContext, server: LiveServer, path: str, body: Any) -> dict[str, Any]:
    r = api.post(
        path,
        data=json.dumps(body),
        headers={"Origin": server.url, "Content-Type": "application/json"},
    )
    assert r.ok, r.text()
    data: dict[str, Any] = r.json()
    return data


def legal(api: APIRequestContext, table_id: str, token: str) -> list[dict[str, Any]]:
    r = api.get(f"/api/tables/{table_id}/state", headers={"Authorization": f"Bearer {token}"})
    assert r.ok, r.text()
    moves: list[dict[str, Any]] = r.json()["view"]["legal"]
    return moves


def my_turn(api: APIRequestContext, table_id: str, token: str) -> None:
    end = time.monotonic() + 20
    while not legal(api, table_id, token):
        assert time.monotonic() < end, f"{table_id}: never my turn"
        time.sleep(0.05)


def seat(page: Page, table_id: str, made: dict[str, Any]) -> None:
    """Keep the seat in this browser as the app does (session.js)."""
    saved = json.dumps({"seat": made["seat"], "token": made["token"]})
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"gonuts.seat.{table_id}", saved])


def test_my_games_and_the_badge(
    contexts: Contexts, live_server: LiveServer, module_db_url: str, screenshots: Path
) -> None:
    page = contexts.page()
    page.goto("/")
    api = page.request
    post(api, live_server, "/api/account/signup", {"name": "Ana", "password": "donuts galore"})
    made = {
        key: post(api, live_server, "/api/tables", {"seats": seats, "name": "x"})
        for key, seats in (
            ("live", [HUMAN, BOT]),
            ("turn", [HUMAN, BOT, BOT]),
            ("others", [HUMAN, HUMAN, BOT]),
            ("filling", [HUMAN, HUMAN, HUMAN]),
        )
    }
    ids = {key: m["table"]["id"] for key, m in made.items()}
    bo_context = contexts.new()  # Bo, a guest, at Ana's three-seat table
    guest = bo_context.request
    join = guest.post(
        f"/api/tables/{ids['others']}/join",
        data=json.dumps({"name": "Bo"}),
        headers={"Content-Type": "application/json"},
    )
    assert join.ok, join.text()
    for key in ("live", "turn", "others"):
        my_turn(api, ids[key], made[key]["token"])
    pick = legal(api, ids["others"], made["others"]["token"])[0]["action"]
    r = api.post(
        f"/api/tables/{ids['others']}/actions",
        data=json.dumps({"action": pick}),
        headers={
            "Authorization": f"Bearer {made['others']['token']}",
            "Content-Type": "application/json",
        },
    )
    assert r.ok, r.text()
    engine = create_engine(module_db_url)
    due = utcnow() + timedelta(hours=5, minutes=1)
    with engine.begin() as c:  # the turn-based table as the turns feature stores it
        c.execute(update(TableRow).where(TableRow.id == ids["turn"]).values(clock=86400))
        c.execute(insert(DeadlineRow).values(table_id=ids["turn"], seat=0, decision=0, due_at=due))
    engine.dispose()
    for key in ("live", "turn", "others"):
        seat(page, ids[key], made[key])  # "filling" was made elsewhere: opened, not resumed

    page.goto("/my-games")
    cards = page.get_by_test_id("my-game")
    expect(cards).to_have_count(4)
    assert [cards.nth(i).get_attribute("data-table") for i in range(4)] == [
        ids["turn"],
        ids["live"],
        ids["others"],
        ids["filling"],
    ]
    first = cards.nth(0)
    expect(first).to_contain_text("Your turn")
    expect(first.locator("time")).to_contain_text("in 5 hours")
    expect(first).to_contain_text("1 day per move")
    expect(first).to_contain_text("Turn-based")
    expect(cards.nth(1)).to_contain_text("Your turn")
    expect(cards.nth(1).locator("time")).to_have_count(0)  # no clock: no deadline
    expect(cards.nth(2)).to_contain_text("Waiting for others")
    expect(cards.nth(2)).to_contain_text("With Bo and")
    expect(cards.nth(3)).to_contain_text("Waiting for players")
    expect(cards.nth(3)).to_contain_text("2 seats free")
    expect(cards.nth(3).get_by_test_id("resume")).to_have_text("Open the table")
    badge = page.get_by_test_id("my-games-badge")
    expect(badge).to_have_text("2")
    expect(badge).to_have_attribute("aria-label", "2 games waiting for you")
    expect(page.get_by_role("link", name="My games 2 games waiting for you")).to_be_visible()
    page.screenshot(path=str(screenshots / "my-games.png"), full_page=True)
    assert_accessible(page, "my games")

    # a fourth table waits for Ana: the badge hears it when the tab is seen again
    more = post(api, live_server, "/api/tables", {"seats": [HUMAN, BOT], "name": "x"})
    my_turn(api, more["table"]["id"], more["token"])
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(badge).to_have_text("3")

    # Resume goes to the table, seated
    expect(cards).to_have_count(5)  # (the page heard it too, the newest waiting one second)
    assert cards.nth(1).get_attribute("data-table") == more["table"]["id"]
    page.locator(f"[data-table='{ids['live']}']").get_by_test_id("resume").click()
    page.wait_for_url(re.compile(rf"/t/{ids['live']}$"))
    expect(page.get_by_test_id("my-games-badge")).to_have_text("3")

    # the phone, in Spanish: the same list, the badge in the scrolling strip
    phone = contexts.page(phone=True, touch=True, locale="es")
    phone.goto("/?lang=es")
    post(
        phone.request,
        live_server,
        "/api/account/signin",
        {"name": "Ana", "password": "donuts galore"},
    )
    phone.goto("/my-games")
    expect(phone.get_by_test_id("my-game")).to_have_count(5)
    expect(phone.get_by_test_id("my-game").nth(0)).to_contain_text("Te toca")
    expect(phone.get_by_test_id("my-games-badge")).to_have_attribute(
        "aria-label", "3 partidas te esperan"
    )
    expect(phone.get_by_role("link", name="Mis partidas 3 partidas te esperan")).to_be_visible()
    width = 390
    assert phone.locator("#app").evaluate("e => e.scrollWidth") <= width
    phone.screenshot(path=str(screenshots / "my-games-phone.png"), full_page=True)
    assert_accessible(phone, "my games on a phone")

    # Bo, a guest: his saved seat (and a forged one, remembered as stale and not sent again)
    bo = bo_context.new_page()
    bo.on("pageerror", lambda exc: contexts.errors.append(str(exc)))
    bo.goto("/")
    seat(bo, ids["others"], join.json())
    seat(bo, "forged", {"seat": 0, "token": "not-a-real-token"})
    bo.goto("/my-games")
    expect(bo.get_by_test_id("my-game")).to_have_count(1)
    expect(bo.get_by_test_id("my-game")).to_contain_text("Your turn")
    expect(bo.get_by_test_id("my-game")).to_contain_text("With Ana and")
    expect(bo.get_by_test_id("my-games-badge")).to_have_attribute(
        "aria-label", "1 game waiting for you"
    )
    stale = bo.evaluate("localStorage.getItem('gonuts.mygames.stale')")
    assert json.loads(stale) == ["forged"]

    # a guest with nothing saved: the empty page, a way to the lobby, no badge
    stranger = contexts.page()
    stranger.goto("/my-games")
    expect(stranger.get_by_test_id("my-games-empty")).to_contain_text("no unfinished games")
    expect(stranger.get_by_test_id("my-games-badge")).to_be_hidden()
    assert_accessible(stranger, "my games, empty")
    stranger.get_by_role("link", name="Find a game in the lobby").click()
    stranger.wait_for_url(re.compile(r"/$"))
    assert contexts.errors == []
