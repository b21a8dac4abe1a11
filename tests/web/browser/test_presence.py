"""In the browser: a player who leaves is shown away, then played by a bot; back, they play on."""

from __future__ import annotations

import random
import time
from typing import Any

from playwright.sync_api import expect

from .conftest import Contexts
from .helpers import act_once, round_shown
from .test_browser import create_table, wait_for_table

SERVER_OPTIONS: dict[str, Any] = {"replace_after": 1.5}
"""A bot takes over 1.5 s after a player has left (two minutes by default)."""


def test_a_player_who_leaves_is_replaced_by_a_bot_and_comes_back(contexts: Contexts) -> None:
    ana = contexts.page()
    create_table(ana, "Ana", ["human", "human"])
    invite = ana.get_by_test_id("invite-link").input_value()
    ben = contexts.page()
    ben.goto(invite)
    ben.get_by_label("Your name").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_for_table(ana)
    wait_for_table(ben)
    rng = random.Random(1)
    ben_on_ana = ana.locator(".player[data-seat='1'] .player-name")
    expect(ben_on_ana).to_have_text("Ben")  # present: no note

    # Ben closes his tab: away at once, played by a bot after the delay.
    context = ben.context
    ben.close()
    expect(ben_on_ana).to_contain_text("away")
    expect(ben_on_ana).to_contain_text("played by a bot")
    # The bot plays for Ben: Ana alone takes the game into the next round.
    deadline = time.monotonic() + 15
    while round_shown(ana) < 2:
        assert time.monotonic() < deadline, ana.get_by_test_id("prompt").inner_text()
        act_once(ana, rng)
        ana.wait_for_timeout(50)

    # Ben opens the table again in the same browser: his seat, his game, no note any more.
    back = context.new_page()
    back.goto(invite)
    wait_for_table(back)
    expect(back.locator(".player.me .player-name")).to_contain_text("Ben")
    expect(ben_on_ana).to_have_text("Ben")
    # From now on Ben decides himself (a power dialog, then his pick in the next round).
    deadline = time.monotonic() + 20
    while "Your choice" not in back.get_by_test_id("prompt").inner_text():
        assert time.monotonic() < deadline, back.get_by_test_id("prompt").inner_text()
        act_once(back, rng)
        act_once(ana, rng)
        ana.wait_for_timeout(50)
    expect(ben_on_ana).to_have_text("Ben")  # himself: no bot took his turn
    assert contexts.errors == []
