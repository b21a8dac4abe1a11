"""The browser front end in real Chromium against the live server (issue 4, "Tests")."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from gonuts.game import Game
from gonuts.record import Record

from .conftest import Contexts, LiveServer
from .helpers import FrameLog, act_once, play_until_over, round_shown

SECRET_EVENT = "card_put_back"


def create_table(page: Page, name: str, seats: list[str]) -> str:
    """Fill in the lobby's create form (seat 1 first) and return the new table's id."""
    page.goto("/")
    page.get_by_label("Your name").first.fill(name)
    while page.locator(".seat-list li").count() < len(seats):
        page.get_by_test_id("add-seat").click()
    while page.locator(".seat-list li").count() > len(seats):
        page.get_by_test_id("remove-seat").click()
    for i, choice in enumerate(seats):
        page.get_by_test_id(f"seat-{i}").select_option(choice)
    page.get_by_test_id("create").click()
    page.wait_for_url(re.compile(r"/t/[^/?]+$"))
    return page.url.rsplit("/", 1)[1]


def wait_for_table(page: Page) -> None:
    expect(page.get_by_test_id("row")).to_be_visible()


def public_views(frames: FrameLog) -> list[dict[str, Any]]:
    return [m["view"] for m in frames.of_type("state")]


def test_lobby_then_a_full_game_against_two_bots(
    contexts: Contexts, live_server: LiveServer, screenshots: Path
) -> None:
    page = contexts.page()
    page.goto("/")
    expect(page.get_by_role("heading", name="Create a table")).to_be_visible()
    page.screenshot(path=screenshots / "lobby.png", full_page=True)

    table_id = create_table(page, "Ana", ["human", "easy", "easy"])
    wait_for_table(page)
    expect(page.locator(".player.me .player-name")).to_contain_text("Ana")
    rng = random.Random(4)
    shots: set[str] = set()
    hints_checked = False

    def shoot_dialog() -> None:
        # just before a dialog's option is clicked (a check at the top of the loop could miss
        # a dialog that opens and is answered in the same turn of the loop)
        if "dialog" not in shots:
            page.wait_for_timeout(200)
            page.screenshot(path=screenshots / "power-dialog.png")
            shots.add("dialog")

    while not page.get_by_test_id("end-screen").count():
        if not hints_checked and page.locator("[data-testid=row] button.card:enabled").count():
            # Hints are off by default; switched on, they rank this seat's legal moves.
            expect(page.get_by_test_id("hints-toggle")).not_to_be_checked()
            page.get_by_test_id("hints-toggle").check()
            expect(page.locator("[data-testid=hints] tbody tr").first).to_be_visible()
            page.get_by_test_id("hints-toggle").uncheck()
            hints_checked = True
        if (
            "table" not in shots
            and round_shown(page) >= 3
            and page.locator(".player.me .card").count()
        ):
            page.wait_for_timeout(300)
            page.screenshot(path=screenshots / "table-3-players.png")
            shots.add("table")

        if not act_once(page, rng, prefer_power=True, before_dialog=shoot_dialog):
            page.wait_for_timeout(40)
    end = page.get_by_test_id("end-screen")
    expect(end).to_contain_text("Ana")
    expect(end.locator("tbody tr")).to_have_count(3)
    expect(page.get_by_test_id("play-again")).to_be_visible()
    page.screenshot(path=screenshots / "end.png", full_page=True)
    # A power dialog was shown exactly when Ana had a power decision to make (the deck is
    # shuffled at random, so a game may have none).
    text = httpx.get(live_server.path(f"/api/games/{table_id}/record")).text
    decided = [
        a for a in Record.from_json(text).actions if a.player == 0 and a.action[:4] != "pick"
    ]
    assert shots == ({"table", "dialog"} if decided else {"table"}), (shots, decided)

    # The finished game is in the replays list; the viewer steps forwards and backwards.
    page.goto("/replays")
    games = page.get_by_test_id("games")
    expect(games).to_contain_text("Ana")
    download = games.locator(f"a[href='/api/games/{table_id}/record']")
    expect(download).to_have_count(1)
    page.goto(f"/replay/{table_id}")
    viewer = page.get_by_test_id("replay-viewer")
    expect(viewer).to_be_visible()
    step = page.get_by_test_id("replay-step")
    expect(step).to_contain_text("Step 0 of")
    page.get_by_test_id("replay-next").click()
    page.get_by_test_id("replay-next").click()
    expect(step).to_contain_text("Step 2 of")
    page.get_by_test_id("replay-prev").click()
    expect(step).to_contain_text("Step 1 of")
    expect(page.get_by_test_id("row")).to_be_visible()

    # "Play again" makes a new table with the same seats and seats Ana in it.
    page.goto(f"/t/{table_id}")
    page.get_by_test_id("play-again").click()
    page.wait_for_url(re.compile(r"/t/(?!" + table_id + r")[^/?]+$"))
    wait_for_table(page)
    assert contexts.errors == []


def test_two_players_through_an_invite_link(contexts: Contexts) -> None:
    ana = contexts.page()
    table_id = create_table(ana, "Ana", ["human", "human"])
    invite = ana.get_by_test_id("invite-link").input_value()
    assert "/t/" in invite

    ben = contexts.page()
    ben.goto(invite)
    expect(ben.get_by_test_id("waiting-room")).to_be_visible()
    ben.get_by_label("Your name").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_for_table(ana)
    wait_for_table(ben)
    expect(ana.get_by_test_id("players")).to_contain_text("Ben")

    # Ana's choice shows on her screen (she may change it until Ben picks: issue 25) and
    # is hidden on Ben's until he picks too.
    ana.get_by_test_id("pick-1").click()
    expect(ana.get_by_test_id("prompt")).to_contain_text("Your choice: position 1")
    expect(ana.locator(".slot.mine")).to_have_count(1)
    expect(ben.get_by_test_id("prompt")).to_contain_text("Choose a position")
    expect(ben.locator(".marker")).to_have_count(0)
    expect(ben.locator(".player[data-seat='0'] .status")).to_have_text("chosen")

    play_until_over([ana, ben], random.Random(7), timeout=150)
    expect(ana.get_by_test_id("end-screen")).to_contain_text("Ben")

    # Ana asks for another game: Ben is offered to follow, and both sit at the new table.
    ana.get_by_test_id("play-again").click()
    ana.wait_for_url(re.compile(rf"/t/(?!{re.escape(table_id)}$)[^/?]+$"))
    ben.get_by_test_id("join-next").click()
    ben.wait_for_url(ana.url)
    wait_for_table(ana)
    wait_for_table(ben)
    expect(ana.get_by_test_id("prompt")).to_contain_text("Choose a position")
    expect(ben.get_by_test_id("prompt")).to_contain_text("Choose a position")
    assert contexts.errors == []


def test_a_player_reloads_mid_game_and_continues(contexts: Contexts) -> None:
    page = contexts.page()
    table_id = create_table(page, "Cy", ["human", "easy"])
    wait_for_table(page)
    rng = random.Random(3)
    while round_shown(page) < 3:
        act_once(page, rng)
        page.wait_for_timeout(30)
    before = page.locator(".player.me .player-score").inner_text()
    page.reload()
    wait_for_table(page)
    expect(page.locator(".player.me .player-name")).to_contain_text("Cy")
    assert round_shown(page) >= 3
    assert page.locator(".player.me .player-score").inner_text() == before or round_shown(page) > 3

    # Closing the tab and opening the invite link in a new tab (same browser) resumes too.
    context = page.context
    page.close()
    again = context.new_page()
    again.goto(f"/t/{table_id}")
    wait_for_table(again)
    expect(again.locator(".player.me .player-name")).to_contain_text("Cy")
    play_until_over([again], rng, timeout=90, max_actions=4)
    assert round_shown(again) >= 3 or again.get_by_test_id("end-screen").count()
    assert contexts.errors == []


def test_a_spectator_sees_no_secret(contexts: Contexts, live_server: LiveServer) -> None:
    ana = contexts.page()
    table_id = create_table(ana, "Ana", ["human", "human", "easy"])
    ben = contexts.page()
    ben.goto(f"/t/{table_id}")
    ben.get_by_label("Your name").fill("Ben")
    ben.get_by_test_id("join").click()
    wait_for_table(ana)

    spectator = contexts.page()
    frames = FrameLog()
    frames.attach(spectator)
    spectator.goto(f"/t/{table_id}?watch=1")
    wait_for_table(spectator)
    expect(spectator.get_by_test_id("prompt")).to_contain_text("watching")
    expect(spectator.locator("[data-testid=row] button.card:enabled")).to_have_count(0)

    # Ana picks; Ben has not: the spectator must not learn Ana's pick.
    ana.get_by_test_id("pick-2").click()
    expect(spectator.locator(".player[data-seat='0'] .status")).to_have_text("chosen")
    expect(spectator.locator(".marker")).to_have_count(0)
    rng = random.Random(11)
    play_until_over([ana, ben], rng, timeout=120, max_actions=30)
    spectator.wait_for_timeout(300)

    views = public_views(frames)
    assert views, "the spectator got no state"
    for view in views:
        assert view["seat"] is None
        assert view["legal"] == []
        assert view["drawn"] == []
        assert view["known_deck_top"] is None
        assert view["my_pass"] is None
        assert "deck" not in view
        if view["phase"] == "select":
            assert all(pick is None for pick in view["selections"]), view["selections"]
    for message in frames.received:
        for event in message.get("events", []):
            assert event["type"] != SECRET_EVENT
            assert "visible_to" not in event
    assert all(m.get("type") != "hint" for m in frames.received)
    assert all(m.get("token") is None for m in frames.sent if m.get("type") == "hello")
    # The page shows nothing a seat would: no "Your choice", no dialog, no hints toggle.
    text = spectator.locator("body").inner_text()
    assert "Your choice" not in text
    expect(spectator.locator("dialog[open]")).to_have_count(0)
    expect(spectator.get_by_test_id("hints-toggle")).to_have_count(0)
    # Nor does the public state over HTTP carry a secret.
    state = httpx.get(live_server.path(f"/api/tables/{table_id}/state")).json()
    assert state["view"]["seat"] is None and state["view"]["legal"] == []
    assert contexts.errors == []


def test_the_language_switch_shows_spanish_and_italian_card_names(
    contexts: Contexts, live_server: LiveServer
) -> None:
    catalogues = {
        lang: httpx.get(live_server.path(f"/api/i18n/{lang}")).json()["cards"]
        for lang in ("en", "es", "it")
    }
    page = contexts.page()
    create_table(page, "Eva", ["human", "easy", "easy", "easy"])
    wait_for_table(page)

    def row_names() -> list[str]:
        return [n.strip() for n in page.locator("[data-testid=row] .card-name").all_inner_texts()]

    def row_kinds() -> list[str]:
        kinds = page.locator("[data-testid=row] .card").evaluate_all(
            "cards => cards.map(c => c.dataset.kind)"
        )
        return [str(k) for k in kinds]

    for lang, select_label in (("es", "Español"), ("it", "Italiano"), ("en", "English")):
        page.get_by_test_id("lang-select").select_option(label=select_label)
        expected = [catalogues[lang][kind]["name"] for kind in row_kinds()]
        # every name, waited for (a name may read the same in two languages, e.g. Éclair)
        expect(page.locator("[data-testid=row] .card-name")).to_have_text(expected)
        assert row_names() == expected
        assert page.evaluate("document.documentElement.lang") == lang
    # A card whose name differs between the languages was shown in each (the seeds translate
    # several: Glazed / Glaseada / Smaltato, Sprinkled / Spruzzato …).
    translated = [
        k for k in catalogues["es"] if catalogues["es"][k]["name"] != catalogues["en"][k]["name"]
    ]
    assert translated
    # The choice is remembered, and a new visitor gets the browser's language.
    page.get_by_test_id("lang-select").select_option("it")
    expect(page.locator("html")).to_have_attribute("lang", "it")
    page.reload()
    wait_for_table(page)
    expect(page.get_by_test_id("lang-select")).to_have_value("it")
    visitor = contexts.page(locale="es-ES")
    visitor.goto("/")
    expect(visitor.get_by_test_id("lang-select")).to_have_value("es")
    assert contexts.errors == []


def test_an_uploaded_record_opens_in_the_viewer(contexts: Contexts, tmp_path: Path) -> None:
    game = Game.new(("Ana", "Ben", "Cy"), seed=5)
    rng = random.Random(5)
    while not game.is_over:
        for seat in game.to_act:
            game.apply(seat, rng.choice(game.legal_actions(seat)))
    record = tmp_path / "game.json"
    record.write_text(Record.from_game(game).to_json())
    page = contexts.page()
    page.goto("/replays")
    page.get_by_test_id("record-file").set_input_files(record)
    expect(page.get_by_test_id("replay-viewer")).to_contain_text("Ana, Ben, Cy")
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-step")).to_contain_text("Step 1 of")
    page.get_by_label("End").click()
    expect(page.get_by_test_id("end-screen")).to_be_visible()
    assert json.loads(record.read_text())["players"] == ["Ana", "Ben", "Cy"]
    assert contexts.errors == []


def test_the_table_fits_a_phone_screen(contexts: Contexts, screenshots: Path) -> None:
    page = contexts.page(phone=True)
    create_table(page, "Flo", ["human", "easy", "easy", "easy", "easy", "easy"])
    wait_for_table(page)
    expect(page.locator("[data-testid=row] .card")).to_have_count(7)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the phone"
    page.screenshot(path=screenshots / "table-phone-6-players.png")
    assert contexts.errors == []
