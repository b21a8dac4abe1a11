"""Notifications in Chromium (issue 27), on SQLite and PostgreSQL: the account page's
"Notifications" section (e-mail on, an address, its confirmation link mailed to aiosmtpd on
loopback and opened: "Address confirmed"), in English and Spanish; the service worker shows a
push (delivered through the DevTools protocol with the payload the server sends) and its tag
and link; and pictures: the section, the verified page, a notification e-mail as a mail reader
shows it (docs/screenshots/notify-*.png with GONUTS_SCREENSHOTS=1)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from gonuts.server.notify.mail import MailChannel, Mailer, SmtpConfig
from gonuts.server.notify.protocol import Note, NoteTable
from gonuts.server.notify.push import payload
from gonuts.server.notify.store import NotifyStore
from web.notify_fakes import Mailbox, part, smtp_server

from .axe import assert_accessible
from .conftest import Contexts, LiveServer
from .test_accounts_control import PASSWORD, sign_up


@pytest.fixture(scope="module", autouse=True)
def mailbox() -> Iterator[Mailbox]:
    """An SMTP server for the module's server (set before ``live_server`` makes the app)."""
    with smtp_server() as (box, url), pytest.MonkeyPatch.context() as env:
        env.setenv("GONUTS_SMTP_URL", url)
        env.delenv("GONUTS_PUBLIC_URL", raising=False)  # the links: the request's origin
        yield box


def link_in(box: Mailbox, to: str) -> str:
    mine = [m for m in box.messages if m["X-Envelope-To"] == to]
    assert mine, [m["X-Envelope-To"] for m in box.messages]
    plain = part(mine[-1], "plain")
    found = re.search(r"https?://\S+/api/notify/verify\?\S+", plain)
    assert found, plain
    return found.group(0)


def test_the_notifications_section_confirms_an_address(
    contexts: Contexts, mailbox: Mailbox, screenshots: Path
) -> None:
    page = contexts.page()
    sign_up(page, "Nora")
    page.goto("/account#notifications")
    section = page.get_by_test_id("notify-settings")
    expect(section.get_by_role("heading", name="Notifications")).to_be_visible()
    expect(page.get_by_test_id("notify-push")).to_be_visible()
    expect(page.get_by_test_id("notify-verify")).to_be_hidden()  # no address yet
    page.get_by_label("Notifications by e-mail").check()
    page.get_by_label("E-mail address").fill("nora@example.org")
    page.get_by_test_id("notify-save").click()
    expect(page.get_by_test_id("notify-status")).to_have_text("Notification settings saved.")
    expect(page.get_by_test_id("notify-address-status")).to_have_text(
        "Not confirmed yet: e-mails only go to a confirmed address."
    )
    page.get_by_test_id("notify-verify").click()
    expect(page.get_by_test_id("notify-status")).to_have_text(
        "Confirmation link sent to nora@example.org."
    )
    expect(page.get_by_test_id("notify-address-status")).to_have_text(
        "A confirmation link was sent: open it within 24 hours."
    )
    link = link_in(mailbox, "nora@example.org")
    page.goto(link)
    expect(page.get_by_test_id("verify-verified")).to_contain_text("E-mail address confirmed")
    page.screenshot(path=screenshots / "notify-verified.png")
    page.goto("/account#notifications")
    expect(page.get_by_test_id("notify-address-status")).to_have_text("✓ Address confirmed")
    expect(page.get_by_test_id("notify-verify")).to_be_hidden()
    expect(page.get_by_label("Notifications by e-mail")).to_be_checked()
    section.screenshot(path=screenshots / "notify-settings.png")
    assert_accessible(page, "notification settings")
    assert contexts.errors == []


def test_the_section_speaks_spanish(
    contexts: Contexts, mailbox: Mailbox, live_server: LiveServer
) -> None:
    page = contexts.page(locale="es-ES")
    made = page.request.post(
        "/api/account/signup",
        data={"name": "Pilar", "password": PASSWORD},
        headers={"Origin": live_server.url},
    )
    assert made.status == 201, made.text()
    page.goto("/account")
    section = page.get_by_test_id("notify-settings")
    expect(section.get_by_role("heading", name="Notificaciones")).to_be_visible()
    page.get_by_label("Dirección de correo").fill("pilar@example.org")
    page.get_by_test_id("notify-verify").click()  # saves the new address first
    expect(page.get_by_test_id("notify-status")).to_have_text(
        "Enlace de confirmación enviado a pilar@example.org."
    )
    page.goto(link_in(mailbox, "pilar@example.org").split("&")[0])  # no ?lang=: the browser's
    expect(page.get_by_test_id("verify-verified")).to_contain_text("Dirección de correo confirmada")
    assert contexts.errors == []


