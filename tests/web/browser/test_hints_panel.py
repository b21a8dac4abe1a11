"""Hints that teach, in Chromium (issue 25, item 5): the panel names each option's card, its
win chance, expected score and (at a selection) how contested it is, explains the suggestion in
one line and has a legend; at a power decision the hint is about that decision, and the
dialog says it too."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .conftest import Contexts, LiveServer
from .stacked import deciding, seat_script, stacked_table
from .test_browser import create_table, wait_for_table

SERVER_OPTIONS = {"bot_delay": 0.02, "hint_iterations": 60}
PERCENT = re.compile(r"^\d{1,3}%$")
WHY = re.compile(r"the best chance to win|the search mixes its choices and plays this one most")


def test_the_hint_panel_teaches(contexts: Contexts, screenshots: Path) -> None:
    page = contexts.page()
    create_table(page, "Hana", ["human", "easy", "easy"])
    wait_for_table(page)
    page.get_by_test_id("hints-toggle").check()
    panel = page.get_by_test_id("hints")
    why = panel.get_by_test_id("hint-why")
    # the suggestion's reason: the best chance to win, or, when the search's most played pick
    # is not its highest estimate (a mixed strategy: the deck and 60 iterations decide), why
    expect(why).to_contain_text(WHY, timeout=20_000)
    rows = panel.locator("tbody tr")
    assert rows.count() == 4  # one per position of a 3-player row
    # each option names the card at its position
    for i in range(rows.count()):
        row = rows.nth(i)
        position = int((row.get_attribute("data-action") or "pick 0").split()[1])
        card = page.get_by_test_id(f"pick-{position}").locator(".card-name").inner_text()
        expect(row).to_contain_text(card)
        expect(row.locator("td").nth(3)).to_have_text(PERCENT)
    expect(panel.locator("thead")).to_contain_text("Contested")
    legend = panel.get_by_test_id("hint-legend")
    expect(legend).to_contain_text("how likely you are to win the game")
    expect(legend).to_contain_text("another player picks the same position")
    expect(panel.locator("tr.best")).to_have_count(1)
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "hints-panel.png"))
    assert contexts.errors == []


def test_a_power_decision_has_its_own_hint(
    contexts: Contexts, live_server: LiveServer, module_db_url: str, screenshots: Path
) -> None:
    stacked = stacked_table(module_db_url, 4, deciding("milk", options=2), power="milk")
    context = contexts.new()
    context.add_init_script(seat_script(stacked))
    page = context.new_page()
    page.on("pageerror", lambda exc: contexts.errors.append(str(exc)))
    page.goto(f"/t/{stacked.table_id}")
    dialog = page.get_by_test_id("choice-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Look at the table first").click()  # hide it, switch hints on
    page.get_by_test_id("hints-toggle").check()
    panel = page.get_by_test_id("hints")
    expect(panel.get_by_test_id("hint-why")).to_be_visible(timeout=20_000)
    options = panel.locator("tbody tr")
    legal = [
        a for a in (options.nth(i).get_attribute("data-action") for i in range(options.count()))
    ]
    assert legal and not any(a and a.startswith("pick") for a in legal), legal
    expect(panel.locator("thead")).not_to_contain_text("Contested")
    page.get_by_role("button", name="Show my choices").click()
    expect(page.get_by_test_id("dialog-hint")).to_contain_text("Hint:")
    page.screenshot(path=str(screenshots / "hints-milk-dialog.png"))
    assert contexts.errors == []
