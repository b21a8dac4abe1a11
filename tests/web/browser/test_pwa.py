"""The installable app (issue 27 item 4), in Chromium: the manifest and the service worker make
the site installable (Chromium's own installability check, the one Lighthouse asked), and with
the network gone a page shows a clear "you are offline" in the reader's language, then comes
back by itself with the connection."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Playwright, expect

from .conftest import CHROMIUM, CHROMIUM_ARGS, Contexts, LiveServer


def _controlled(page: Page) -> None:
    """Open the lobby and wait until the service worker is active and controls the page."""
    page.goto("/")
    expect(page.get_by_test_id("create")).to_be_visible()
    page.wait_for_function(
        "async () => { await navigator.serviceWorker.ready;"
        " return navigator.serviceWorker.controller !== null; }",
        timeout=15_000,
    )


def test_chromium_finds_the_app_installable(
    playwright_instance: Playwright, live_server: LiveServer, tmp_path: Path
) -> None:
    # A profile on disk: Chromium never offers to install from an incognito context (the
    # tests' usual contexts are), and would say only that.
    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    context = playwright_instance.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=executable,
        args=CHROMIUM_ARGS,
        base_url=live_server.url,
    )
    try:
        _installable(context.new_page())
    finally:
        context.close()


def _installable(page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    _controlled(page)
    cdp = page.context.new_cdp_session(page)
    manifest: dict[str, Any] = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest")
    assert manifest["errors"] == [], manifest["errors"]
    installable: dict[str, Any] = cdp.send("Page.getInstallabilityErrors")
    assert installable["installabilityErrors"] == [], installable
    # every icon the manifest names loads, at the size it says
    sizes = page.evaluate(
        """async () => {
          const m = await (await fetch("/manifest.webmanifest")).json();
          const out = [];
          for (const icon of m.icons.filter((i) => i.type === "image/png")) {
            const img = new Image();
            img.src = icon.src;
            await img.decode();
            out.push([icon.sizes, `${img.naturalWidth}x${img.naturalHeight}`]);
          }
          return out;
        }"""
    )
    assert sizes and all(said == real for said, real in sizes), sizes
    assert errors == []


def test_offline_shows_a_clear_page_in_the_readers_language_and_comes_back(
    contexts: Contexts,
) -> None:
    page = contexts.page(locale="es-ES")
    _controlled(page)
    page.context.set_offline(True)
    page.goto("/replays")
    offline = page.get_by_test_id("offline")
    expect(offline.get_by_role("heading", name="Estás sin conexión")).to_be_visible()
    expect(offline.get_by_role("heading", name="You are offline")).to_be_hidden()
    expect(page.locator("html")).to_have_attribute("lang", "es")
    # the connection is back: the page reloads by itself into the real one
    page.context.set_offline(False)
    expect(page.get_by_test_id("offline")).to_have_count(0, timeout=15_000)
    expect(page.locator("#app")).to_be_visible()
    assert page.url.endswith("/replays")
    assert contexts.errors == []


def test_a_table_page_offline_is_the_offline_page_never_a_broken_table(
    contexts: Contexts, screenshots: Path
) -> None:
    page = contexts.page(phone=True, touch=True)
    _controlled(page)
    page.context.set_offline(True)
    page.goto("/t/some-table")
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    expect(page.get_by_role("button", name="Try again")).to_be_visible()
    assert page.locator("[data-testid=row]").count() == 0
    page.screenshot(path=str(screenshots / "offline-phone.png"))
