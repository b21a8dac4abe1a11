"""The Web Push channel (issue 27) against a push service on loopback, on SQLite and
PostgreSQL: what arrives decrypts, with the subscriber's private key, to the note in the
account's language; the VAPID JWT is signed with the server's key for the endpoint's origin; a
410 deletes the subscription, a 500 keeps it; push off sends nothing."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import select

from gonuts.server.kernel.db import PushSubscriptionRow
from gonuts.server.notify.protocol import Note, NoteTable
from gonuts.server.notify.push import PushChannel, vapid_from_env
from gonuts.server.notify.service import channels
from gonuts.server.notify.store import MAX_SUBSCRIPTIONS, NotifyStore
from gonuts.server.store import TableStore
from web.notify_fakes import PushService, b64d, push_service, vapid_claims

SUBJECT = "mailto:ops@gonuts.test"


@pytest.fixture
def store(db_url: str) -> Iterator[TableStore]:
    s = TableStore(db_url)
    yield s
    s.close()


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as s:
        yield s


def account(store: TableStore, name: str) -> int:
    made = store.create_account(name, name.lower(), "x", 25.0, 8.3)
    assert made is not None
    return made


def table(name: str = "Ana's table", round_: int = 2, **kw: object) -> NoteTable:
    deadline = datetime.now(UTC) + timedelta(hours=1)
    fields: dict[str, object] = {"deadline": deadline, "players": 3, **kw}
    return NoteTable(f"t{abs(hash(name)) % 10**6}", name, "/t/abc123", round_, **fields)  # type: ignore[arg-type]


def channel(store: NotifyStore) -> PushChannel:
    key, subject = vapid_from_env(store, {"GONUTS_VAPID_SUBJECT": SUBJECT})
    return PushChannel(store, key, subject)


def test_a_push_decrypts_to_the_note_and_is_signed_for_the_push_service(
    store: TableStore, service: PushService
) -> None:
    me = account(store, "Ana")
    browser = service.subscriber("ana-laptop")
    store.subscribe(me, browser.subscription)
    push = channel(store)
    note = Note(me, "turn", (table(),))

    assert asyncio.run(push.send(note)) is True

    [got] = service.received
    assert got.path == "/push/ana-laptop"
    assert got.headers["content-encoding"] == "aes128gcm"
    assert got.headers["urgency"] == "high"
    assert 3500 <= int(got.headers["ttl"]) <= 3600  # until the deadline
    message = browser.decrypt(got.body)
    assert message["title"] == "Your move at Ana's table"
    assert message["body"].startswith("Round 2: ")
    assert re.search(r"decides for you on \w{3} \d{1,2} \w{3}, \d\d:\d\d UTC\.$", message["body"])
    assert message["url"] == "/t/abc123"
    assert message["kind"] == "turn"
    assert message["tag"] == f"gonuts-{note.tables[0].table_id}"
    claims = vapid_claims(got.headers["authorization"], push.public_key)
    assert claims["aud"] == service.origin
    assert claims["sub"] == SUBJECT
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    # someone else's key cannot decrypt it
    other = service.subscriber("other")
    with pytest.raises(Exception):  # noqa: B017 (http_ece raises what cryptography does)
        other.decrypt(got.body)


def test_the_account_language_and_the_digest(store: TableStore, service: PushService) -> None:
    me = account(store, "Bea")
    browser = service.subscriber("bea")
    store.subscribe(me, browser.subscription)
    store.save_notify_settings(me, push=True, email=False, address=None, lang="es")
    note = Note(me, "digest", (table("Uno"), table("Dos"), table("Tres")))
    assert asyncio.run(channel(store).send(note)) is True
    message = browser.decrypt(service.received[-1].body)
    assert message["title"] == "3 partidas te esperan"
    assert message["body"] == "Te esperan: Uno, Dos y Tres."
    assert message["url"] == "/"

    store.save_notify_settings(me, push=True, email=False, address=None, lang="it")
    ended = Note(me, "ended", (table("Finale", rank=2, deadline=None, players=4),))
    assert asyncio.run(channel(store).send(ended)) is True
    got = service.received[-1]
    assert got.headers["urgency"] == "normal"
    message = browser.decrypt(got.body)
    assert message["title"] == "Partita finita a Finale"
    assert message["body"] == "Posizione finale: 2º su 4."


def test_gone_subscriptions_are_deleted_and_failing_ones_kept(
    store: TableStore, service: PushService
) -> None:
    me = account(store, "Cai")
    gone, down, fine = (service.subscriber(n) for n in ("gone", "down", "fine"))
    for browser in (gone, down, fine):
        store.subscribe(me, browser.subscription)
    service.status["/push/gone"] = 410
    service.status["/push/down"] = 500
    assert asyncio.run(channel(store).send(Note(me, "turn", (table(),)))) is True
    assert len(service.received) == 3
    left = {s.endpoint for s in store.subscriptions(me)}
    assert left == {down.endpoint, fine.endpoint}
    with store.sessions() as s:
        failed = dict(
            s.execute(select(PushSubscriptionRow.endpoint, PushSubscriptionRow.failed_at)).all()
        )
    assert failed[down.endpoint] is not None and failed[fine.endpoint] is None

    service.status["/push/fine"] = 404
    assert asyncio.run(channel(store).send(Note(me, "turn", (table(),)))) is False
    assert [s.endpoint for s in store.subscriptions(me)] == [down.endpoint]


def test_push_off_or_no_subscription_sends_nothing(store: TableStore, service: PushService) -> None:
    me = account(store, "Dan")
    push = channel(store)
    assert asyncio.run(push.send(Note(me, "turn", (table(),)))) is False
    store.subscribe(me, service.subscriber("dan").subscription)
    store.save_notify_settings(me, push=False, email=False, address=None, lang="en")
    assert asyncio.run(push.send(Note(me, "turn", (table(),)))) is False
    assert service.received == []


def test_a_dispatch_pass_looks_its_accounts_up_at_once(
    store: TableStore, service: PushService
) -> None:
    """``prepare`` (the dispatcher, once per pass): the same deliveries as without it, from
    two queries for all the accounts instead of two per note."""
    ana, ben, cai, dan = (account(store, n) for n in ("Gil", "Hal", "Ida", "Jon"))
    store.subscribe(ana, service.subscriber("gil").subscription)
    store.subscribe(ben, service.subscriber("hal").subscription)
    store.save_notify_settings(ben, push=False, email=False, address=None, lang="en")
    store.save_notify_settings(cai, push=True, email=False, address=None, lang="fr")
    push = channel(store)
    push.prepare([ana, ben, cai, dan])
    store.notify_settings = None  # type: ignore[assignment,method-assign]  # (not asked again)
    store.subscriptions = None  # type: ignore[assignment,method-assign]
    sent = [asyncio.run(push.send(Note(a, "turn", (table(),)))) for a in (ana, ben, cai, dan)]
    assert sent == [True, False, False, False]
    assert [r.path for r in service.received] == ["/push/gil"]


def test_an_account_keeps_its_newest_subscriptions_and_an_endpoint_one_owner(
    store: TableStore, service: PushService
) -> None:
    me, other = account(store, "Eva"), account(store, "Fer")
    browsers = [service.subscriber(f"eva{i}") for i in range(MAX_SUBSCRIPTIONS + 2)]
    for b in browsers:
        store.subscribe(me, b.subscription)
    kept = [s.endpoint for s in store.subscriptions(me)]
    assert kept == [b.endpoint for b in browsers[2:]]
    store.subscribe(other, browsers[-1].subscription)  # Fer signed in on that browser
    assert browsers[-1].endpoint not in {s.endpoint for s in store.subscriptions(me)}
    assert [s.endpoint for s in store.subscriptions(other)] == [browsers[-1].endpoint]
    assert store.unsubscribe(other, browsers[-1].endpoint) is True
    assert store.unsubscribe(other, browsers[-1].endpoint) is False


def test_the_vapid_key_is_made_once_or_read_from_a_file(db_url: str, tmp_path: Path) -> None:
    first, second = NotifyStore(db_url), NotifyStore(db_url)
    try:
        a = channel(first).public_key
        assert channel(second).public_key == a  # one key for every process on the database
        assert len(b64d(a)) == 65 and b64d(a)[0] == 4
        key = ec.generate_private_key(ec.SECP256R1())
        pem = tmp_path / "vapid.pem"
        pem.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        env = {"GONUTS_VAPID_PRIVATE_KEY_FILE": str(pem), "GONUTS_VAPID_SUBJECT": SUBJECT}
        made = channels(first, env)
        assert [c.name for c in made] == ["push"]  # no GONUTS_SMTP_URL: no mail channel
        from_file = made[0]
        assert isinstance(from_file, PushChannel)
        assert from_file.public_key != a
        assert from_file.key.private_numbers() == key.private_numbers()
    finally:
        first.close()
        second.close()
