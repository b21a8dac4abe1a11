"""Game review in the browser (issue 29 item 2): a finished game's replay asks for its review, shows
the win-probability graph and each decision's label, and stepping to a decision says what was
taken and what the analyser preferred; the end screen's "Review this game" opens it."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from playwright.sync_api import expect

from gonuts.server.review.service import DEFAULT_REVIEW_BOT
from gonuts.server.store import TableStore
from web.test_review import add_finished_game

from .axe import assert_accessible
from .conftest import Contexts

SERVER_OPTIONS = {
    "review_bot": DEFAULT_REVIEW_BOT if os.environ.get("GONUTS_SCREENSHOTS") == "1" else "neural:2"
}
"""A tiny budget: the 4-player game's review in a second or two (the server's default budget
when the test refreshes docs/screenshots/review.png, so the picture shows real labels)."""

END = """
async (gameId) => {
  const { endScreen } = await import("/static/js/views/end.js");
  const names = ["Ana", "Ben"];
  const view = { winners: [0], scores: [20, 10], collections: [{}, {}] };
  const screen = endScreen(view, names, undefined, () => {}, gameId);
  document.querySelector("#app").replaceChildren(screen);
}
"""


def test_a_replay_is_reviewed_and_its_decisions_labelled(
    contexts: Contexts, module_db_url: str, screenshots: Path
) -> None:
    text = add_finished_game(module_db_url, "review4p", "complete-4p.json")
    names = json.loads(text)["players"]
    page = contexts.page()
    page.goto("/replay/review4p")
    request = page.get_by_test_id("review-request")
    expect(request).to_have_text("Review this game")
    request.click()
    graph = page.get_by_test_id("review-graph")
    expect(graph).to_be_visible(timeout=60_000)
    # the graph: one line per seat, a title and a description; the same as a table
    expect(graph.locator("polyline")).to_have_count(len(names))
    expect(graph.locator("title")).to_have_text("Chance of winning, round by round")
    assert "result" in (graph.locator("desc").text_content() or "")
    rows = page.get_by_test_id("review-graph-table").locator("tbody tr")
    review = page.evaluate(
        "async () => (await (await fetch('/api/games/review4p/review')).json()).review"
    )
    expect(rows).to_have_count(len(review["graph"]))
    for seat in range(len(names)):
        expect(page.get_by_test_id(f"review-accuracy-{seat}")).to_have_text(
            f"{review['accuracy'][seat]:.1f}"
        )
    # the move list: every judged decision with its label
    moves = page.get_by_test_id("review-moves").locator("li")
    expect(moves).to_have_count(len(review["decisions"]))
    labels = [d["label"] for d in review["decisions"]]
    assert (
        page.get_by_test_id("review-moves")
        .locator("[data-label]")
        .evaluate_all("els => els.map(e => e.dataset.label)")
        == labels
    )
    # a decision the analyser disagreed with: stepping to it says both actions and the chances
    worse = next((i for i, d in enumerate(review["decisions"]) if d["action"] != d["best"]), 0)
    decision = review["decisions"][worse]
    moves.nth(worse).get_by_role("button").click()
    step = decision["index"] + 1
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"Step {step} of")
    line = page.get_by_test_id("review-line")
    expect(line).to_contain_text(f"{names[decision['seat']]} took")
    # (JavaScript's Math.round: halves go up)
    expect(line).to_contain_text(f"win {math.floor(decision['win_prob'] * 100 + 0.5)}%")
    if decision["action"] != decision["best"]:
        expect(line).to_contain_text("the analyser")
    expect(moves.nth(worse)).to_have_attribute("aria-current", "step")
    # stepping on with the keyboard moves the line along (a step with no decision says so)
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("replay-step")).to_contain_text(f"Step {step + 1} of")
    expect(line).not_to_have_text(re.compile("^$"))
    page.set_viewport_size({"width": 1280, "height": 1100})
    moves.nth(worse).get_by_role("button").click()
    page.get_by_test_id("review").screenshot(path=str(screenshots / "review.png"))
    page.get_by_test_id("review").locator("summary").click()  # the graph's table too
    assert_accessible(page, "replay with its review")
    assert TableStore(module_db_url).review_count() >= 1
    assert contexts.errors == []


def test_the_end_screen_opens_the_review(
    contexts: Contexts, module_db_url: str, screenshots: Path
) -> None:
    add_finished_game(module_db_url, "review2p")
    page = contexts.page(phone=True)
    page.goto("/")
    expect(page.get_by_test_id("create")).to_be_visible()
    page.evaluate(END, "review2p")
    link = page.get_by_test_id("review-game")
    expect(link).to_have_text("Review this game")
    link.click()
    expect(page).to_have_url(re.compile(r"/replay/review2p\?review=1$"))
    # ?review=1 asks at once: no button to press
    expect(page.get_by_test_id("review-graph")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("review-moves").locator("li").first).to_be_visible()
    page.get_by_test_id("review-moves").locator("li").nth(2).get_by_role("button").click()
    page.get_by_test_id("review").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "review-phone.png"))
    assert contexts.errors == []


def test_a_busy_server_says_so_in_the_players_language(
    contexts: Contexts, module_db_url: str
) -> None:
    add_finished_game(module_db_url, "review-es")
    page = contexts.page(locale="es-ES")
    # every review slot taken: the server refuses politely, in Spanish, and offers to retry
    page.route(
        "**/api/games/review-es/review*",
        lambda route: (
            route.fulfill(
                status=503,
                content_type="application/json",
                body=json.dumps({"error": {"code": "review_busy", "message": "Ocupado: prueba"}}),
            )
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    page.goto("/replay/review-es")
    page.get_by_test_id("review-request").click()
    expect(page.get_by_test_id("review-error")).to_have_text("Ocupado: prueba")
    expect(page.get_by_test_id("review-request")).to_have_text("Reintentar")
    assert contexts.errors == []
