"""The first-game guide in the browser (issue 11 item 5): from the lobby's "Learn to play"
through the reveal, a contested card and a power, to the scoring on the end screen."""

from __future__ import annotations

import random
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import Contexts
from .helpers import play_until_over


def step(page: Page, name: str, text: str | None = None) -> None:
    """The guide shows step ``name`` (with ``text`` in it); read it and go on."""
    shown = page.get_by_test_id(f"tutorial-{name}")
    expect(shown).to_be_visible()
    if text is not None:
        expect(shown).to_contain_text(text)
    page.get_by_test_id("tutorial-next").click()


def test_the_guide_walks_a_first_game_to_the_scoring(contexts: Contexts, screenshots: Path) -> None:
    page = contexts.page()
    page.goto("/")
    page.get_by_test_id("learn").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    expect(page.get_by_test_id("row")).to_be_visible()
    step(page, "welcome", "Coach")
    # round 1: the guide suggests the Glazed, outlined; the player picks it
    expect(page.get_by_test_id("tutorial-pick")).to_contain_text("Glazed at position 1")
    expect(page.get_by_test_id("pick-1")).to_have_class(re.compile("tutorial-target"))
    page.get_by_test_id("pick-1").click()
    step(page, "pick")
    step(page, "reveal", "shown at once")  # the reveal explained
    expect(page.locator(".player.me .collection")).to_contain_text("Glazed")
    # round 2: both choose the Powdered
    expect(page.get_by_test_id("tutorial-contest_setup")).to_contain_text("Powdered at position 1")
    page.get_by_test_id("pick-1").click()
    step(page, "contest_setup")
    expect(page.get_by_test_id("tutorial-contest")).to_be_visible()
    page.screenshot(path=screenshots / "tutorial.png")
    step(page, "contest", "nobody got it")
    # round 3: the Éclair's power takes the Powdered back from the discard pile
    expect(page.get_by_test_id("tutorial-power_setup")).to_contain_text("Éclair at position 1")
    page.get_by_test_id("pick-1").click()
    step(page, "power_setup")
    step(page, "power", "Powdered")
    expect(page.locator(".player.me .collection")).to_contain_text("Powdered")
    step(page, "play_on")
    expect(page.get_by_test_id("tutorial-bubble")).to_be_hidden()
    # the rest of the game, played by the player, then the scoring explained
    play_until_over([page], random.Random(11))
    expect(page.get_by_test_id("end-screen")).to_be_visible()
    step(page, "scoring", "highest total wins")
    expect(page.get_by_test_id("tutorial-finished")).to_be_visible()
    page.get_by_test_id("tutorial-lobby").click()
    expect(page.get_by_test_id("learn")).to_be_visible()
    assert contexts.errors == []


def test_the_guide_can_be_skipped_and_speaks_italian(contexts: Contexts) -> None:
    page = contexts.page(locale="it-IT")
    page.goto("/")
    expect(page.get_by_test_id("learn")).to_have_text("Inizia la guida")
    page.get_by_test_id("learn").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    expect(page.get_by_test_id("tutorial-welcome")).to_contain_text("Benvenuto")
    page.get_by_test_id("lang-select").select_option("en")  # the bubble follows the language
    expect(page.get_by_test_id("tutorial-welcome")).to_contain_text("Welcome")
    page.get_by_test_id("lang-select").select_option("it")
    expect(page.get_by_test_id("tutorial-skip")).to_have_text("Salta la guida")
    page.get_by_test_id("tutorial-skip").click()
    expect(page.get_by_test_id("tutorial-bubble")).to_be_hidden()
    page.get_by_test_id("pick-3").click()  # the game goes on without the guide
    expect(page.locator(".player.me .collection .card")).not_to_have_count(0)
    # the lobby does not offer a learner's table to watch
    table_id = page.url.rsplit("/", 1)[1]
    lobby = contexts.page(locale="it-IT")
    lobby.goto("/")
    expect(lobby.get_by_test_id("table-list")).to_be_visible()
    lobby.wait_for_load_state("networkidle")  # the list has been fetched and drawn
    expect(lobby.locator(f"[data-table='{table_id}']")).to_have_count(0)
    page.reload()  # and it stays skipped
    expect(page.get_by_test_id("row")).to_be_visible()
    expect(page.get_by_test_id("tutorial-bubble")).to_be_hidden()
    assert contexts.errors == []
