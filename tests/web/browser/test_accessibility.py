"""Accessibility, measured (issue 25 item 8): axe-core finds no serious or critical violation
on the lobby, the table (choosing a position, and a power's dialog), the end screen, a replay,
the leaderboard and a profile; the reveal is narrated in a live region; a player who prefers
reduced motion sees no animation; everyone sees the taken card fly into its taker's seat."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from gonuts.cards import KIND_BY_ID
from gonuts.game import Game
from gonuts.state import Phase

from .axe import assert_accessible
from .conftest import Contexts
from .helpers import play_until_over
from .stacked import deciding, seat_script, stacked_table
from .test_accounts import sign_up


def _choosing(game: Game) -> bool:
    """Seat 0 chooses in round 4 or later, and position 1 holds a card without a ★ (taking it
    asks nothing more: the reveal follows at once)."""
    first = game.row[0]
    plain = first is not None and not KIND_BY_ID[first].has_power
    return game.phase is Phase.SELECT and 0 in game.to_act and game.round >= 4 and plain


def _taking(game: Game) -> bool:
    """As :func:`_choosing`, and every other seat has already chosen a position other than 1:
    seat 0's pick of position 1 is uncontested, so the reveal always narrates a take (random
    bots choosing after the page opened could contest it away)."""
    others = game.state.picks[1:]
    return _choosing(game) and game.to_act == (0,) and all(p not in (-1, 0) for p in others)


def _last_rounds(game: Game) -> bool:
    return game.phase is Phase.SELECT and 0 in game.to_act and game.deck_size <= 4


def _open(
    contexts: Contexts,
    db_url: str,
    players: int,
    until: Callable[[Game], bool],
    *,
    power: str | None = None,
    seat0_last: bool = False,
) -> Page:
    stacked = stacked_table(db_url, players, until, power=power, seat0_last=seat0_last)
    page = contexts.page()
    page.add_init_script(seat_script(stacked))
    page.goto(f"/t/{stacked.table_id}")
    return page


def test_the_lobby_and_the_table_pass_axe_and_the_reveal_is_narrated(
    contexts: Contexts, module_db_url: str
) -> None:
    lobby = contexts.page()
    lobby.goto("/")
    expect(lobby.get_by_test_id("create")).to_be_visible()
    assert_accessible(lobby, "lobby")

    page = _open(contexts, module_db_url, 4, _taking, seat0_last=True)
    expect(page.get_by_test_id("pick-1")).to_be_enabled()
    expect(page.locator(".player .status.done")).to_have_count(3)
    assert_accessible(page, "table, choosing")
    # the reveal, narrated step by step in the page's live region; a card flies to its taker
    page.evaluate(
        """() => {
          window.__flights = 0;
          new MutationObserver((changes) => {
            for (const c of changes) for (const n of c.addedNodes)
              if (n.classList?.contains("flying-card")) window.__flights += 1;
          }).observe(document.body, { childList: true });
        }"""
    )
    page.evaluate("localStorage.setItem('gonuts.speed', '150')")
    region = page.get_by_test_id("narration")
    page.get_by_test_id("pick-1").click()
    expect(region).to_contain_text("Selections revealed!")
    expect(region).to_contain_text(re.compile(r"takes the .+ from position \d"))
    assert region.get_attribute("aria-live") == "polite"
    page.wait_for_function("() => window.__flights >= 1")


def test_reduced_motion_turns_the_animations_off(contexts: Contexts, module_db_url: str) -> None:
    page = _open(contexts, module_db_url, 3, _choosing)
    page.emulate_media(reduced_motion="reduce")
    expect(page.get_by_test_id("pick-1")).to_be_enabled()
    thinking = page.locator(".player.thinking").first
    expect(thinking).to_be_visible()
    # polled: the panel is re-rendered as the state arrives (a fresh node has its style computed
    # a moment later); with the reduced-motion rule gone this would read "think" and time out
    page.wait_for_function(
        """() => {
          const e = document.querySelector(".player.thinking");
          return e !== null && getComputedStyle(e, "::before").animationName === "none";
        }"""
    )
    page.evaluate(
        """() => {
          window.__flights = 0;
          new MutationObserver((changes) => {
            for (const c of changes) for (const n of c.addedNodes)
              if (n.classList?.contains("flying-card")) window.__flights += 1;
          }).observe(document.body, { childList: true });
        }"""
    )
    page.evaluate("localStorage.setItem('gonuts.speed', '150')")
    round_before = page.locator(".table-head h2").inner_text()
    page.get_by_test_id("pick-1").click()
    narration = page.get_by_test_id("narration")
    expect(narration).to_contain_text(re.compile(r"takes the .+ from position \d"))
    expect(page.locator(".table-head h2")).not_to_have_text(round_before)  # the reveal is over
    assert page.evaluate("window.__flights") == 0


def test_a_power_dialog_the_end_screen_and_the_replay_pass_axe(
    contexts: Contexts, module_db_url: str
) -> None:
    page = _open(contexts, module_db_url, 4, deciding("bear_claw", opponents=2), power="bear_claw")
    expect(page.get_by_test_id("choice-dialog")).to_be_visible()
    assert_accessible(page, "table, Bear Claw's dialog")

    page = _open(contexts, module_db_url, 3, _last_rounds)
    expect(page.locator("[data-testid=row]")).to_be_visible()
    play_until_over([page], random.Random(4), timeout=60)
    expect(page.get_by_test_id("end-screen")).to_be_visible()
    assert_accessible(page, "end screen")
    table_id = page.url.rsplit("/", 1)[1]
    page.goto(f"/replay/{table_id}")
    expect(page.get_by_test_id("replay-viewer")).to_be_visible()
    page.get_by_test_id("replay-next").click()
    assert_accessible(page, "replay")
    # the arrow keys step through the game (issue 25 item 7)
    step = page.get_by_test_id("replay-step")
    expect(step).to_contain_text("Step 1 ")
    page.keyboard.press("ArrowRight")
    expect(step).to_contain_text("Step 2 ")
    page.keyboard.press("ArrowLeft")
    expect(step).to_contain_text("Step 1 ")
    # the game is over: a pick made during a round shows before the reveal
    page.keyboard.press("ArrowRight")  # step 2: the second pick of round 1
    expect(page.locator("[data-testid=row] .marker")).to_have_count(2)
    assert contexts.errors == []


def test_the_leaderboard_and_a_profile_pass_axe(contexts: Contexts) -> None:
    page = contexts.page()
    sign_up(page, "Ida")
    page.goto("/leaderboard")
    expect(page.get_by_role("heading", level=2)).to_be_visible()
    assert_accessible(page, "leaderboard")
    page.goto("/")
    page.get_by_test_id("my-profile").click()
    expect(page.get_by_role("heading", name=re.compile("Ida"))).to_be_visible()
    assert_accessible(page, "profile")
    assert contexts.errors == []
