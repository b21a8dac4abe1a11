"""House rules in the browser (issue 15 item 1): ticked at table creation, shown as a badge on
the table, in the lobby and in the replay."""

from __future__ import annotations

import random
import re

from playwright.sync_api import expect

from .conftest import Contexts
from .helpers import open_more_options, play_until_over


def test_a_table_made_with_a_house_rule_shows_its_badge(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    page.get_by_label("Your name").first.fill("Ana")
    # "Create" is on the first screen; the optional settings fold away above it
    create = page.get_by_test_id("create").bounding_box()
    assert create is not None and create["y"] + create["height"] <= 800
    open_more_options(page)
    # each house rule says what it changes, its name said once
    expect(page.locator("label.variant").first).not_to_contain_text(
        "Sprinkled gives any card — Sprinkled:"
    )
    expect(page.get_by_test_id("variants")).to_contain_text("this Sprinkled included")
    expect(page.get_by_test_id("variants")).to_contain_text("this Milk included")
    expect(page.get_by_test_id("variants")).to_contain_text("has no card at all")
    page.get_by_test_id("variant-sprinkled_any_card").check()
    while page.locator(".seat-list li").count() > 2:
        page.get_by_test_id("remove-seat").click()
    page.get_by_test_id("seat-1").select_option("easy")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    badge = page.locator(".table-head [data-testid=house-rules]")
    expect(badge).to_have_text(re.compile(r"^House rules: Sprinkled gives any card"))

    # the lobby lists the table with its house rule
    lobby = contexts.page()
    lobby.goto("/")
    listed = lobby.locator(f"[data-table='{table_id}']")
    expect(listed.get_by_test_id("house-rules")).to_contain_text("Sprinkled gives any card")

    # played to the end, the replay shows the house rule too
    play_until_over([page], random.Random(3))
    page.goto(f"/replay/{table_id}")
    expect(
        page.get_by_test_id("replay-viewer").get_by_test_id("house-rules").first
    ).to_contain_text("Sprinkled gives any card")
    assert contexts.errors == []


def test_no_badge_for_the_standard_game_and_spanish_texts(contexts: Contexts) -> None:
    page = contexts.page(locale="es-ES")
    page.goto("/")
    expect(page.get_by_test_id("variants")).to_contain_text("Reglas de la casa")
    expect(page.get_by_test_id("variants")).to_contain_text("incluida esta Con chispas")
    page.get_by_label("Tu nombre").first.fill("Ana")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    expect(page.get_by_test_id("row")).to_be_visible()
    expect(page.get_by_test_id("house-rules")).to_have_count(0)
    assert contexts.errors == []
