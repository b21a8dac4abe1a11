"""Names (issue 26, item 6): a guest cannot take an account's name (folded as accounts fold
names), a name that reads as a bot's in any language, the deleted player's, or a name with no
visible character; on SQLite and PostgreSQL through the HTTP API, and the pure rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from fastapi import FastAPI
from sqlalchemy import inspect, text
from starlette.testclient import TestClient

from gonuts.server.kernel import i18n
from gonuts.server.kernel.db import alembic_config, make_engine, migrate, utcnow
from gonuts.server.kernel.errors import ServiceError
from gonuts.server.kernel.limits import Limits
from gonuts.server.lobby.rules import check_name, fold_name
from gonuts.server.play.protocol import BOT_LEVELS, REPLACEMENT_LEVEL
from web.helpers import AppFactory, error_code
from web.test_accounts import PASSWORD, quick, session, signup

INVISIBLE = [
    "\u3164",  # HANGUL FILLER
    "\u2800",  # BRAILLE PATTERN BLANK
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "\u115f\u1160",  # Hangul choseong and jungseong fillers
    "\u3164 \u2800\u3000",  # fillers and spaces (an ideographic one)
    "\u200b",  # ZERO WIDTH SPACE (a format character)
    "\u200d\u200c",  # joiners
    "\u2060",  # WORD JOINER
    "\ufeff",  # BYTE ORDER MARK
    "\u00ad",  # SOFT HYPHEN
    "\u034f",  # COMBINING GRAPHEME JOINER (default-ignorable, not a format character)
    "\u17b4",  # KHMER VOWEL INHERENT AQ
    "\ufe0f",  # a variation selector alone
    "\u0301\u0308",  # combining marks with nothing to sit on
    "\u180e",  # MONGOLIAN VOWEL SEPARATOR
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
]


def refused(name: str) -> str:
    with pytest.raises(ServiceError) as caught:
        check_name(name)
    return str(caught.value.code)


@pytest.mark.parametrize("name", INVISIBLE)
def test_a_name_needs_a_visible_character(name: str) -> None:
    assert refused(name) == "malformed"


def test_blank_letters_cannot_hide_in_a_name() -> None:
    """Fillers and the blank Braille pattern read as spaces: collapsed, not kept."""
    assert check_name("Ana\u3164") == "Ana"
    assert check_name("\u2800Ana\u2800\u2800Maria") == "Ana Maria"
    assert refused("An\u200ba") == "malformed"  # format characters anywhere
    assert refused("An\u034fa") == "malformed"  # invisible default-ignorables anywhere


def test_ordinary_names_still_pass() -> None:
    for name in ("Ana", "Robot 2", "Botticelli", "Bot", "Ana ❤️", "李小龙", "Zoë", "A.B.", "42"):
        assert check_name(name) == name


def test_every_bot_name_the_server_makes_is_refused() -> None:
    """However the server names a bot (each seat, level and language), and spelled otherwise."""
    levels = [*BOT_LEVELS, REPLACEMENT_LEVEL]
    made = {
        i18n.bot_name(seat, level, lang)
        for seat in range(6)
        for level in levels
        for lang in i18n.LANGS
    }
    assert "Bot 2 (easy)" in made and "Bot 3 (difícil)" in made and "Bot 1 (facile)" in made
    for name in sorted(made):
        assert refused(name) == "name_taken", name
    for name in ("bot 2 (EASY)", "Ｂｏｔ ２ (easy)", "Bot2 (easy)", "Bot 12", "BOT 4 (whatever)"):
        assert refused(name) == "name_taken", name


def test_the_deleted_players_name_is_reserved_in_every_language() -> None:
    names = [i18n.DELETED_PLAYER, *(i18n.deleted_player(lang) for lang in i18n.LANGS)]
    assert len(set(names)) == 3  # the fixed one is the English text; two translations
    for name in names:
        assert refused(name) == "name_taken", name
        assert refused(name.upper()) == "name_taken", name


def test_folding_matches_case_width_and_hidden_marks() -> None:
    assert {fold_name(n) for n in ("Ana", "ANA", "Ａｎａ", "Ana\ufe0f", "ana\u3164", " ana ")} == {
        "ana"
    }


# -- through the API, on both databases ----------------------------------------------------------


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    return quick(make_app(limits=Limits.unlimited()))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


TWO = [{"kind": "human"}, {"kind": "human"}]


def create(client: TestClient, name: str, headers: dict[str, str] | None = None) -> Any:
    return client.post("/api/tables", json={"seats": TWO, "name": name}, headers=headers or {})


def test_a_guest_cannot_take_an_accounts_name(client: TestClient) -> None:
    ana = signup(client, "Ana")
    made = create(client, "Guest")
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    for name in ("Ana", "ANA", "Ａｎａ", "Ana\ufe0f", "Ana\u3164", "  ana "):
        for r in (
            create(client, name),
            client.post(f"/api/tables/{table_id}/join", json={"name": name}),
            client.post("/api/tutorial", json={"name": name}),
        ):
            assert (r.status_code, error_code(r)) == (409, "name_taken"), (name, r.text)
    # nobody was seated by the refusals; the owner, signed in, sits under the name
    assert [s["name"] for s in client.get(f"/api/tables/{table_id}").json()["seats"]] == [
        "Guest",
        None,
    ]
    r = client.post(f"/api/tables/{table_id}/join", json={"name": "x"}, headers=session(ana))
    assert r.status_code == 200 and r.json()["table"]["seats"][1]["name"] == "Ana"
    r = client.post("/api/tutorial", json={"name": "Ana"}, headers=session(ana))
    assert r.status_code == 201, r.text
    # a name no account owns is free for guests
    assert create(client, "Anabel").status_code == 201


def test_a_guest_cannot_pass_for_a_bot_or_an_invisible_player(client: TestClient) -> None:
    made = create(client, "Host").json()
    table_id = made["table"]["id"]
    for name, status, code in (
        ("Bot 2 (easy)", 409, "name_taken"),
        ("Bot 3 (difícil)", 409, "name_taken"),
        ("bot 1 (facile)", 409, "name_taken"),
        ("Deleted player", 409, "name_taken"),
        ("\u3164", 422, "malformed"),
        ("\u2800\u2800", 422, "malformed"),
        ("\u200b", 422, "malformed"),
    ):
        for r in (
            create(client, name),
            client.post(f"/api/tables/{table_id}/join", json={"name": name}),
            client.post("/api/tutorial", json={"name": name}),
            client.post("/api/account/signup", json={"name": name, "password": PASSWORD}),
        ):
            assert (r.status_code, error_code(r)) == (status, code), (name, r.text)
    es = client.post("/api/tables?lang=es", json={"seats": TWO, "name": "Bot 2 (easy)"})
    assert es.json()["error"]["message"] == "Ese nombre ya está en uso."


def test_an_account_made_later_does_not_unseat_the_guest(client: TestClient) -> None:
    """The name is checked when it is taken: a guest already seated keeps their seat."""
    made = create(client, "Zed").json()
    signup(client, "Zed")
    seats = client.get(f"/api/tables/{made['table']['id']}").json()["seats"]
    assert seats[0]["name"] == "Zed"


def test_an_account_named_before_a_rule_still_signs_in(app: FastAPI, client: TestClient) -> None:
    """Sign-in looks a name up folded, without the new-name rules."""
    store = app.state.service.store
    hashed = app.state.accounts.hasher.hash(PASSWORD)
    assert store.create_account("Bot 1 (easy)", "bot 1 (easy)", hashed, 25.0, 8.3) is not None
    r = client.post("/api/account/signin", json={"name": "BOT 1 (easy)", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["account"]["name"] == "Bot 1 (easy)", r.text


def test_revision_0007_refolds_account_names(db_url: str) -> None:
    """A key made by the old fold (NFKC, case-folded) that the new one changes is rewritten;
    one that would collide is left; the secrets' table comes and goes with the revision."""
    engine = make_engine(db_url, migrate_schema=False)
    try:
        migrate(engine, "0006")
        rows = [
            ("Ana\u3164", "ana\u1160"),  # (NFKC turns U+3164 into U+1160)
            ("Ben\ufe0f", "ben\ufe0f"),
            ("ben", "ben x"),  # made up: the new fold "ben" is taken by the row above
            ("Cy", "cy"),
        ]
        with engine.begin() as conn:
            for name, key in rows:
                conn.execute(
                    text(
                        "INSERT INTO gn_accounts (name, name_key, password_hash, created_at,"
                        " mu, sigma, games, wins) VALUES (:n, :k, 'x', :t, 25, 8, 0, 0)"
                    ),
                    {"n": name, "k": key, "t": utcnow()},
                )
        migrate(engine)
        with engine.connect() as conn:
            keys: dict[str, str] = dict(
                conn.execute(text("SELECT name, name_key FROM gn_accounts")).all()
            )
            assert inspect(conn).has_table("gn_secrets")
        assert keys == {"Ana\u3164": "ana", "Ben\ufe0f": "ben", "ben": "ben x", "Cy": "cy"}
        config = alembic_config()
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0006")
        with engine.connect() as conn:
            assert not inspect(conn).has_table("gn_secrets")
    finally:
        engine.dispose()
