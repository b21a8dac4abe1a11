"""Server texts in the request's language (issue 11 item 4, issue 15 item 4): score reasons,
plural forms, lists, articles, bot names, the power texts' fallback clauses, the rules page."""

from __future__ import annotations

import random
import re

import pytest

from gonuts.cards import KINDS, deck_counts
from gonuts.events import Event, EventType
from gonuts.game import Game
from gonuts.record import Record
from gonuts.server.games.messages import replay_data
from gonuts.server.kernel import i18n
from gonuts.server.play.messages import breakdown_json
from gonuts.server.transport.rules_page import rules_html

# English words of gonuts.scoring's reasons; none may appear in another language's reasons.
ENGLISH_REASON_WORDS = re.compile(
    r"\b(set of|for the most|tied|no majority|kinds?|cards?|fewest|is|negative cards?)\b"
)


def _all_reasons(lang: str) -> list[str]:
    """Every reason wording: each kind with counts 1–3, both sides of every condition."""
    out = []
    for kind in KINDS:
        for count in (1, 2, 3):
            for points in sorted({0, count, count + 1, count + 3, 3 * count, 5 * count, 2 * count}):
                for kinds, cards, fewest in ((1, 1, 1), (7, 12, 3), (3, 3, 3)):
                    out.append(
                        i18n.score_reason(
                            kind.id,
                            count,
                            points,
                            kinds=kinds,
                            cards=cards,
                            fewest=fewest,
                            lang=lang,
                        )
                    )
    return out


@pytest.mark.parametrize("lang", ["es", "it"])
def test_no_score_reason_keeps_english_words(lang: str) -> None:
    reasons = _all_reasons(lang)
    leaks = sorted({r for r in reasons if ENGLISH_REASON_WORDS.search(r.replace("Plain", ""))})
    assert not leaks, leaks


def test_the_english_reasons_say_what_the_scoring_says() -> None:
    def reason(kind: str, count: int, points: int, **kw: int) -> str:
        args = {"kinds": 3, "cards": 5, "fewest": 5, **kw}
        return i18n.score_reason(kind, count, points, lang="en", **args)

    assert reason("donut_holes", 3, 6) == "set of 3"
    assert reason("plain", 2, 5) == "2 × 1, +3 for the most Plain"
    assert reason("plain", 2, 3) == "2 × 1, +1 tied for the most Plain"
    assert reason("plain", 2, 2) == "2 × 1, no majority"
    assert reason("maple_bar", 1, 0, kinds=1) == "1 kind (≤ 6)"
    assert reason("old_fashioned", 1, 5, cards=1) == "1 card (< 10)"
    assert reason("coffee", 2, 2) == "2 × 1 negative card"
    assert reason("coffee", 1, 3) == "1 × 3 negative cards"
    assert reason("maple_frosted", 1, 0, cards=6, fewest=4) == "6 cards, fewest is 4"
    assert i18n.score_reason("plain", 2, 2, kinds=3, cards=5, fewest=5, lang="es") == (
        "2 × 1, sin mayoría"
    )


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_breakdowns_of_real_games_are_localized(lang: str) -> None:
    rng = random.Random(1)
    for players in range(2, 7):
        game = Game.new([f"P{i}" for i in range(players)], seed=players)
        while not game.is_over:
            for seat in game.to_act:
                game.apply(seat, rng.choice(game.legal_actions(seat)))
        rows = breakdown_json(game, lang)
        assert sum(r["total"] for r in rows) == sum(game.scores())
        for row in rows:
            for line in row["lines"]:
                assert line["reason"]
                if lang != "en":
                    assert not ENGLISH_REASON_WORDS.search(line["reason"].replace("Plain", ""))


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [("en", "1 card", "2 cards"), ("es", "1 carta", "2 cartas"), ("it", "1 carta", "2 carte")],
)
def test_plural_forms(lang: str, one: str, many: str) -> None:
    assert i18n.plural("cards", 1, lang) == one
    assert i18n.plural("cards", 2, lang) == many
    assert i18n.plural("cards", 0, lang) == many.replace("2", "0")
    assert i18n.plural_category(1, lang) == "one"
    assert i18n.plural_category(21, lang) == "other"


