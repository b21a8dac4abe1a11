"""The text catalogues (issue 25 item 6): every key in all three languages with the same
placeholders, and every message that names a card right for each of the 23 kinds, in English,
Spanish and Italian: articles, possessives and verbs that agree with the name's gender and
number ("tus Donas del día anterior", "lo Smaltato", "las Bolitas de dona se descartan")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from gonuts.actions import Action
from gonuts.cards import KINDS
from gonuts.events import Event, EventType
from gonuts.server.kernel import i18n
from gonuts.server.transport.rules_page import rules_html

LANGS = i18n.LANGS
KIND_IDS = [k.id for k in KINDS]
PLACEHOLDER = re.compile(r"\{(\w+)(?::([^{}]*))?\}")
NAMES = ["Lía", "Ben", "Inés"]


BROWSER_FILES = ("i18n/{}.json", "static/i18n/{}.json")
"""The browser's catalogues: the interface's (also served in /api/i18n) and the front end's
own, which wins on a shared key (static/js/i18n.js)."""


def browser_file(pattern: str, lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((i18n.WEB_DIR / pattern.format(lang)).read_text("utf-8"))
    return data


def browser(lang: str) -> dict[str, str]:
    """Every text the browser has in ``lang``, as static/js/i18n.js merges them."""
    merged: dict[str, str] = {}
    for pattern in BROWSER_FILES:
        merged.update(browser_file(pattern, lang))
    return merged


def placeholders(text: str) -> set[str]:
    return {m.group(1) for m in PLACEHOLDER.finditer(text)}


def leaves(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of a server catalogue's texts. Lists (the rules page's sections, whose
    paragraphs differ by language), each language's card forms (selectors differ) and the
    cards (English keeps gonuts.cards' texts) are leaves; ``_about`` notes are left out."""
    if isinstance(node, dict) and path not in ("cards",) and not path.startswith("card_forms."):
        for key, value in node.items():
            if not key.startswith("_"):
                yield from leaves(value, f"{path}.{key}" if path else key)
    else:
        yield path, node


@pytest.mark.parametrize("pattern", BROWSER_FILES)
def test_the_browser_catalogues_have_the_same_keys_and_placeholders(pattern: str) -> None:
    cats = {lang: browser_file(pattern, lang) for lang in LANGS}
    for lang in ("es", "it"):
        assert set(cats[lang]) == set(cats["en"]), (
            lang,
            sorted(set(cats["en"]) ^ set(cats[lang])),
        )
    for key, text in cats["en"].items():
        for lang in ("es", "it"):
            assert placeholders(cats[lang][key]) == placeholders(text), (lang, key)
            assert cats[lang][key].strip(), (lang, key)


def test_the_server_catalogues_have_the_same_keys_and_placeholders() -> None:
    cats = {lang: dict(leaves(i18n.server_texts(lang))) for lang in LANGS}
    for lang in ("es", "it"):
        assert set(cats[lang]) == set(cats["en"]), sorted(set(cats["en"]) ^ set(cats[lang]))
    for key, text in cats["en"].items():
        for lang in ("es", "it"):
            other = cats[lang][key]
            assert type(other) is type(text), (lang, key)
            if isinstance(text, str):
                assert placeholders(other) == placeholders(text), (lang, key, other)


@pytest.mark.parametrize("lang", ["es", "it"])
def test_every_card_has_its_name_and_grammar(lang: str) -> None:
    table = i18n.server_texts(lang)["cards"]
    assert list(table) == KIND_IDS
    for kind in KINDS:
        entry = table[kind.id]
        assert entry["name"] and entry["points"], kind.id
        assert entry["gender"] in ("m", "f"), kind.id
        assert entry["number"] in ("sg", "pl"), kind.id
        assert entry.get("sound") in (None, "vowel", "lo"), kind.id
        assert (entry["power"] is None) == (kind.power is None), kind.id
    # every form of every language has a pattern for every card's class
    for form, patterns in i18n.server_texts(lang)["card_forms"].items():
        if form.startswith("_"):
            continue
        for kind_id in KIND_IDS:
            cls = i18n.card_class(kind_id, lang)
            assert any(i18n.fits(sel, cls) for sel in patterns), (form, kind_id, cls)


