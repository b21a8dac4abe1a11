"""``/rules`` in the app shell (issue 25, item 4): the header's Rules link opens the rules inside
the app (same header, the app's styles, no new tab), in the app's language; a direct link or a
reload gets the server's page, styled the same, in each of the three languages."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from .conftest import Contexts


def test_the_rules_open_inside_the_app(contexts: Contexts, screenshots: Path) -> None:
    page = contexts.page()
    page.goto("/")
    link = page.get_by_test_id("rules-link")
    assert link.get_attribute("target") is None  # the same tab
    link.click()
    page.wait_for_url("**/rules")
    rules = page.get_by_test_id("rules")
    expect(rules.locator("h1")).to_have_text("How to play Go Nuts for Donuts")
    expect(page.locator("#topbar nav")).to_contain_text("Leaderboard")  # the app's header
    expect(rules.locator("#glazed")).to_contain_text("Glazed")
    # the app's styles reach it: a card has its colour's border, the header its brown
    border = rules.locator("#glazed").evaluate("e => getComputedStyle(e).borderTopColor")
    assert border == "rgb(60, 154, 74)", border
    page.screenshot(path=str(screenshots / "rules-in-app.png"), full_page=False)
    page.get_by_test_id("lang-select").select_option("es")
    expect(page.get_by_test_id("rules").locator("h1")).to_have_text(
        "Cómo se juega a Go Nuts for Donuts"
    )
    expect(page.get_by_test_id("rules").locator("#glazed")).to_contain_text("Glaseada")
    # back to the lobby through the header, without a reload
    page.locator("#topbar nav a").first.click()
    page.wait_for_url(lambda url: url.endswith("/"))
    assert contexts.errors == []


def test_a_direct_link_gets_the_styled_page_in_each_language(
    contexts: Contexts, screenshots: Path
) -> None:
    page = contexts.page()
    for lang, title, glazed in (
        ("en", "How to play", "Glazed"),
        ("es", "Cómo se juega", "Glaseada"),
        ("it", "Come si gioca", "Smaltato"),
    ):
        page.goto(f"/rules?lang={lang}")
        expect(page.locator("main#rules h1")).to_contain_text(title)
        expect(page.locator("#glazed")).to_contain_text(glazed)
        header = page.locator("header.topbar")
        background = header.evaluate("e => getComputedStyle(e).backgroundColor")
        assert background == "rgb(91, 52, 23)", background  # the app's header brown
        expect(header.locator("nav a[aria-current=page]")).to_have_attribute(
            "href", f"/rules?lang={lang}"
        )
        if lang == "it":
            page.screenshot(path=str(screenshots / "rules-direct-it.png"))
    # its lobby link keeps the language in the app
    page.locator("header.topbar a.brand").click()
    expect(page.locator("html")).to_have_attribute("lang", "it")
    assert contexts.errors == []
