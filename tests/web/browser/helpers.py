"""Playing through the page like a person: click a legal position or a dialog option."""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, WebSocket

QUICK_MS = 1500


def open_more_options(page: Page) -> None:
    """Unfold the lobby form's optional settings (house rules, turn clock)."""
    details = page.get_by_test_id("more-options")
    if details.get_attribute("open") is None:
        details.locator("summary").click()


def end_screen_shown(page: Page) -> bool:
    return page.locator("[data-testid=end-screen]").count() > 0


def act_once(
    page: Page,
    rng: random.Random,
    *,
    prefer_power: bool = False,
    before_dialog: Callable[[], None] | None = None,
) -> bool:
    """Take one decision if the page offers one (a dialog option, else a row position).

    ``prefer_power``: pick a ★ card when the row has one, to meet the power dialogs.
    ``before_dialog``: called just before a dialog's option is clicked (a screenshot of it).
    """
    try:
        # a dialog's options; the two-step steal dialog shows opponents first, then cards
        options = page.locator(
            "dialog[open] .choice-list button, dialog[open] .opponent-list button"
        )
        # (each count read once: the page may redraw between two reads)
        if n := options.count():
            if before_dialog is not None:
                before_dialog()
            options.nth(rng.randrange(n)).click(timeout=QUICK_MS)
            return True
        # (not a change of a pick already made: data-change, issue 25)
        picks = page.locator("[data-testid=row] button.card:enabled:not([data-change])")
        powers = picks.filter(has=page.locator(".star"))
        if prefer_power and (n := powers.count()):
            powers.nth(rng.randrange(n)).click(timeout=QUICK_MS)
            return True
        if n := picks.count():
            picks.nth(rng.randrange(n)).click(timeout=QUICK_MS)
            return True
    except PlaywrightError:
        # The page re-rendered under us (a new state arrived): look again next time.
        return False
    return False


def play_until_over(
    pages: Sequence[Page],
    rng: random.Random,
    *,
    timeout: float = 120,
    max_actions: int | None = None,
) -> int:
    """Click through decisions on every page until each shows the end screen; the count taken."""
    deadline = time.monotonic() + timeout
    taken = 0
    while not all(end_screen_shown(p) for p in pages):
        if max_actions is not None and taken >= max_actions:
            return taken
        if time.monotonic() > deadline:
            shot = Path(tempfile.gettempdir()) / f"gonuts-stuck-{time.time_ns()}.png"
            pages[0].screenshot(path=str(shot))
            text = " | ".join(pages[0].locator("main").inner_text().split("\n"))[:1500]
            raise AssertionError(
                f"game not over after {timeout}s ({taken} actions); screenshot {shot}; page: {text}"
            )
        acted = False
        for page in pages:
            if act_once(page, rng):
                taken += 1
                acted = True
        if not acted:
            pages[0].wait_for_timeout(40)
    return taken


def round_shown(page: Page) -> int:
    """The round number in the table's heading (0 when none is shown)."""
    heading = page.locator(".table-head h2")
    if not heading.count():
        return 0
    digits = "".join(ch for ch in heading.inner_text() if ch.isdigit())
    return int(digits) if digits else 0


@dataclass
class FrameLog:
    """Every text frame a page's WebSockets sent and received, parsed."""

    received: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("websocket", self._on_socket)

    def _on_socket(self, ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: self._add(self.received, payload))
        ws.on("framesent", lambda payload: self._add(self.sent, payload))

    def _add(self, into: list[dict[str, Any]], payload: str | bytes) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        self.raw.append(text)
        into.append(json.loads(text))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("type") == kind]
