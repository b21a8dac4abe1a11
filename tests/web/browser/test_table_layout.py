"""The table on one screen (issue 25 item 1), measured in Chromium: the boxes of the row's
positions, the prompt, every seat's panel (score, cards, status, collection) and the deck and
discard counts lie inside the viewport without scrolling at 1280×800 and 1366×768 for 2 to 6
players; on a 390×844 phone the row, the prompt and your own cards do, the opponents fold into
a strip of 44 px touch targets, and the row's slots do not move during a reveal.

Each table is stored mid-game (a stacked deck and its history, :mod:`.stacked`), so the seats
have collections to show; one page per table is resized through the three screens.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from gonuts.game import Game
from gonuts.state import Phase

from .conftest import Contexts
from .stacked import seat_script, stacked_table

DESKTOPS = ((1280, 800), (1366, 768))
PHONE = (390, 844)


def _mid_game(game: Game) -> bool:
    """Seat 0 chooses a position in round 5 or later, every seat owning some cards."""
    return (
        game.phase is Phase.SELECT
        and 0 in game.to_act
        and game.round >= 5
        and all(sum(game.collection(p).values()) >= 2 for p in range(game.num_players))
    )


def box(locator: Locator) -> dict[str, float]:
    found = locator.bounding_box()
    if found is None:
        shot = Path(tempfile.gettempdir()) / f"gonuts-layout-{time.time_ns()}.png"
        locator.page.screenshot(path=str(shot))
        raise AssertionError(f"{locator} is not rendered (screenshot {shot})")
    return {"x": found["x"], "y": found["y"], "width": found["width"], "height": found["height"]}


def assert_on_screen(locator: Locator, size: tuple[int, int], what: str) -> dict[str, float]:
    b = box(locator)
    width, height = size
    assert b["width"] > 0 and b["height"] > 0, (what, b)
    assert b["x"] >= -0.5 and b["y"] >= -0.5, (what, size, b)
    assert b["x"] + b["width"] <= width + 0.5, (what, size, b)
    assert b["y"] + b["height"] <= height + 0.5, (what, size, b)
    return b


def open_table(contexts: Contexts, db_url: str, players: int, *, phone: bool = False) -> Page:
    stacked = stacked_table(db_url, players, _mid_game)
    page = contexts.page(phone=phone, touch=phone)
    page.add_init_script(seat_script(stacked))
    page.goto(f"/t/{stacked.table_id}")
    # (the first page of a context loads every script: on a busy machine that takes a while)
    expect(page.get_by_test_id("pick-1")).to_be_enabled(timeout=15_000)
    # the bots choose as soon as the table is live: measure once they have
    expect(page.locator(".player .status.done")).to_have_count(players - 1)
    return page


def check_desktop(page: Page, players: int, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("window.scrollTo(0, 0)")
    expect(page.locator(".players.strip")).to_have_count(0)
    for pos in range(1, players + 2):
        assert_on_screen(page.locator(f'.slot[data-position="{pos}"]'), size, f"slot {pos}")
    assert_on_screen(page.get_by_test_id("prompt"), size, "prompt")
    assert_on_screen(page.get_by_test_id("deck-size"), size, "deck")
    assert_on_screen(page.get_by_test_id("discard-count"), size, "discard")
    seats = page.get_by_test_id("players").locator("[data-seat]")
    expect(seats).to_have_count(players)
    for p in range(players):
        seat = seats.nth(p)
        assert_on_screen(seat, size, f"seat {p}")
        assert_on_screen(seat.get_by_test_id(f"score-{p}"), size, f"score {p}")
        assert_on_screen(seat.locator(".card-count"), size, f"cards {p}")
        chips = seat.locator(".collection .card")
        assert chips.count() >= 1
        for i in range(chips.count()):  # every kind of the collection, none clipped
            chip = assert_on_screen(chips.nth(i), size, f"seat {p} card {i}")
            name = chips.nth(i).locator(".card-name")
            clipped = name.evaluate("n => n.scrollWidth > n.clientWidth + 1")
            assert not clipped, (p, i, chip)
    # the status of those still choosing (the bots chose at once: only seat 0 is)
    expect(page.get_by_test_id("thinking-0")).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollHeight") <= size[1] + 1


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_whole_table_fits_a_desktop_screen(
    contexts: Contexts, module_db_url: str, players: int, screenshots: Path
) -> None:
    page = open_table(contexts, module_db_url, players)
    for size in DESKTOPS:
        check_desktop(page, players, size)
    if players == 6:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.screenshot(path=str(screenshots / "table.png"))
    assert contexts.errors == []


def slot_boxes(page: Page) -> list[dict[str, float]]:
    found: list[dict[str, float]] = page.evaluate(
        """() => [...document.querySelectorAll('.slot[data-position]')].map((s) => {
             const r = s.getBoundingClientRect();
             return {x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width)};
           })"""
    )
    return found


@pytest.mark.parametrize("players", [2, 4, 5, 6])
def test_a_phone_shows_the_row_the_prompt_and_your_cards(
    contexts: Contexts, module_db_url: str, players: int, screenshots: Path
) -> None:
    page = open_table(contexts, module_db_url, players, phone=True)
    size = PHONE
    page.evaluate("window.scrollTo(0, 0)")
    for pos in range(1, players + 2):
        assert_on_screen(page.locator(f'.slot[data-position="{pos}"]'), size, f"slot {pos}")
    assert_on_screen(page.get_by_test_id("prompt"), size, "prompt")
    mine = page.locator(".player.me")
    assert_on_screen(mine, size, "my seat")
    for i in range(mine.locator(".collection .card").count()):
        assert_on_screen(mine.locator(".collection .card").nth(i), size, f"my card {i}")
    # opponents: one compact line each (name, status, cards, score), a 44 px target to open
    strip = page.locator(".players.strip .player.folded")
    expect(strip).to_have_count(players - 1)
    for i in range(players - 1):
        toggle = strip.nth(i).locator(".player-toggle")
        assert box(toggle)["height"] >= 44
        expect(strip.nth(i).locator(".player-score")).to_be_visible()
    for info in page.get_by_test_id("card-info").all():
        b = box(info)
        assert b["width"] >= 44 and b["height"] >= 44, b
    if players == 5:
        page.screenshot(path=str(screenshots / "table-phone.png"))
    # a tap opens an opponent's collection on the table, another folds it again
    first = strip.first
    seat = first.get_attribute("data-seat")
    first.locator(".player-toggle").tap()
    opened = page.locator(f'.players [data-seat="{seat}"]')
    expect(opened.locator(".collection .card").first).to_be_visible()
    opened.locator(".player-toggle").tap()
    expect(opened.locator(".collection")).to_have_count(0)
    # the row's slots stay where they are through a whole reveal
    page.evaluate("localStorage.setItem('gonuts.speed', '200')")
    before = slot_boxes(page)
    page.get_by_test_id("pick-1").tap()
    seen: list[Any] = []
    for _ in range(30):
        seen.append(slot_boxes(page))
        page.wait_for_timeout(60)
    for boxes in seen:
        assert boxes == before or not boxes, (before, boxes)
    assert contexts.errors == []
