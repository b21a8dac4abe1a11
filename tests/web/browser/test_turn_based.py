"""In the browser: a turn-based table (a clock of an hour or more, issue 27) is offered in the
form, tagged in the lobby and the header, and shows its deadline as a day and time ("by Sat
14:05"), not as a countdown of hours."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import expect

from .conftest import Contexts, LiveServer
from .test_browser import wait_for_table
from .test_clock import create_clocked_table


def test_a_turn_based_table_shows_its_deadline_as_a_time(
    contexts: Contexts, live_server: LiveServer
) -> None:
    page = contexts.page()
    table_id = create_clocked_table(page, "Ana", ["human", "easy"], "86400")
    summary = httpx.get(live_server.path(f"/api/tables/{table_id}")).json()
    assert (summary["clock"], summary["turn_based"]) == (86400, True)
    wait_for_table(page)
    expect(page.get_by_test_id("clock-limit")).to_have_text("Turn-based: 1 day per decision")
    mine = page.get_by_test_id("my-clock")
    expect(mine).to_have_text(re.compile(r"^Your move by \w{3}.* \d\d:\d\d"))
    expect(mine).not_to_have_class(re.compile(r"\burgent\b"))
    state = httpx.get(live_server.path(f"/api/tables/{table_id}/state")).json()
    assert set(state["deadlines_at"]) == {"0"} and state["deadlines_at"]["0"].endswith("Z")
    # the lobby lists it as turn-based
    page.goto("/")
    expect(page.locator(f'[data-table="{table_id}"] [data-testid="turn-based"]')).to_have_text(
        "Turn-based"
    )
    assert contexts.errors == []
