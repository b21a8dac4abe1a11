"""Notification settings and push subscriptions over the API (issue 27), on SQLite and
PostgreSQL, and the e-mail channel against aiosmtpd on loopback: the verification mail's link
verifies the address (once; in the reader's language), a note is mailed with its table's link
only to a verified address, no ``GONUTS_SMTP_URL`` means no mail channel; a deleted account's
settings and subscriptions go, its export shows them."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select
from starlette.testclient import TestClient

from gonuts.server.kernel.db import NotifySettingsRow, PushSubscriptionRow
from gonuts.server.kernel.limits import Limits
from gonuts.server.notify.protocol import Note, NoteTable
from gonuts.server.notify.push import PushChannel
from gonuts.server.notify.service import channels
from web.helpers import AppFactory, error_code
from web.notify_fakes import Mailbox, b64d, part, push_service, smtp_server
from web.test_accounts import PASSWORD, quick, session, signup

SITE = "https://gonuts.test"


@pytest.fixture
def mail(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    with smtp_server() as (box, url):
        monkeypatch.setenv("GONUTS_SMTP_URL", url)
        monkeypatch.setenv("GONUTS_SMTP_FROM", "turns@gonuts.test")
        monkeypatch.setenv("GONUTS_PUBLIC_URL", SITE)
        yield box


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    return quick(make_app(limits=Limits.unlimited()))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def put(client: TestClient, token: str, lang: str = "en", **body: Any) -> Any:
    return client.put(f"/api/notify/settings?lang={lang}", json=body, headers=session(token))


def rows(app: FastAPI, row: Any) -> int:
    with app.state.service.store.sessions() as s:
        return int(s.scalar(select(func.count()).select_from(row)) or 0)


def test_settings_are_an_accounts_own(client: TestClient) -> None:
    assert error_code(client.get("/api/notify/settings")) == "not_signed_in"
    r = client.put("/api/notify/settings", json={"push": True, "email": False})
    assert error_code(r) == "not_signed_in"
    ana = signup(client, "Ana")
    got = client.get("/api/notify/settings", headers=session(ana)).json()
    assert got == {
        "push": True,
        "email": False,
        "address": None,
        "verified": False,
        "pending": False,
        "lang": "en",
        "mail_available": False,
        "subscriptions": 0,
    }
    r = put(client, ana, "es", push=False, email=True, address=" ana@example.org ")
    assert r.status_code == 200, r.text
    assert r.json()["address"] == "ana@example.org" and r.json()["lang"] == "es"
    assert r.json()["push"] is False and r.json()["verified"] is False
    for bad in ("not an address", "a@b", "x" * 250 + "@example.org", "a b@example.org"):
        assert error_code(put(client, ana, push=True, email=True, address=bad)) == "malformed"
    r = client.put(
        "/api/notify/settings",
        json={"push": True, "email": False, "extra": 1},
        headers=session(ana),
    )
    assert error_code(r) == "malformed"
    r = client.put(
        "/api/notify/settings",
        json={"push": True, "email": False},
        headers={"Cookie": session(ana)["Cookie"], "Origin": "https://evil.example"},
    )
    assert r.status_code == 403  # a cross-site write
    bea = signup(client, "Bea")  # one account's settings are not another's
    assert client.get("/api/notify/settings", headers=session(bea)).json()["push"] is True
    r = client.post("/api/notify/verify", headers=session(ana))
    assert error_code(r) == "not_found"  # this server sends no mail


def test_a_browser_subscribes_and_unsubscribes(app: FastAPI, client: TestClient) -> None:
    key = client.get("/api/notify/key").json()["key"]
    assert len(b64d(key)) == 65
    ana = signup(client, "Ana")
    with push_service() as service:
        browser = service.subscriber("ana")
        sub = browser.subscription
        body = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        assert error_code(client.post("/api/notify/subscriptions", json=body)) == "not_signed_in"
        r = client.post("/api/notify/subscriptions?lang=it", json=body, headers=session(ana))
        assert r.status_code == 201, r.text
        got = client.get("/api/notify/settings", headers=session(ana)).json()
        assert got["subscriptions"] == 1
        assert got["lang"] == "it" and got["push"] is True  # pushes speak its language
        # the key the browser got is the one the pushes are signed with
        [push] = [c for c in channels(app.state.service.store) if isinstance(c, PushChannel)]
        assert push.public_key == key
        table = NoteTable("abc", "Ana's", "/t/abc", 1, None, players=2)
        assert asyncio.run(push.send(Note(1, "turn", (table,)))) is True
        pushed = browser.decrypt(service.received[0].body)
        assert pushed["url"] == "/t/abc" and pushed["title"] == "Tocca a te a Ana's"

        bad = {**body, "keys": {"p256dh": "A" * 87, "auth": sub.auth}}
        r = client.post("/api/notify/subscriptions", json=bad, headers=session(ana))
        assert error_code(r) == "malformed"
        long = {**body, "endpoint": "https://push.example/" + "x" * 1100}
        r = client.post("/api/notify/subscriptions", json=long, headers=session(ana))
        assert r.status_code in (413, 422)
        r = client.delete(
            "/api/notify/subscriptions", params={"endpoint": sub.endpoint}, headers=session(ana)
        )
        assert r.json() == {"ok": True}
        assert rows(app, PushSubscriptionRow) == 0


def link_in(message: Any) -> str:
    plain = part(message, "plain")
    found = re.search(r"https?://\S+/api/notify/verify\?\S+", plain)
    assert found, plain
    return found.group(0)


def test_the_verification_link_verifies_once(mail: Mailbox, make_app: AppFactory) -> None:
    app = quick(make_app(limits=Limits.unlimited()))
    with TestClient(app) as client:
        ana = signup(client, "Ana")
        assert client.get("/api/notify/settings", headers=session(ana)).json()["mail_available"]
        put(client, ana, "it", push=True, email=True, address="ana@example.org")
        r = client.post("/api/notify/verify", headers=session(ana))
        assert r.status_code == 202 and r.json() == {"ok": True}
        [sent] = mail.messages
        assert sent["X-Envelope-To"] == "ana@example.org"
        assert sent["Subject"] == "Conferma il tuo indirizzo e-mail (Ana)"
        assert sent.get_body(("html",)) is not None
        link = link_in(sent)
        assert link.startswith(SITE + "/api/notify/verify?token=")
        assert client.get("/api/notify/settings", headers=session(ana)).json()["pending"]
        path = link.removeprefix(SITE)
        page = client.get(path)
        assert page.status_code == 200
        assert 'data-testid="verify-verified"' in page.text
        assert "Indirizzo e-mail confermato" in page.text  # the mail's language (?lang=)
        got = client.get("/api/notify/settings", headers=session(ana)).json()
        assert got["verified"] is True and got["pending"] is False
        again = client.get(path.split("&")[0], headers={"Accept-Language": "es"})
        assert 'data-testid="verify-expired"' in again.text and "Enlace caducado" in again.text
        # a new address must be verified again; the old link stays spent
        put(client, ana, push=True, email=True, address="ana@work.example")
        assert client.get("/api/notify/settings", headers=session(ana)).json()["verified"] is False
        assert "verify-expired" in client.get(path).text

        bea = signup(client, "Bea")
        put(client, bea, push=True, email=True, address="bea@example.org")
        codes = [
            client.post("/api/notify/verify", headers=session(bea)).status_code for _ in range(4)
        ]
        assert codes == [202, 202, 202, 429]
        cai = signup(client, "Cai")  # another account cannot flood the same address
        put(client, cai, push=True, email=True, address="BEA@example.org")
        assert error_code(client.post("/api/notify/verify", headers=session(cai))) == "rate_limited"
        tokens = {link_in(m).split("token=")[1].split("&")[0] for m in mail.messages[1:]}
        assert len(tokens) == 3
        beas = [m for m in mail.messages if m["X-Envelope-To"] == "bea@example.org"]
        older, latest = beas[0], beas[-1]
        assert "verify-expired" in client.get(link_in(older).removeprefix(SITE)).text
        assert "verify-verified" in client.get(link_in(latest).removeprefix(SITE)).text


def test_a_note_is_mailed_only_to_a_verified_address(mail: Mailbox, make_app: AppFactory) -> None:
    app = quick(make_app(limits=Limits.unlimited()))
    store = app.state.service.store
    with TestClient(app) as client:
        ids = {}
        for name in ("Ana", "Bea", "Cai"):
            token = signup(client, name)
            ids[name] = store.credentials(name.lower())[0]
            put(client, token, "en", push=True, email=name != "Cai", address=f"{name}@example.org")
            if name == "Ana":  # only Ana verifies
                client.post("/api/notify/verify", headers=session(token))
                client.get(link_in(mail.messages[-1]).removeprefix(SITE))
    [channel] = [c for c in channels(store) if c.name == "mail"]
    table = NoteTable("abc123", "Ana's table", "/t/abc123", 3, None, rank=2, players=4)
    before = len(mail.messages)
    for name in ("Ana", "Bea", "Cai"):
        sent = asyncio.run(channel.send(Note(ids[name], "ended", (table,))))
        assert sent is (name == "Ana")
    [note] = mail.messages[before:]
    assert note["X-Envelope-To"] == "Ana@example.org"
    assert note["Subject"] == "Game over at Ana's table"
    assert note["From"] == "Go Nuts for Donuts <turns@gonuts.test>"
    assert note["List-Unsubscribe"] == f"<{SITE}/account#notifications>"
    plain = part(note, "plain")
    assert "You came 2nd of 4." in plain
    assert f"{SITE}/t/abc123" in plain
    assert f"{SITE}/account#notifications" in plain
    rich = part(note, "html")
    assert f'href="{SITE}/t/abc123"' in rich and "Ana&#x27;s table" in rich

    digest = Note(ids["Ana"], "digest", (table, NoteTable("d2", "Dos", "/t/d2", 1, None)))
    assert asyncio.run(channel.send(digest)) is True
    assert mail.messages[-1]["Subject"] == "2 games are waiting for you"
    assert f"{SITE}/t/d2" in part(mail.messages[-1], "plain")


def test_no_smtp_url_no_mail_channel(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GONUTS_SMTP_URL", raising=False)
    assert [c.name for c in channels(app.state.service.store)] == ["push"]
    env = {"GONUTS_SMTP_URL": "smtp://u:p@mail.example:2525"}
    made = channels(app.state.service.store, env)
    assert [c.name for c in made] == ["push", "mail"]
    bad = {"GONUTS_SMTP_URL": "http://mail.example"}
    assert [c.name for c in channels(app.state.service.store, bad)] == ["push"]


def test_deleting_an_account_drops_its_settings_and_export_shows_them(
    app: FastAPI, client: TestClient
) -> None:
    ana = signup(client, "Ana")
    put(client, ana, "es", push=False, email=True, address="ana@example.org")
    with push_service() as service:
        sub = service.subscriber("ana").subscription
        body = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        client.post("/api/notify/subscriptions?lang=es", json=body, headers=session(ana))
    export = json.loads(client.get("/api/account/export", headers=session(ana)).text)
    shown = export["notifications"]
    assert shown["push"] is False and shown["email"] is True
    assert shown["address"] == "ana@example.org" and shown["language"] == "es"
    assert len(shown["push_subscriptions"]) == 1
    assert rows(app, PushSubscriptionRow) == rows(app, NotifySettingsRow) == 1
    r = client.post("/api/account/delete", json={"password": PASSWORD}, headers=session(ana))
    assert r.status_code == 200, r.text
    assert rows(app, PushSubscriptionRow) == rows(app, NotifySettingsRow) == 0
