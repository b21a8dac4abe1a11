"""The account page's controls in Chromium (issue 26, item 4), on SQLite and PostgreSQL: a new
password ends the other browser's session, the data download, signing out everywhere, and
deleting the account, after which its finished game's replay shows "Deleted player" in the
reader's language."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from .axe import assert_accessible
from .conftest import Contexts, LiveServer

PASSWORD = "donuts for everyone"
NEW_PASSWORD = "even more donuts please"


def sign_up(page: Page, name: str) -> None:
    page.goto("/account")
    page.get_by_test_id("account-switch").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_test_id("account-submit").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_test_id("my-profile")).to_contain_text(name)


def sign_in(page: Page, name: str, password: str = PASSWORD) -> None:
    page.goto("/account")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_test_id("account-submit").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_test_id("my-profile")).to_contain_text(name)


def signed_in_as(page: Page) -> Any:
    return page.request.get("/api/account").json()["account"]


def test_new_password_export_and_sign_out_everywhere(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    here, there = contexts.page(), contexts.page()
    sign_up(here, "Cora")
    sign_in(there, "Cora")
    here.get_by_test_id("account-settings").click()
    expect(here.get_by_test_id("account-controls")).to_be_visible()
    expect(here.get_by_role("heading", name="Your account")).to_be_visible()

    # a wrong current password is refused, and nothing changes
    here.get_by_label("Current password").fill("not my password")
    here.get_by_label("New password").fill(NEW_PASSWORD)
    here.get_by_test_id("change-password-submit").click()
    expect(here.get_by_test_id("change-password-status")).to_have_text("Wrong name or password.")
    assert signed_in_as(there) is not None
    # the right one: the other browser's session ends, this one stays
    here.get_by_label("Current password").fill(PASSWORD)
    here.get_by_label("New password").fill(NEW_PASSWORD)
    here.get_by_test_id("change-password-submit").click()
    expect(here.get_by_test_id("change-password-status")).to_have_text(
        "Password changed. Sessions ended elsewhere: 1."
    )
    assert signed_in_as(here)["name"] == "Cora"
    there.reload()
    expect(there.get_by_test_id("sign-in-link")).to_be_visible()
    here.screenshot(path=screenshots / "account-controls.png", full_page=True)
    assert_accessible(here, "account controls")

    # the data download: one JSON file with the profile
    with here.expect_download() as download:
        here.get_by_test_id("export").click()
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert download.value.suggested_filename.startswith("gonuts-account-")
    assert data["format"] == "gonuts-account-export/1"
    assert data["profile"]["name"] == "Cora" and data["games"] == []

    # sign out everywhere: this browser too, and the new password still works
    sign_in(there, "Cora", NEW_PASSWORD)
    here.get_by_test_id("sign-out-everywhere-submit").click()
    here.wait_for_url(re.compile(r"/$"))
    expect(here.get_by_test_id("sign-in-link")).to_be_visible()
    assert signed_in_as(here) is None and signed_in_as(there) is None
    assert contexts.errors == []


def play_rated_game(server: LiveServer, names: list[str]) -> str:
    """Sign ``names`` up over HTTP and play them one game to its end; the game's id."""
    origin = {"Origin": server.url}
    clients = [httpx.Client(base_url=server.url, headers=origin) for _ in names]
    try:
        for client, name in zip(clients, names, strict=True):
            r = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
            assert r.status_code == 201, r.text
        seats = [{"kind": "human"}, {"kind": "human"}]
        made = clients[0].post("/api/tables", json={"seats": seats}).json()
        table_id = made["table"]["id"]
        joined = clients[1].post(f"/api/tables/{table_id}/join", json={"name": "x"}).json()
        tokens = [made["token"], joined["token"]]
        rng = random.Random(5)
        deadline = time.monotonic() + 120
        while clients[0].get(f"/api/tables/{table_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the game did not end"
            for client, token in zip(clients, tokens, strict=True):
                auth = {"Authorization": f"Bearer {token}"}
                legal = client.get(f"/api/tables/{table_id}/state", headers=auth).json()
                if legal["view"]["legal"]:
                    client.post(
                        f"/api/tables/{table_id}/actions",
                        json={"action": rng.choice(legal["view"]["legal"])["action"]},
                        headers=auth,
                    )
        return str(table_id)
    finally:
        for client in clients:
            client.close()


def test_deleting_the_account_from_its_page(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    game_id = play_rated_game(live_server, ["Dora", "Eli"])
    page = contexts.page()
    sign_in(page, "Dora")
    page.goto("/players/Dora")
    page.get_by_test_id("manage-account").click()
    page.wait_for_url(re.compile(r"/account$"))
    page.get_by_label("Your password, to confirm").fill("not my password")
    page.get_by_test_id("delete-account-submit").click()
    expect(page.get_by_test_id("delete-account-status")).to_have_text("Wrong name or password.")
    page.get_by_label("Your password, to confirm").fill(PASSWORD)
    page.screenshot(path=screenshots / "account-delete.png", full_page=True)
    page.get_by_test_id("delete-account-submit").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.get_by_test_id("sign-in-link")).to_be_visible()
    assert httpx.get(live_server.path("/api/players/Dora")).status_code == 404

    # the finished game: its replay and the replays' list say "deleted player" in the reader's
    # language, and never the old name
    reader = contexts.page(locale="es-ES")
    reader.goto(f"/replay/{game_id}")
    title = reader.get_by_role("heading", level=2).first
    expect(title).to_contain_text("Jugador eliminado")
    expect(title).to_contain_text("Eli")
    reader.wait_for_timeout(200)
    assert "Dora" not in reader.content()
    reader.screenshot(path=screenshots / "replay-deleted-player.png", full_page=True)
    profile = contexts.page(locale="it-IT")
    profile.goto("/players/Eli")
    expect(profile.get_by_test_id("recent-games")).to_contain_text("Giocatore eliminato")
    assert "Dora" not in profile.content()
    assert contexts.errors == []


def test_a_guest_is_told_a_name_belongs_to_an_account(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    r = httpx.post(
        live_server.path("/api/account/signup"),
        json={"name": "Fay", "password": PASSWORD},
        headers={"Origin": live_server.url},
    )
    assert r.status_code == 201, r.text
    guest = contexts.page(locale="es-ES")
    guest.goto("/")
    for name in ("FAY", "Bot 2 (easy)"):
        guest.get_by_label("Tu nombre").fill(name)
        guest.get_by_test_id("create").click()
        expect(guest.locator(".error-banner")).to_have_text("Ese nombre ya está en uso.")
        assert guest.url.endswith("/")  # no table was made
    guest.screenshot(path=screenshots / "name-taken.png", full_page=True)
    assert contexts.errors == []
