"""Changing a pick until the reveal, in Chromium (issue 25, item 2): Ana picks, clicks another
position, and the changed pick is the one revealed; Ben's page never hears of the change."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from gonuts.cards import KIND_BY_ID
from gonuts.game import Game
from gonuts.state import Phase

from .conftest import Contexts
from .helpers import FrameLog
from .stacked import seat_script, stacked_table
from .test_browser import create_table, wait_for_table


def test_a_changed_pick_is_the_one_taken(contexts: Contexts, screenshots: Path) -> None:
    ana = contexts.page()
    ana_frames, ben_frames = FrameLog(), FrameLog()
    ana_frames.attach(ana)
    create_table(ana, "Ana", ["human", "human"])
    invite = ana.get_by_test_id("invite-link").input_value()
    ben = contexts.page()
    ben_frames.attach(ben)
    ben.goto(invite)
    ben.get_by_label("Your name").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_for_table(ana)
    wait_for_table(ben)

    ana.get_by_test_id("pick-1").click()
    prompt = ana.get_by_test_id("prompt")
    expect(prompt).to_contain_text("Your choice: position 1")
    expect(prompt).to_contain_text("Click another to change it until everyone has chosen")
    expect(ana.locator(".slot.mine")).to_have_attribute("data-position", "1")
    expect(ben.locator(".player[data-seat='0'] .status")).to_have_text("chosen")
    ben_states = len(ben_frames.of_type("state"))

    # another position: the change is sent, the new one shows
    expect(ana.get_by_test_id("pick-3")).to_be_enabled()
    expect(ana.get_by_test_id("pick-1")).to_be_disabled()  # (my pick now)
    ana.get_by_test_id("pick-3").click()
    expect(prompt).to_contain_text("Your choice: position 3")
    expect(ana.locator(".slot.mine")).to_have_attribute("data-position", "3")
    assert [m for m in ana_frames.sent if m["type"] == "change"][-1]["action"] == "pick 3"
    ana.screenshot(path=str(screenshots / "pick-change.png"))

    # Ben heard nothing of it: no new state, no marker, the same "chosen"
    ana.wait_for_timeout(300)
    assert len(ben_frames.of_type("state")) == ben_states
    expect(ben.locator(".marker")).to_have_count(0)

    ben.get_by_test_id("pick-2").click()
    expect(ana.get_by_test_id("log")).to_contain_text("Ana", timeout=15_000)
    for frames in (ana_frames, ben_frames):
        reveals = [
            e
            for m in frames.of_type("state")
            for e in m["events"]
            if e["type"] == "selections_revealed"
        ]
        assert reveals and reveals[-1]["positions"] == [3, 2]
    # after the reveal there is nothing to change: no position invites a change
    expect(ana.locator("[data-testid=row] [data-change]")).to_have_count(0)
    assert contexts.errors == []


SERVER_OPTIONS = {"bot_delay": 60.0}
"""The bots wait a minute before each move: a Cinnamon Twist stays open while seat 0 changes."""


def twist_open(game: Game) -> bool:
    """Seat 0 passes a Cinnamon Twist card (two or more to choose from) and others must too."""
    return (
        game.state.phase is Phase.CINNAMON_TWIST
        and 0 in game.to_act
        and len(game.to_act) >= 2
        and len(game.legal_actions(0)) >= 3
    )


def test_a_cinnamon_twist_pass_is_changed_in_its_dialog(
    contexts: Contexts, module_db_url: str, screenshots: Path
) -> None:
    stacked = stacked_table(module_db_url, 4, twist_open, power="cinnamon_twist")
    frames = FrameLog()
    page = contexts.page()
    frames.attach(page)
    page.add_init_script(seat_script(stacked))
    page.goto(f"/t/{stacked.table_id}")
    dialog = page.get_by_test_id("choice-dialog")
    options = dialog.locator(".choice-list button")
    expect(options.first).to_be_visible()
    first = str(options.first.get_attribute("data-action"))
    options.first.click()
    prompt = page.get_by_test_id("prompt")
    expect(prompt).to_contain_text("You can change it until everyone has chosen")
    page.get_by_test_id("change-pass").click()
    again = page.get_by_test_id("choice-dialog").locator(".choice-list button")
    shown = {str(b.get_attribute("data-action")) for b in again.all()}
    assert first not in shown and shown  # the other cards, not the one passed now
    other = str(again.first.get_attribute("data-action"))
    again.first.click()
    card = other.split()[1]
    expect(prompt).to_contain_text(f"You pass: {KIND_BY_ID[card].name}")
    changes = [m for m in frames.sent if m["type"] == "change"]
    assert [m["action"] for m in changes] == [other]
    states = [m for m in frames.received if m["type"] == "state"]
    assert states[-1]["view"]["my_pass"] == card
    page.screenshot(path=str(screenshots / "pick-change-twist.png"))
    assert contexts.errors == []
