"""The header on a phone (390 px): its links scroll in their own strip, so the sign-in link and
the language choice are always whole on screen, in every language (the Spanish links alone are
wider than a phone)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import Contexts


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_the_phone_header_keeps_sign_in_and_the_language_on_screen(
    contexts: Contexts, lang: str
) -> None:
    page = contexts.page(phone=True, touch=True, locale=lang)
    page.goto(f"/?lang={lang}")
    select = page.get_by_test_id("lang-select")
    expect(select).to_be_visible()
    width = page.viewport_size["width"] if page.viewport_size else 390
    box = select.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    topbar = page.locator("#topbar")
    assert topbar.evaluate("e => e.scrollWidth") <= width
    # every link is still reachable: the strip scrolls to the last one
    links = page.locator("#topbar nav a")
    last = links.nth(links.count() - 1)
    last.scroll_into_view_if_needed()
    last_box = last.bounding_box()
    nav_box = page.locator("#topbar nav").bounding_box()
    assert last_box is not None and nav_box is not None
    assert last_box["x"] + last_box["width"] <= nav_box["x"] + nav_box["width"] + 1
    # and the sign-in link sits whole between the strip and the language choice
    sign_in = page.locator(
        "#topbar a", has_text={"en": "Sign in", "es": "Entrar", "it": "Accedi"}[lang]
    )
    sign_box = sign_in.first.bounding_box()
    assert sign_box is not None and sign_box["x"] + sign_box["width"] <= box["x"]
    assert sign_box["x"] >= nav_box["x"] + nav_box["width"] - 1
    assert contexts.errors == []
