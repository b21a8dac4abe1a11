"""Small things of issue 25 item 7 drawn from a view: the end screen explains a tie-break,
and the log reads in order within a round."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Contexts

END = """
async ([scores, cards, winners]) => {
  const { endScreen } = await import("/static/js/views/end.js");
  const names = ["Ana", "Ben", "Cy"];
  const breakdown = names.map((_, p) => (
    { player: p, total: scores[p], cards: cards[p], lines: [] }));
  const view = { winners, scores, collections: [{}, {}, {}] };
  document.querySelector("#app").replaceChildren(endScreen(view, names, breakdown, undefined));
}
"""

LOG = """
async () => {
  const { TableScreen } = await import("/static/js/views/table.js");
  const root = document.createElement("div");
  document.querySelector("#app").replaceChildren(root);
  const screen = new TableScreen(root, {}, { animate: false });
  const view = {
    seat: null, players: ["Ana", "Ben"], round: 2, phase: "select", over: false,
    row: ["glazed", "plain", "eclair"], deck_size: 20, discard: [], collections: [{}, {}],
    scores: [0, 0], winners: [], selections: [null, null], waiting_for: [0, 1], legal: [],
  };
  const events = ["first", "second", "third"].map((text) => ({ type: "x", text }));
  await screen.update({ view, events, events_from: 0, full: true, breakdown: null });
}
"""


def test_the_end_screen_explains_a_tie_break(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    expect(page.get_by_test_id("create")).to_be_visible()
    page.evaluate(END, [[20, 20, 9], [8, 11, 5], [1]])
    expect(page.get_by_test_id("tie-break")).to_have_text(
        "Ana and Ben tied on 20 points; the tie goes to the most cards: Ben with 11."
    )
    page.evaluate(END, [[20, 20, 9], [8, 8, 5], [0, 1]])
    expect(page.get_by_test_id("tie-break")).to_contain_text("share the win")
    page.evaluate(END, [[21, 20, 9], [8, 8, 5], [0]])
    expect(page.get_by_test_id("tie-break")).to_have_count(0)
    assert contexts.errors == []


def test_the_log_reads_oldest_first(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    expect(page.get_by_test_id("create")).to_be_visible()
    page.evaluate(LOG)
    expect(page.get_by_test_id("log").locator("li")).to_have_text(["first", "second", "third"])
    assert contexts.errors == []