def test_the_service_worker_shows_a_push_and_opens_its_game(
    contexts: Contexts, live_server: LiveServer
) -> None:
    context = contexts.new()
    context.grant_permissions(["notifications"], origin=live_server.url)
    page = context.new_page()
    page.goto("/")
    page.wait_for_function(
        "async () => { await navigator.serviceWorker.ready; return true; }", timeout=15_000
    )
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_function("() => true")
    for _ in range(50):
        if registrations:
            break
        page.wait_for_timeout(100)
    [registration] = [r for r in registrations if not r.get("isDeleted")]
    table = NoteTable("abc123", "Nora's table", "/t/abc123", 4, None, players=3)
    data = payload(Note(1, "turn", (table,)), "en").decode()
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": live_server.url, "registrationId": registration["registrationId"], "data": data},
    )
    shown: Any = None
    for _ in range(100):
        shown = page.evaluate(
            """async () => {
              const reg = await navigator.serviceWorker.ready;
              return (await reg.getNotifications()).map((n) => ({
                title: n.title, body: n.body, tag: n.tag, url: n.data && n.data.url }));
            }"""
        )
        if shown:
            break
        page.wait_for_timeout(100)
    assert shown == [
        {
            "title": "Your move at Nora's table",
            "body": "Round 4: the table is waiting for your choice.",
            "tag": "gonuts-abc123",
            "url": "/t/abc123",
        }
    ]
    assert json.loads(data)["url"] == "/t/abc123"
    assert contexts.errors == []


def test_a_notification_mail_as_a_reader_shows_it(page_for_mail: Page, screenshots: Path) -> None:
    channel = MailChannel(
        cast(NotifyStore, None),  # (compose reads nothing from the store)
        Mailer(SmtpConfig("localhost", 25, "plain", "turns@gonuts.example")),
        "https://gonuts.example",
    )
    tables = (
        NoteTable("t1", "Friday donuts", "/t/t1", 3, None, players=4),
        NoteTable("t2", "Nora's table", "/t/t2", 7, None, players=3),
        NoteTable("t3", "Office league", "/t/t3", 1, None, players=5),
    )
    mail = channel.compose(Note(1, "digest", tables), "nora@example.org", "en", "Nora")
    assert mail["Subject"] == "3 games are waiting for you"
    page_for_mail.set_content(part(mail, "html"))
    expect(page_for_mail.get_by_role("heading", name="3 games are waiting for you")).to_be_visible()
    links = page_for_mail.get_by_role("link")
    expect(links).to_have_count(4)  # each game and the settings
    assert links.nth(1).get_attribute("href") == "https://gonuts.example/t/t2"
    page_for_mail.screenshot(path=screenshots / "notify-mail.png", full_page=True)


@pytest.fixture
def page_for_mail(contexts: Contexts) -> Page:
    page = contexts.browser.new_page(viewport={"width": 640, "height": 560})
    contexts.opened.append(page.context)
    return page


def test_the_push_toggle_agrees_with_the_server(
    contexts: Contexts, live_server: LiveServer
) -> None:
    """Headless Chromium may have no push service to subscribe with: then the toggle says why
    and stays off; if it has one, the server holds the browser's subscription. Either way the
    page and the server agree, with no script error."""
    context = contexts.new()
    context.grant_permissions(["notifications"], origin=live_server.url)
    page = context.new_page()
    page.on("pageerror", lambda exc: contexts.errors.append(str(exc)))
    sign_up(page, "Olga")
    page.goto("/account#notifications")
    toggle = page.get_by_test_id("notify-push")
    expect(toggle).not_to_be_checked()
    toggle.click()
    expect(toggle).to_be_enabled(timeout=20_000)
    status = page.get_by_test_id("notify-status")
    expect(status).not_to_be_empty()
    settings = page.request.get("/api/notify/settings").json()
    if toggle.is_checked():
        expect(status).to_have_text("Notification settings saved.")
        assert settings["subscriptions"] == 1 and settings["push"] is True
    else:
        expect(status.get_by_role("alert")).to_be_visible()  # (here: "permission denied")
        assert status.inner_text() in {
            "This device could not be subscribed to notifications.",
            "Notifications are blocked for this site in your browser's settings.",
        }
        assert settings["subscriptions"] == 0
    assert contexts.errors == []
