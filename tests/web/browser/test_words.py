"""The browser's words (issue 25 item 6): static/js/i18n.js agrees a card's name as the server
does, for every card, form and message, in English, Spanish and Italian; the prompt ends one
sentence before the next begins."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from gonuts.actions import Action
from gonuts.cards import KINDS
from gonuts.game import Game
from gonuts.server.kernel import i18n

from ..test_catalogues import browser, placeholders, render_browser
from .conftest import Contexts
from .stacked import deciding, seat_script, stacked_table
from .test_browser import create_table, wait_for_table

NOTATIONS = [
    "keep {}",
    "take {}",
    "take {} from 1",
    "give {} to 2",
    "pass {}",
    "discard {}",
    "discard {} from 1",
]
NAMES = ["Lía", "Ben", "Inés"]
SELECTS = ["pl=PL|SG", "f.sg=FS|f.pl=FP|m.pl=MP|MS", "vowel=V|lo=LO|C"]

RENDER_JS = """async ([lang, kinds, forms, messages, notations, names]) => {
  const i18n = await import("/static/js/i18n.js");
  const actions = await import("/static/js/actions.js");
  await i18n.setLanguage(lang, { remember: false });
  const out = {};
  for (const kind of kinds) {
    const fill = (card) => messages.map(([key, vars]) =>
      i18n.t(key, Object.fromEntries(vars.map((v) => [v, v === "card" ? card : "X"]))));
    out[kind] = {
      forms: forms.map((f) => i18n.cardForm(kind, f)),
      byName: fill(i18n.cardName(kind)),
      byWords: fill(i18n.cardWords(kind)),
      actions: notations.map((n) => actions.describeAction(n.replace("{}", kind), names)),
    };
  }
  return out;
}"""


def test_the_browser_agrees_card_names_as_the_server_does(contexts: Contexts) -> None:
    page = contexts.page()
    page.goto("/")
    expect(page.get_by_test_id("lang-select")).to_be_visible()
    kinds = [k.id for k in KINDS]
    for lang in i18n.LANGS:
        forms = [f for f in i18n.server_texts(lang)["card_forms"] if not f.startswith("_")]
        specs = [*forms, *(f.capitalize() for f in forms), *SELECTS]
        messages = [
            (key, sorted(placeholders(text)))
            for key, text in browser(lang).items()
            if "card" in placeholders(text)
        ]
        assert messages
        got: dict[str, Any] = page.evaluate(
            RENDER_JS, [lang, kinds, specs, messages, NOTATIONS, NAMES]
        )
        for kind in kinds:
            name, cls = i18n.card_name(kind, lang), i18n.card_class(kind, lang)
            expected = [i18n.agree(name, cls, spec, lang) for spec in specs]
            assert got[kind]["forms"] == expected, (lang, kind)
            rendered = [render_browser(browser(lang)[key], kind, lang) for key, _ in messages]
            assert got[kind]["byName"] == rendered, (lang, kind)
            assert got[kind]["byWords"] == rendered, (lang, kind)
            labels = [
                i18n.describe_action(Action.parse(n.format(kind)), NAMES, lang) for n in NOTATIONS
            ]
            assert got[kind]["actions"] == labels, (lang, kind)
    # known-good phrases, straight from the page
    spanish = page.evaluate(RENDER_JS, ["es", ["day_old"], ["your"], [], ["discard {}"], NAMES])
    assert spanish["day_old"]["forms"] == ["tus Donas del día anterior"]
    assert spanish["day_old"]["actions"] == ["Descartar tus Donas del día anterior"]
    italian = page.evaluate(
        RENDER_JS,
        ["it", ["glazed"], ["the"], [["dialog.waiting_power", ["card", "name"]]], [], NAMES],
    )
    assert italian["glazed"]["forms"] == ["lo Smaltato"]
    assert italian["glazed"]["byName"] == ["X sta risolvendo lo Smaltato…"]
    assert contexts.errors == []


CLDR_JS = """async ([lang, numbers, lists]) => {
  const i18n = await import("/static/js/i18n.js");
  await i18n.setLanguage(lang, { remember: false });
  const rules = new Intl.PluralRules(lang);
  return [numbers.map((n) => rules.select(n)), lists.map((items) => i18n.listJoin(items))];
}"""


def test_the_browser_and_the_server_share_cldr_plurals_and_lists(contexts: Contexts) -> None:
    """Intl in Chromium and Babel on the server: the same CLDR categories and list patterns."""
    page = contexts.page()
    page.goto("/")
    expect(page.get_by_test_id("lang-select")).to_be_visible()
    numbers = [0, 1, 2, 5, 21, 100, 1_000_000]
    lists = [["Ana"], ["Ana", "Ben"], ["Ana", "Ben", "Cy"], ["Ana", "Inés"], ["Ben", "Hielo"]]
    for lang in i18n.LANGS:
        categories, joined = page.evaluate(CLDR_JS, [lang, numbers, lists])
        assert categories == [i18n.plural_category(n, lang) for n in numbers], lang
        assert joined == [i18n.join_list(items, lang) for items in lists], lang
    assert contexts.errors == []


def _prompt(page: Page) -> str:
    return page.get_by_test_id("prompt").inner_text().strip()


def test_the_prompt_ends_a_sentence_before_the_next(contexts: Contexts, screenshots: Path) -> None:
    ana = contexts.page()
    create_table(ana, "Ana", ["human", "human", "human"])
    invite = ana.get_by_test_id("invite-link").input_value()
    ben = contexts.page(locale="es-ES")
    ben.goto(invite)
    ben.get_by_label("Tu nombre").fill("Ben")
    ben.get_by_test_id("join").click()
    cy = contexts.page(locale="it-IT")
    cy.goto(invite)
    cy.get_by_label("Il tuo nome").fill("Cy")
    cy.get_by_test_id("join").click()
    for page in (ana, ben, cy):
        wait_for_table(page)
    expect(ana.get_by_test_id("prompt")).to_have_text("Choose a position. Waiting for Ben and Cy…")
    expect(ben.get_by_test_id("prompt")).to_have_text("Elige una posición. Esperando a Ana y Cy…")
    expect(cy.get_by_test_id("prompt")).to_have_text(
        "Scegli una posizione. In attesa di Ana e Ben…"
    )
    cy.screenshot(path=screenshots / "words-prompt-it.png")
    # after a pick: two sentences, each ended
    ana.get_by_test_id("pick-1").click()
    expect(ana.get_by_test_id("prompt")).to_contain_text(". Waiting for Ben and Cy…")
    text = _prompt(ana)
    assert text.count(". ") >= 2 and not re.search(r"\w Waiting", text), text
    assert contexts.errors == []


@pytest.mark.parametrize(("power", "lang"), [("milk", "es"), ("strawberry_glazed", "it")])
def test_a_power_dialog_words_its_options_with_agreement(
    contexts: Contexts, module_db_url: str, screenshots: Path, power: str, lang: str
) -> None:
    players = {"milk": 4, "strawberry_glazed": 5}[power]
    opponents = {"milk": 0, "strawberry_glazed": 2}[power]
    decides = deciding(power, options=2, opponents=opponents)

    def until(game: Game) -> bool:
        # Milk: Ana owns the plural-named Bolitas de dona ("tus") besides singular ones ("tu")
        return decides(game) and (power != "milk" or game.collection(0).get("donut_holes", 0) > 0)

    stacked = stacked_table(module_db_url, players, until, power=power)
    page = contexts.page(locale={"es": "es-ES", "it": "it-IT"}[lang])
    page.add_init_script(seat_script(stacked))
    page.goto(f"/t/{stacked.table_id}")
    dialog = page.get_by_test_id("choice-dialog")
    expect(dialog).to_be_visible()
    names = list(stacked.game.players)
    labels = [i18n.describe_action(a, names, lang) for a in stacked.game.legal_actions(0)]
    if power == "strawberry_glazed":  # two steps: the opponent first, then their cards
        target = stacked.game.legal_actions(0)[0].seat
        assert target is not None
        dialog.locator(".opponent-list button").filter(has_text=names[target]).first.click()
        labels = [
            i18n.describe_action(a, names, lang)
            for a in stacked.game.legal_actions(0)
            if a.seat == target
        ]
    for label in labels:
        expect(dialog).to_contain_text(label)
    text = dialog.inner_text()
    if lang == "es":
        assert "Descartar tus Bolitas de dona" in text, text
        assert re.search(r"Descartar tu [A-Z]", text), text
        for kind, count in stacked.game.collection(0).items():
            entry = i18n.server_texts("es")["cards"][kind]
            if count and kind != "milk":
                your = "tus" if entry["number"] == "pl" else "tu"
                assert f"Descartar {your} {entry['name']}" in text, (kind, text)
    else:
        assert re.search(r"Scarta (il|lo|l'|i|gli) ", text), text
    page.screenshot(path=screenshots / f"words-{power}-{lang}.png")
    assert contexts.errors == []