def test_the_card_forms_are_the_same_in_every_language() -> None:
    forms = {lang: set(i18n.server_texts(lang)["card_forms"]) - {"_about"} for lang in LANGS}
    assert forms["es"] == forms["en"] == forms["it"]


# The definite article of each card, as a Spanish and an Italian reader would write it.
THE = {
    "es": {
        "chocolate_frosted": "la Glaseada de chocolate",
        "donut_holes": "las Bolitas de dona",
        "eclair": "el Éclair",
        "french_cruller": "el Buñuelo francés",
        "glazed": "la Glaseada",
        "jelly_filled": "la Rellena de mermelada",
        "maple_bar": "la Barra de arce",
        "plain": "la Sencilla",
        "powdered": "la Azucarada",
        "boston_cream": "la Crema de Boston",
        "double_chocolate": "el Doble chocolate",
        "red_velvet": "la Red Velvet",
        "sprinkled": "la Con chispas",
        "bear_claw": "la Garra de oso",
        "cinnamon_twist": "la Trenza de canela",
        "coffee": "el Café",
        "day_old": "las Donas del día anterior",
        "milk": "la Leche",
        "old_fashioned": "la Tradicional",
        "maple_frosted": "la Glaseada de arce",
        "mucho_matcha": "el Mucho Matcha",
        "raspberry_frosted": "la Glaseada de frambuesa",
        "strawberry_glazed": "la Glaseada de fresa",
    },
    "it": {
        "chocolate_frosted": "il Chocolate Frosted",
        "donut_holes": "il Doughnut",
        "eclair": "l'Éclair",
        "french_cruller": "il French Cruller",
        "glazed": "lo Smaltato",
        "jelly_filled": "il Jelly-Filled",
        "maple_bar": "il Maple Bar",
        "plain": "il Plain",
        "powdered": "il Powdered",
        "boston_cream": "il Boston Cream",
        "double_chocolate": "il Double Chocolate",
        "red_velvet": "il Red Velvet",
        "sprinkled": "lo Spruzzato",
        "bear_claw": "il Bear Claw",
        "cinnamon_twist": "il Cinnamon Twist",
        "coffee": "il Coffee",
        "day_old": "i Day-Old Donuts",
        "milk": "il Milk",
        "old_fashioned": "l'Old Fashioned",
        "maple_frosted": "il Maple Frosted",
        "mucho_matcha": "il Mucho Matcha",
        "raspberry_frosted": "il Raspberry Frosted",
        "strawberry_glazed": "lo Strawberry Glazed",
    },
}
YOUR = {  # the possessive: number (Spanish), gender and number (Italian)
    "es": {"sg": "tu", "pl": "tus"},
    "it": {"m.sg": "il tuo", "f.sg": "la tua", "m.pl": "i tuoi", "f.pl": "le tue"},
}
THEIR = {
    "es": {"sg": "su", "pl": "sus"},
    "it": {"m.sg": "il suo", "f.sg": "la sua", "m.pl": "i suoi", "f.pl": "le sue"},
}


def _by_class(table: dict[str, str], kind: str, lang: str) -> str:
    entry = i18n.server_texts(lang)["cards"][kind]
    key = entry["number"] if lang == "es" else f"{entry['gender']}.{entry['number']}"
    return table[key]