def test_lists_and_articles() -> None:
    assert i18n.join_list(["A", "B", "C"], "en") == "A, B and C"
    assert i18n.join_list(["A", "B"], "es") == "A y B"
    assert i18n.join_list(["Ana", "Inés"], "es") == "Ana e Inés"
    assert i18n.join_list(["Ana", "Hielo"], "es") == "Ana y Hielo"
    assert i18n.join_list(["A", "B", "C"], "it") == "A, B e C"
    assert i18n.join_list(["A"], "it") == "A"
    contested = Event(EventType.CARD_CONTESTED, card="glazed", position=2, players=(0, 1, 2))
    names = ["Ana", "Ben", "Cy"]
    assert i18n.describe_event(contested, names, "en").startswith("Ana, Ben and Cy chose")
    assert i18n.describe_event(contested, names, "es").startswith("Ana, Ben y Cy eligieron")
    drawn = Event(EventType.TOOK_FROM_DISCARD, player=0, card="eclair", source="red_velvet")
    assert "takes an Éclair from" in i18n.describe_event(drawn, names, "en")
    drawn = Event(EventType.CARD_DRAWN, player=0, card="glazed", source="chocolate_frosted")
    assert "draws a Glazed from" in i18n.describe_event(drawn, names, "en")


def test_game_over_says_why_and_bot_names_follow_the_viewer() -> None:
    over = Event(EventType.GAME_OVER, scores=(3, 5), players=(1,))
    names = ["Ana", i18n.bot_name(1, "easy", "en")]
    es = i18n.describe_event(over, names, "es")
    assert "El mazo no puede rellenar la fila" in es
    assert "Bot 2 (fácil)" in es and "easy" not in es
    assert "cannot refill the row" in i18n.describe_event(over, names, "en")
    assert i18n.display_name("Bot 3 (difficile)", "en") == "Bot 3 (hard)"
    assert i18n.display_name("Bot 3 (nope)", "en") == "Bot 3 (nope)"
    assert i18n.display_name("Ana", "es") == "Ana"


# What each power text must say about its fallback (RULES.md "Powers"; gonuts.powers).
FALLBACKS = {
    "en": {
        "sprinkled": "if you own no other card, give this",
        "cinnamon_twist": "if anyone has no card to pass, discard this",
        "raspberry_frosted": "if you own no other card, discard this",
        "strawberry_glazed": "if no opponent owns a card, nothing happens",
        "milk": "you must with fewer than 3",
    },
    "es": {
        "sprinkled": "si no tienes otra carta, da esta",
        "cinnamon_twist": "si alguien no tiene carta que pasar, descarta esta",
        "raspberry_frosted": "si no tienes otra carta, descarta esta",
        "strawberry_glazed": "si ningún oponente tiene cartas, no pasa nada",
        "milk": "obligatorio con menos de 3",
    },
    "it": {
        "sprinkled": "se non hai altre carte, dai questo",
        "cinnamon_twist": "se qualcuno non ha carte da passare, scarta questo",
        "raspberry_frosted": "se non hai altre carte, scarta questo",
        "strawberry_glazed": "se nessun avversario ha carte, non succede nulla",
        "milk": "obbligatorio con meno di 3",
    },
}


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_power_texts_state_their_fallbacks(lang: str) -> None:
    cards = i18n.cards(lang)
    for kind, clause in FALLBACKS[lang].items():
        assert clause in cards[kind]["power"], (lang, kind, cards[kind]["power"])
    # "other" cards: Sprinkled, Milk and Raspberry Frosted never count themselves
    other = {"en": "other cards", "es": "otras cartas", "it": "altre carte"}[lang]
    for kind in ("sprinkled", "milk", "raspberry_frosted"):
        assert other in cards[kind]["power"], (lang, kind)


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_the_rules_page_counts_french_crullers_per_player_count(lang: str) -> None:
    page = rules_html(lang)
    card = page.split('id="french_cruller"', 1)[1].split("</div>", 1)[0]
    counts = {n: deck_counts(n)[3] for n in range(2, 7)}
    assert counts == {2: 1, 3: 2, 4: 3, 5: 4, 6: 4}
    for n, c in counts.items():
        assert f"{n}: {c}" in card or (n >= 5 and "5–6: 4" in card), (n, card)
    assert "×4<" not in card


def test_replay_labels_name_bots_in_the_viewers_language() -> None:
    game = Game.new(["Ana", i18n.bot_name(1, "easy", "en")], seed=3)
    rng = random.Random(3)
    while not game.is_over:
        for seat in game.to_act:
            game.apply(seat, rng.choice(game.legal_actions(seat)))
    steps = replay_data(Record.from_game(game), "es")["steps"]
    labels = [s["label"] for s in steps if s["actor"] == 1]
    assert labels and all(label.startswith("Bot 2 (fácil): ") for label in labels), labels[:2]
