"""Fixtures for the browser tests: the real server on a free loopback port, and Chromium.

The server is the app of ``gonuts serve`` (``create_app``) run by uvicorn in a background thread,
once on a temporary SQLite file and once on a fresh PostgreSQL schema (``module_db_url``). The
browser is Debian's ``/usr/bin/chromium`` (Playwright's own browser download does not work on
these machines); the tests are skipped when it or Playwright is missing.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")
pytest.importorskip("uvicorn")

import uvicorn
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    ViewportSize,
    WebSocket,
    expect,
    sync_playwright,
)

from gonuts.server.app import create_app
from gonuts.server.kernel.limits import Limits

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXPECT_TIMEOUT_MS = 15_000
"""How long an ``expect`` waits (Playwright's default is 5 s), as long as the contexts' own
default below: CI runs two test workers on two cores beside Chromium, and a page that shows
its state after 5 s there is slow, not broken. A page that never shows it still fails."""
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
ANIMATION_MS = 40
"""A short reveal animation: it still runs (and is exercised) but keeps the tests quick."""


@dataclass(frozen=True)
class LiveServer:
    url: str

    def path(self, path: str) -> str:
        return self.url + path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def live_server(module_db_url: str, request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """The server on a fresh database: every browser test runs on SQLite and on PostgreSQL.

    A test module may set ``SERVER_OPTIONS`` (a dict of ``create_app`` keywords) for its server.
    """
    # Every simulated player connects from 127.0.0.1, so per-address quotas (HTTP rate, open
    # tables) would count all of them as one client; per-connection limits stay on.
    limits = dataclasses.replace(Limits(), http_rate=None, max_open_tables=None)
    options: dict[str, Any] = {"bot_delay": 0.02, "hint_iterations": 40, "limits": limits}
    options.update(getattr(request.module, "SERVER_OPTIONS", {}))
    app = create_app(module_db_url, **options)
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="gonuts-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the test server did not start")
        time.sleep(0.05)
    yield LiveServer(f"http://127.0.0.1:{port}")
    server.should_exit = True
    thread.join(timeout=10)


# Module scope, not session: Playwright's sync API keeps an asyncio loop running on this
# thread while it is open, which would break asyncio.run() in later tests on the same worker.
@pytest.fixture(scope="module")
def playwright_instance() -> Iterator[Playwright]:
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    browser = playwright_instance.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


class Contexts:
    """Makes browser contexts (separate players: own localStorage) and closes them afterwards."""

    def __init__(self, browser: Browser, server: LiveServer) -> None:
        self.browser = browser
        self.server = server
        self.opened: list[BrowserContext] = []
        self.errors: list[str] = []
        """Uncaught script errors of every page made here (a test ends by checking it is empty)."""
        self.log: list[str] = []
        """What the pages did, timed (navigations, sockets, their frames' types, console
        errors): printed under a failed test's report, so a failure in CI can be read."""
        self.started = time.monotonic()

    def new(
        self, *, locale: str = "en-GB", phone: bool = False, touch: bool = False
    ) -> BrowserContext:
        """``touch``: a touch screen (taps, no hover), as a phone has."""
        size: ViewportSize = (
            {"width": 390, "height": 844} if phone else {"width": 1280, "height": 900}
        )
        context = self.browser.new_context(
            base_url=self.server.url,
            locale=locale,
            viewport=size,
            has_touch=touch,
        )
        context.set_default_timeout(15_000)
        context.add_init_script(f"localStorage.setItem('gonuts.speed', '{ANIMATION_MS}');")
        self.opened.append(context)
        return context

    def page(self, *, locale: str = "en-GB", phone: bool = False, touch: bool = False) -> Page:
        page = self.new(locale=locale, phone=phone, touch=touch).new_page()
        number = len(self.opened)
        page.on("pageerror", lambda exc: self._on_error(number, str(exc)))
        page.on("console", lambda message: self._on_console(number, message))
        page.on("framenavigated", lambda frame: self._note(number, f"at {frame.url}"))
        page.on("websocket", lambda ws: self._on_socket(number, ws))
        return page

    def _note(self, page: int, what: str) -> None:
        self.log.append(f"{time.monotonic() - self.started:7.3f}s page {page}: {what}")

    def _on_error(self, page: int, error: str) -> None:
        self.errors.append(error)
        self._note(page, f"uncaught {error}")

    def _on_console(self, page: int, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self._note(page, f"console {message.type}: {message.text[:300]}")
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)

    def _on_socket(self, page: int, ws: WebSocket) -> None:
        name = ws.url.rsplit("/", 1)[-1]
        self._note(page, f"socket {name} opened")

        def frame(direction: str, payload: str | bytes) -> None:
            try:
                message = json.loads(payload)
            except ValueError:
                message = None
            kind = message.get("type", "?") if isinstance(message, dict) else "?"
            self._note(page, f"socket {name} {direction} {kind} ({len(payload)} chars)")

        ws.on("framesent", lambda payload: frame("sent", payload))
        ws.on("framereceived", lambda payload: frame("got", payload))
        ws.on("socketerror", lambda error: self._note(page, f"socket {name} error {error}"))
        ws.on("close", lambda _: self._note(page, f"socket {name} closed"))

    def close(self) -> None:
        for context in self.opened:
            context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed browser test's report carries what its pages did (``Contexts.log``)."""
    report: pytest.TestReport = yield
    made = getattr(item, "funcargs", {}).get("contexts")
    if report.failed and isinstance(made, Contexts) and made.log:
        report.sections.append(("browser log", "\n".join(made.log[-200:])))
    return report


@pytest.fixture
def contexts(browser: Browser, live_server: LiveServer) -> Iterator[Contexts]:
    made = Contexts(browser, live_server)
    yield made
    made.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests save their screenshots: docs/screenshots/ with ``GONUTS_SCREENSHOTS=1``
    (to refresh the README's pictures), else a temporary folder (the tree stays clean)."""
    if os.environ.get("GONUTS_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")
