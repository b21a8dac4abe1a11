"""The host's waiting room, table chat and "Play now" in Chromium (issue 26, items 1-3): the host
fills a seat with a bot and starts early while the guest's page follows live; a removed guest
and a cancelled table are told; chat lines that look like markup or script stay text; quick
reactions and muting; two players pressing "Play now" meet at one table."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from .conftest import Contexts, LiveServer

SERVER_OPTIONS = {"replace_after": 0.5}
"""A player who leaves a game is replaced by a bot at once (the replay test's game ends so)."""

PAYLOADS = [
    '<img src=x onerror="window.__xss = 1">',
    "<script>window.__xss = 2</script>",
    "<b>bold?</b> & <i>not</i> &amp;",
    '"><svg onload="window.__xss = 3">',
]


def host_table(page: Page, name: str, seats: int) -> str:
    """The lobby's create form: ``seats`` seats, all people; the new table's id."""
    page.goto("/")
    page.get_by_label("Your name").first.fill(name)
    while page.locator(".seat-list li").count() < seats:
        page.get_by_test_id("add-seat").click()
    while page.locator(".seat-list li").count() > seats:
        page.get_by_test_id("remove-seat").click()
    for i in range(seats):
        page.get_by_test_id(f"seat-{i}").select_option("human")
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    expect(page.get_by_test_id("waiting-room")).to_be_visible()
    return page.url.rsplit("/", 1)[1]


def join(page: Page, table_id: str, name: str) -> None:
    page.goto(f"/t/{table_id}")
    page.locator("#join-name").fill(name)
    page.get_by_test_id("join").click()
    expect(page.get_by_test_id("join")).to_have_count(0)


def test_host_fills_a_seat_with_a_bot_and_starts_early(
    contexts: Contexts, screenshots: Path
) -> None:
    host, guest = contexts.page(), contexts.page(locale="es-ES")
    tid = host_table(host, "Ana", 4)
    join(guest, tid, "Ben")
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("Ben")
    # the guest has no host controls
    expect(guest.get_by_test_id("host-start")).to_have_count(0)
    expect(guest.locator("[data-testid^=host-seat-]")).to_have_count(0)

    host.get_by_test_id("host-seat-2").select_option("hard")
    expect(guest.get_by_test_id("room-seat-2")).to_contain_text(
        "Bot 3"
    )  # live, on the guest's page
    expect(guest.get_by_test_id("chat-notice").last).to_contain_text("El anfitrión")  # Spanish
    host.screenshot(path=screenshots / "waiting-room-host.png", full_page=True)
    guest.screenshot(path=screenshots / "waiting-room-guest.png", full_page=True)

    host.get_by_test_id("host-start").click()
    for page in (host, guest):
        expect(page.get_by_test_id("row")).to_be_visible()  # the game is on, for both
    names = guest.locator(".player .player-name").all_inner_texts()
    assert any("Ana" in n for n in names) and any("Ben" in n for n in names), names
    assert sum("Bot" in n for n in names) == 2, names
    # in the game the chat waits in a corner, closed; opened, it works as before
    expect(guest.get_by_test_id("chat-input")).to_be_hidden()
    guest.get_by_test_id("chat-toggle").click()
    guest.get_by_test_id("chat-input").fill("¡suerte!")
    guest.get_by_test_id("chat-input").press("Enter")
    expect(host.get_by_test_id("chat-toggle")).to_contain_text("1 new")
    host.screenshot(path=screenshots / "game-chat-closed.png")
    guest.screenshot(path=screenshots / "game-chat-open.png")
    assert not contexts.errors, contexts.errors


def test_host_removes_a_guest_then_cancels(contexts: Contexts) -> None:
    host, ben, cy = contexts.page(), contexts.page(), contexts.page()
    tid = host_table(host, "Ana", 3)
    join(ben, tid, "Ben")
    expect(ben.get_by_test_id("chat-input")).to_be_visible()  # (its socket is in the room)
    host.get_by_test_id("host-remove-1").click()
    expect(ben.get_by_test_id("room-removed")).to_be_visible()
    expect(host.get_by_test_id("room-seat-1")).not_to_contain_text("Ben")
    join(cy, tid, "Cy")
    expect(host.get_by_test_id("room-seat-1")).to_contain_text("Cy")
    expect(cy.get_by_test_id("chat-input")).to_be_visible()
    host.get_by_test_id("host-cancel").click()  # asks first
    expect(host.get_by_test_id("host-cancel")).to_contain_text("again")
    host.get_by_test_id("host-cancel").click()
    expect(cy.get_by_test_id("room-cancelled")).to_be_visible()
    expect(host.get_by_test_id("room-cancelled")).to_be_visible()
    assert not contexts.errors, contexts.errors


def test_chat_never_renders_markup(contexts: Contexts, screenshots: Path) -> None:
    ana, ben, watcher = contexts.page(), contexts.page(), contexts.page()
    tid = host_table(ana, "Ana", 3)
    join(ben, tid, "<b>Ben</b>")  # a name that looks like markup, too
    watcher.goto(f"/t/{tid}?watch=1")
    expect(watcher.get_by_test_id("chat")).to_be_visible()
    expect(watcher.get_by_test_id("chat-input")).to_have_count(0)  # spectators read only

    for text in PAYLOADS:
        ana.get_by_test_id("chat-input").fill(text)
        ana.get_by_test_id("chat-input").press("Enter")
    ben.get_by_test_id("react-gg").click()
    ben.get_by_test_id("chat-input").fill("hello <u>Ana</u>")
    ben.get_by_test_id("chat-send").click()

    for page in (ana, ben, watcher):
        log = page.get_by_test_id("chat-log")
        expect(log.locator(".chat-line")).to_have_count(len(PAYLOADS) + 2)
        texts = log.locator(".chat-text").all_text_contents()
        assert texts == [*PAYLOADS, "hello <u>Ana</u>"], texts
        expect(log.locator(".chat-reaction")).to_have_text("🤝")
        assert log.locator("img, script, svg, b, i, u").count() == 0
        assert "<b>Ben</b>" in log.locator(".chat-name").all_text_contents()
        assert page.evaluate("() => window.__xss === undefined")
    watcher.screenshot(path=screenshots / "chat-watcher.png", full_page=True)

    # Ben mutes Ana for himself only
    ben.get_by_test_id("mute-0").first.click()
    expect(ben.get_by_test_id("chat-log").locator(".muted-line")).to_have_count(len(PAYLOADS))
    expect(ana.get_by_test_id("chat-log").locator(".muted-line")).to_have_count(0)
    ben.screenshot(path=screenshots / "chat-muted.png", full_page=True)
    # a reload keeps the log (it is stored with the table)
    watcher.reload()
    expect(watcher.get_by_test_id("chat-log").locator(".chat-line")).to_have_count(
        len(PAYLOADS) + 2
    )
    assert watcher.evaluate("() => window.__xss === undefined")
    assert not contexts.errors, contexts.errors


def test_two_players_press_play_now(contexts: Contexts, screenshots: Path) -> None:
    ana, ben = contexts.page(), contexts.page()
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        page.goto("/")
        page.get_by_label("Your name").first.fill(name)
        page.get_by_test_id("play-now-count").select_option("2")
    ana.get_by_test_id("play-now").click()
    expect(ana.get_by_test_id("play-now-waiting")).to_be_visible()
    ana.screenshot(path=screenshots / "play-now-waiting.png")
    ben.get_by_test_id("play-now").click()
    for page in (ana, ben):
        page.wait_for_url(re.compile(r"/t/[^/?]+$"))
        expect(page.get_by_test_id("row")).to_be_visible()
    assert ana.url == ben.url
    assert not contexts.errors, contexts.errors


def test_the_replay_shows_the_chat(contexts: Contexts, live_server: LiveServer) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    made = httpx.post(live_server.path("/api/tables"), json={"seats": seats, "name": "Ana"}).json()
    tid, token = made["table"]["id"], made["token"]
    ws_url = live_server.url.replace("http", "ws", 1) + f"/ws/tables/{tid}"
    with connect(ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "lang": "en"}))
        ws.send(json.dumps({"type": "chat", "text": PAYLOADS[0]}))
        ws.send(json.dumps({"type": "chat", "reaction": "thanks"}))
        while json.loads(ws.recv(timeout=10)).get("reaction") != "thanks":
            pass
    end = time.monotonic() + 60  # Ana left: a bot plays her seat to the end
    while httpx.get(live_server.path(f"/api/tables/{tid}")).json()["status"] != "finished":
        assert time.monotonic() < end, "the game did not finish"
        time.sleep(0.2)
    page = contexts.page()
    page.goto(f"/replay/{tid}")
    log = page.get_by_test_id("replay-chat")
    expect(log.locator(".chat-line")).to_have_count(2)
    assert log.locator(".chat-text").all_text_contents() == [PAYLOADS[0]]
    expect(log.locator(".chat-reaction")).to_have_text("🙏")
    assert log.locator("img").count() == 0
    assert page.evaluate("() => window.__xss === undefined")
    assert not contexts.errors, contexts.errors