@pytest.mark.parametrize("lang", ["es", "it"])
@pytest.mark.parametrize("kind", KIND_IDS)
def test_card_actions_agree_with_the_card(lang: str, kind: str) -> None:
    name = i18n.card_name(kind, lang)
    the = THE[lang][kind]
    assert the.endswith(name)

    def action(text: str) -> str:
        return i18n.describe_action(Action.parse(text), NAMES, lang)

    your = _by_class(YOUR[lang], kind, lang)
    discard = {"es": "Descartar", "it": "Scarta"}[lang]
    assert action(f"discard {kind}") == f"{discard} {your} {name}"
    keep = {"es": "Quedarte con", "it": "Tieni"}[lang]
    assert action(f"keep {kind}") == f"{keep} {the}"
    of = {"es": "de", "it": "di"}[lang]
    assert action(f"discard {kind} from 1") == f"{discard} {the} {of} Ben"
    taken = Event(EventType.CARD_TAKEN, player=0, card=kind, position=3)
    takes = {"es": "Lía toma {} de la posición 3.", "it": "Lía prende {} dalla posizione 3."}
    assert i18n.describe_event(taken, NAMES, lang) == takes[lang].format(the)
    own = Event(EventType.CARD_DISCARDED, player=0, other=0, card=kind, source="milk")
    their = _by_class(THEIR[lang], kind, lang)
    discards = {"es": "Lía descarta {} (Leche).", "it": "Lía scarta {} (Milk)."}
    assert i18n.describe_event(own, NAMES, lang) == discards[lang].format(f"{their} {name}")
    moved = Event(EventType.CARD_MOVED, player=1, other=2, card=kind, source="bear_claw")
    text = i18n.describe_event(moved, NAMES, lang)
    assert text.startswith(the[0].upper() + the[1:] + " "), text
    plural = i18n.server_texts(lang)["cards"][kind]["number"] == "pl"
    verb = {"es": ("pasa", "pasan"), "it": ("passa", "passano")}[lang][plural]
    assert f" {verb} " in text, text


def test_the_defects_of_the_issue_are_gone() -> None:
    def action(text: str, lang: str) -> str:
        return i18n.describe_action(Action.parse(text), NAMES, lang)

    assert action("discard day_old", "es") == "Descartar tus Donas del día anterior"
    assert action("discard donut_holes", "es") == "Descartar tus Bolitas de dona"
    assert action("discard glazed", "es") == "Descartar tu Glaseada"
    own = Event(EventType.CARD_DISCARDED, player=0, other=0, card="day_old", source="milk")
    assert (
        i18n.describe_event(own, NAMES, "es") == "Lía descarta sus Donas del día anterior (Leche)."
    )
    assert i18n.describe_event(own, NAMES, "en") == "Lía discards their own Day-Old Donuts (Milk)."
    theirs = Event(EventType.CARD_DISCARDED, player=0, other=1, card="day_old", source="milk")
    assert i18n.describe_event(theirs, NAMES, "es") == (
        "Lía descarta las Donas del día anterior de Ben (Leche)."
    )
    contested = Event(EventType.CARD_CONTESTED, players=(0, 2), card="donut_holes", position=1)
    assert i18n.describe_event(contested, NAMES, "es") == (
        "Lía e Inés eligieron la posición 1: las Bolitas de dona se descartan."
    )
    contested = Event(EventType.CARD_CONTESTED, players=(0, 1), card="glazed", position=1)
    assert i18n.describe_event(contested, NAMES, "es").endswith("la Glaseada se descarta.")
    assert i18n.describe_event(contested, NAMES, "it").endswith("lo Smaltato viene scartato.")
    fizzled = Event(EventType.POWER_FIZZLED, player=0, source="day_old")
    assert i18n.describe_event(fizzled, NAMES, "es") == (
        "Las Donas del día anterior de Lía no tienen efecto."
    )
    assert i18n.describe_event(fizzled, NAMES, "it") == "I Day-Old Donuts di Lía non hanno effetto."
    fizzled = Event(EventType.POWER_FIZZLED, player=0, source="milk")
    assert i18n.describe_event(fizzled, NAMES, "it") == "Il Milk di Lía non ha effetto."
    drawn = Event(EventType.CARD_DRAWN, player=0, card="glazed", source="chocolate_frosted")
    assert i18n.describe_event(drawn, NAMES, "it").startswith("Lía pesca uno Smaltato dal")
    assert i18n.describe_event(drawn, NAMES, "es").startswith("Lía roba una Glaseada del")
    assert i18n.describe_event(drawn, NAMES, "en").startswith("Lía draws a Glazed from")
    drawn = Event(EventType.CARD_DRAWN, player=0, card="eclair", source="chocolate_frosted")
    assert i18n.describe_event(drawn, NAMES, "it").startswith("Lía pesca un Éclair dal")
    assert i18n.describe_event(drawn, NAMES, "en").startswith("Lía draws an Éclair from")
    assert action("give old_fashioned to 1", "en") == "Give an Old Fashioned to Ben"
    assert action("take eclair", "it") == "Prendi un Éclair dalla pila degli scarti"
    # the coach is no "una guía" / "una guida" (a guidebook)
    for lang in ("es", "it"):
        assert not re.search(r"\buna gu[ií]d?a\b", browser(lang)["tutorial.learn_hint"])


