"""In the browser: the turn clock counts down and a bot plays at the deadline; three timeouts
and a bot plays for you until "I'm back"; the tab says "your turn" while you are elsewhere."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from .conftest import Contexts, LiveServer
from .helpers import act_once, open_more_options
from .test_browser import wait_for_table

SERVER_OPTIONS: dict[str, Any] = {"clock_scale": 0.05, "bot_delay": 0.5, "replace_after": 6.0}
"""Every clock runs 20 times faster: "60 s per decision" gives 3 s. The bot takes its time, so
a benched player can take their seat back before it has played the whole game; a bot replaces
an absent player after 6 s."""


def create_clocked_table(page: Page, name: str, seats: list[str], clock: str) -> str:
    page.goto("/")
    page.get_by_label("Your name").first.fill(name)
    while page.locator(".seat-list li").count() > len(seats):
        page.get_by_test_id("remove-seat").click()
    for i, choice in enumerate(seats):
        page.get_by_test_id(f"seat-{i}").select_option(choice)
    open_more_options(page)
    page.get_by_test_id("clock-choice").select_option(clock)
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    return page.url.rsplit("/", 1)[1]


def test_the_countdown_and_the_bot_at_the_deadline(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    page = contexts.page()
    table_id = create_clocked_table(page, "Ana", ["human", "easy"], "60")
    summary = httpx.get(live_server.path(f"/api/tables/{table_id}")).json()
    assert summary["clock"] == 60
    wait_for_table(page)
    expect(page.get_by_test_id("clock-limit")).to_have_text("Clock: 60 s")
    mine = page.get_by_test_id("my-clock")
    expect(mine).to_have_text(re.compile(r"^Your time: [1-3] s$"))
    expect(page.get_by_test_id("clock-0")).to_have_text(re.compile(r"^[0-3] s$"))
    expect(mine).to_have_class(re.compile(r"\burgent\b"))  # the last 10 s stand out
    page.screenshot(path=screenshots / "clock.png")
    # Ana does nothing: at the deadline a bot chooses for her, and she is told so
    notices = page.get_by_test_id("clock-notices")
    expect(notices).to_contain_text("Time ran out: a bot chose for you")
    state = httpx.get(live_server.path(f"/api/tables/{table_id}/state")).json()
    assert state["version"] >= 1
    # three timeouts in a row: a bot plays for her until she is back
    benched = page.get_by_test_id("benched")
    expect(benched).to_contain_text("A bot is playing for you.", timeout=30_000)
    expect(page.locator(".player.me .player-name")).to_contain_text("played by a bot")
    page.get_by_test_id("im-back").click()
    expect(benched).to_have_count(0)
    away = page.get_by_test_id("away-notice")
    expect(away).to_contain_text("While you were away, a bot made")
    assert away.locator("li").count() >= 3
    expect(away.locator("li").first).to_contain_text("time ran out")
    page.get_by_test_id("away-ok").click()
    expect(away).to_have_count(0)
    assert contexts.errors == []


def test_the_tab_says_your_turn_while_you_are_elsewhere(contexts: Contexts) -> None:
    context = contexts.new()
    # count permission requests: none may be made before the player asks for notifications
    context.add_init_script(
        """
        window.__asked = 0;
        if (window.Notification) {
          Notification.requestPermission = async () => { window.__asked += 1; return "denied"; };
        }
        Object.defineProperty(document, "visibilityState", {
          configurable: true, get: () => (window.__hidden ? "hidden" : "visible"),
        });
        Object.defineProperty(document, "hidden", {
          configurable: true, get: () => Boolean(window.__hidden),
        });
        """
    )
    page = context.new_page()
    page.on("pageerror", lambda exc: contexts.errors.append(str(exc)))

    def set_hidden(hidden: bool) -> None:
        page.evaluate(
            "h => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }",
            hidden,
        )

    create_clocked_table(page, "Ana", ["human", "easy"], "none")
    wait_for_table(page)
    expect(page.get_by_test_id("my-clock")).to_be_hidden()  # no clock at this table
    title = page.title()
    icon = page.locator("link[rel~='icon']")
    assert icon.get_attribute("href") == "/static/img/donut.svg"
    # my turn, and I switch to another tab: the title and the icon say so
    expect(page.locator("[data-testid=row] button.card:enabled").first).to_be_visible()
    set_hidden(True)
    expect(page).to_have_title(re.compile(r"^● Your turn! — "))
    assert icon.get_attribute("href") == "/static/img/donut-turn.svg"
    set_hidden(False)
    expect(page).to_have_title(title)
    assert icon.get_attribute("href") == "/static/img/donut.svg"
    # I pick, then leave; when my next turn comes, the hidden tab says so again
    # (a card without a ★: a power's dialog would cover the controls used below)
    plain = page.locator("[data-testid=row] button.card:enabled:not(:has(.star))")
    rng = random.Random(3)
    while True:  # (a redraw may take the card away under the pointer)
        try:
            if plain.count():
                plain.first.click(timeout=1500)
                break
        except PlaywrightError:
            pass
        if not plain.count() and act_once(page, rng):
            break
        page.wait_for_timeout(50)
    set_hidden(True)
    expect(page).to_have_title(re.compile(r"^● Your turn! — "), timeout=20_000)
    set_hidden(False)
    expect(page).to_have_title(title)
    # the sound is off by default and remembered once on
    sound = page.get_by_test_id("attention-sound")
    expect(sound).not_to_be_checked()
    sound.check()
    assert page.evaluate("localStorage.getItem('gonuts.attention.sound')") == "1"
    page.reload()
    wait_for_table(page)
    expect(page.get_by_test_id("attention-sound")).to_be_checked()
    # notifications: permission is asked only on the player's click (refused here)
    assert page.evaluate("window.__asked") == 0
    notify = page.get_by_test_id("attention-notify")
    notify.click()
    expect(notify).not_to_be_checked()
    assert page.evaluate("window.__asked") == 1
    assert contexts.errors == []


def test_an_absent_players_replacement_shows_its_countdown(contexts: Contexts) -> None:
    ana = contexts.page()
    create_clocked_table(ana, "Ana", ["human", "human"], "none")
    invite = ana.get_by_test_id("invite-link").input_value()
    ben = contexts.page()
    ben.goto(invite)
    ben.get_by_label("Your name").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_for_table(ana)
    wait_for_table(ben)
    badge = ana.get_by_test_id("clock-1")
    expect(badge).to_be_hidden()  # no clock at this table, and Ben is here
    ben.close()
    expect(badge).to_have_text(re.compile(r"^a bot takes over in [1-6] s$"))
    expect(ana.locator(".player[data-seat='1'] .player-name")).to_contain_text(
        "played by a bot", timeout=15_000
    )
    expect(badge).to_be_hidden()
    assert contexts.errors == []
