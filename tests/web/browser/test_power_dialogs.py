"""Every ★ power that asks something, its dialog in Chromium (issue 25 item 3).

Each test opens a table stored at the moment seat 0 must decide that power (a stacked deck
and its history, :mod:`.stacked`) and checks that the dialog tells the truth: one option per
legal action, each opponent shown with their real collection where you choose from or give to
them (Sprinkled, Bear Claw, Strawberry Glazed), the neighbour named (Cinnamon Twist); that it
fits a 1280×800 screen and a 390×844 phone without scrolling; and that the chosen option is
played. Chocolate Frosted and Éclair never ask (their power has nothing to choose). Each test
saves a picture of its dialog (docs/screenshots/power-<card>.png with GONUTS_SCREENSHOTS=1).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from gonuts.game import Game

from .conftest import Contexts
from .stacked import NAMES, Stacked, deciding, seat_script, stacked_table

# power: (players, at least this many options, at least this many opponents to choose from)
POWERS = {
    "french_cruller": (3, 2, 0),
    "double_chocolate": (3, 2, 0),
    "red_velvet": (4, 2, 0),
    "sprinkled": (3, 2, 2),
    "bear_claw": (4, 2, 2),
    "cinnamon_twist": (4, 2, 0),
    "day_old": (4, 3, 0),
    "milk": (4, 2, 0),
    "raspberry_frosted": (5, 2, 0),
    "strawberry_glazed": (5, 2, 2),
}
SCREENS = ((1280, 800), (390, 844))
CHOOSE_OPPONENT = {"sprinkled", "bear_claw", "strawberry_glazed"}


def open_dialog(contexts: Contexts, db_url: str, power: str) -> tuple[Page, Stacked]:
    players, options, opponents = POWERS[power]
    stacked = stacked_table(
        db_url, players, deciding(power, options=options, opponents=opponents), power=power
    )
    page = contexts.page()
    page.add_init_script(seat_script(stacked))
    page.goto(f"/t/{stacked.table_id}")
    expect(page.get_by_test_id("choice-dialog")).to_be_visible()
    return page, stacked


def assert_fits(page: Page, dialog: Locator) -> None:
    """The dialog lies inside every screen and needs no scrolling of its own."""
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        found = dialog.bounding_box()
        assert found is not None
        assert found["x"] >= 0 and found["y"] >= 0, (width, height, found)
        assert found["x"] + found["width"] <= width, (width, height, found)
        assert found["y"] + found["height"] <= height, (width, height, found)
        scrolls = dialog.evaluate("d => d.scrollHeight > d.clientHeight + 1")
        assert not scrolls, (width, height, "the dialog scrolls")
    page.set_viewport_size({"width": SCREENS[0][0], "height": SCREENS[0][1]})


def shown_collection(strip: Locator) -> dict[str, int]:
    """A dialog's picture of a collection: kind → count (the ×n on a card, 1 without)."""
    out: dict[str, int] = {}
    for card in strip.locator(".card[data-kind]").all():
        kind = str(card.get_attribute("data-kind"))
        count = card.locator(".count")
        out[kind] = int(count.inner_text().lstrip("×")) if count.count() else 1
    return out


def real_collection(game: Game, seat: int) -> dict[str, int]:
    return {k: n for k, n in game.collection(seat).items() if n > 0}


@pytest.mark.parametrize("power", sorted(POWERS))
def test_the_power_dialog_tells_the_truth_and_fits(
    contexts: Contexts, module_db_url: str, power: str, screenshots: Path
) -> None:
    page, stacked = open_dialog(contexts, module_db_url, power)
    game = stacked.game
    legal = [str(a) for a in game.legal_actions(0)]
    dialog = page.get_by_test_id("choice-dialog")
    expect(dialog.get_by_role("heading")).to_contain_text("★")
    if power in CHOOSE_OPPONENT:
        # Step 1: every opponent one can choose, with their real collection.
        seats = sorted({a.seat for a in game.legal_actions(0) if a.seat is not None})
        buttons = dialog.get_by_test_id("steal-opponents").locator("button")
        expect(buttons).to_have_count(len(seats))
        for seat in seats:
            button = buttons.and_(page.locator(f'[data-seat="{seat}"]'))
            expect(button).to_contain_text(NAMES[seat])
            strip = button.get_by_test_id("opponent-collection")
            assert shown_collection(strip) == real_collection(game, seat), (power, seat)
        assert_fits(page, dialog)
        page.screenshot(path=str(screenshots / f"power-{power}.png"))
        # Step 2: the first opponent's cards (or yours to give them).
        seat = seats[0]
        buttons.and_(page.locator(f'[data-seat="{seat}"]')).click()
        cards = dialog.get_by_test_id("steal-cards").locator("button")
        mine = [a for a in legal if a.endswith(f" {seat}")]
        expect(cards).to_have_count(len(mine))
        if power == "sprinkled":
            theirs = dialog.get_by_test_id("recipient-collection")
            expect(theirs).to_contain_text(f"{NAMES[seat]} has:")
            assert shown_collection(theirs) == real_collection(game, seat)
            gifts = {str(c.get_attribute("data-action")) for c in cards.all()}
            assert {a.split()[1] for a in gifts} <= set(real_collection(game, 0))
        assert_fits(page, dialog)
        choice = str(cards.first.get_attribute("data-action"))
        cards.first.click()
    else:
        options = dialog.locator(".choice-list button")
        expect(options).to_have_count(len(legal))
        assert {str(o.get_attribute("data-action")) for o in options.all()} == set(legal)
        if power == "cinnamon_twist":
            # the pass goes to the player on your left, by name
            expect(dialog).to_contain_text(f"pass to {NAMES[1]}, the player on your left")
        if power == "double_chocolate":
            drawn = dialog.locator(".collection .card[data-kind]")
            expect(drawn).to_have_count(2)
        assert_fits(page, dialog)
        page.screenshot(path=str(screenshots / f"power-{power}.png"))
        choice = str(options.first.get_attribute("data-action"))
        options.first.click()
    assert choice in legal
    # the choice is played: the dialog closes (or asks the power's next step), no error
    expect(page.locator(".error-banner")).to_have_count(0)
    if power not in {"day_old", "milk", "french_cruller"}:
        expect(page.locator("dialog[open]")).to_have_count(0)
    assert contexts.errors == []