def _events_for(kind: str) -> Iterator[Event]:
    """Every event type, naming ``kind`` as its card and its power."""
    for t in EventType:
        if t is EventType.CARD_DISCARDED:
            yield Event(t, player=0, other=0, card=kind, source=kind)
        yield Event(
            t,
            player=0,
            other=1,
            card=kind,
            source=kind,
            position=2,
            round=3,
            players=(0, 1),
            positions=(2, 1),
            cards=(kind, kind),
            scores=(7, 5),
        )


def render_browser(text: str, card: str, lang: str) -> str:
    """A browser message with every placeholder filled: ``card`` for the card ones (as
    static/js/i18n.js's ``t`` fills ``{card:form}``), "X" for the others."""

    def fill(m: re.Match[str]) -> str:
        name, spec = m.group(1), m.group(2)
        if name == "card":
            return i18n.agree(
                i18n.card_name(card, lang), i18n.card_class(card, lang), spec or "", lang
            )
        return "X"

    return PLACEHOLDER.sub(fill, text)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", KIND_IDS)
def test_every_message_renders_for_every_card(lang: str, kind: str) -> None:
    texts = [i18n.describe_event(e, NAMES, lang) for e in _events_for(kind)]
    notations = ["keep {}", "take {}", "take {} from 1", "give {} to 1", "pass {}", "discard {}"]
    for notation in [*notations, "discard {} from 1"]:
        action = Action.parse(notation.format(kind))
        assert action.kind == kind
        texts.append(i18n.describe_action(action, NAMES, lang))
    texts += [
        render_browser(text, kind, lang)
        for text in browser(lang).values()
        if "card" in placeholders(text)
    ]
    name = i18n.card_name(kind, lang)
    for text in texts:
        assert "{" not in text and "}" not in text and "None" not in text, text
        assert "  " not in text and not text.startswith(" "), text
        if lang != "en":
            assert not re.search(r"\b(the|an|your|their)\b", text.replace(name, "")), text
    assert sum(name in text for text in texts) >= len(texts) - 3, (kind, lang)


def _all_texts(lang: str) -> list[str]:
    """Every text a player may read in ``lang``: the browser's, the server's (the rules page's
    paragraphs and the cards' points and powers included)."""
    server = i18n.server_texts(lang)
    out = list(browser(lang).values())
    out += [v for k, v in leaves(server) if isinstance(v, str) and not k.startswith("card_forms")]
    for heading, paragraphs in server["rules"]["sections"]:
        out += [heading, *paragraphs]
    for entry in server["cards"].values():
        out += [entry["points"], entry["power"] or ""]
    return out


@pytest.mark.parametrize("lang", ["es", "it"])
def test_texts_name_cards_as_the_catalogue_does(lang: str) -> None:
    """A power's dialog opens with its card's name in this language, and no text uses an
    English name the language has changed ("Glazed" is "Smaltato" in Italian)."""
    texts = browser(lang)
    names = sorted({i18n.card_name(k.id, lang) for k in KINDS}, key=len, reverse=True)
    for kind in KINDS:
        name = i18n.card_name(kind.id, lang)
        for key in (f"dialog.{kind.id}", f"dialog.{kind.id}_to"):
            if key in texts:
                assert texts[key].startswith(f"{name}:"), (key, texts[key])
        phase = i18n.server_texts(lang)["phases"].get(kind.id)
        assert phase in (None, name), (kind.id, phase)
    changed = [k.name for k in KINDS if k.name != i18n.card_name(k.id, lang)]
    assert changed
    for text in _all_texts(lang):
        rest = text
        for name in names:  # "Strawberry Glazed" is an Italian name too
            rest = rest.replace(name, "")
        leaks = [en for en in changed if re.search(rf"\b{re.escape(en)}\b", rest)]
        assert not leaks, (leaks, text)


def test_the_rules_pages_say_whose_card_names_they_use() -> None:
    italian = rules_html("it")
    assert "I nomi delle carte seguono l&#x27;edizione italiana" in italian
    assert italian.index("edizione italiana") < italian.index('id="glazed"')
    assert "Los nombres de las cartas siguen el reglamento en español" in rules_html("es")
