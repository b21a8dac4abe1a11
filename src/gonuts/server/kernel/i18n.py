"""Languages of the web app: negotiation, card names and texts, event and action wording.

English card texts come from :mod:`gonuts.cards`; Italian follows the Italian card summary in
the seeds (which keeps most English card names), Spanish the Spanish rulebook (Éclair,
buñuelo francés) with the other names translated in its style. UI message catalogues live in
``gonuts/web/i18n/{lang}.json``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from gonuts.actions import Action, Verb
from gonuts.cards import KINDS, Colour
from gonuts.events import Event, EventType

WEB_DIR: Final = Path(__file__).resolve().parents[2] / "web"
LANGS: Final = ("en", "es", "it")
DEFAULT_LANG: Final = "en"

COLOUR_NAMES: Final = {
    Colour.GREEN: "green",
    Colour.PINK: "pink",
    Colour.PURPLE: "purple",
    Colour.BLUE: "blue",
}


def normalize(lang: str | None) -> str | None:
    """``"es-MX"`` → ``"es"``; None for a language we do not have."""
    if not lang:
        return None
    base = lang.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGS else None


def negotiate(query_lang: str | None, accept_language: str | None) -> str:
    """``?lang=`` first, then ``Accept-Language`` (q-values honoured), then English."""
    chosen = normalize(query_lang)
    if chosen:
        return chosen
    if accept_language:
        ranked: list[tuple[float, int, str]] = []
        for i, part in enumerate(accept_language.split(",")[:32]):
            pieces = part.strip().split(";")
            tag = pieces[0].strip()
            q = 1.0
            for param in pieces[1:]:
                key, _, value = param.strip().partition("=")
                if key.strip() == "q":
                    try:
                        q = float(value)
                    except ValueError:
                        q = 0.0
            lang = normalize(tag)
            if lang and q > 0:
                ranked.append((-q, i, lang))
        if ranked:
            return min(ranked)[2]
    return DEFAULT_LANG


# -- cards ----------------------------------------------------------------------------------------

# kind id → (name, points, power); None keeps the English text.
_CARDS_ES: Final[dict[str, tuple[str, str, str | None]]] = {
    "chocolate_frosted": ("Glaseada de chocolate", "0",
                          "Roba la carta superior del mazo y colócala en tu colección."),
    "donut_holes": ("Bolitas de dona", "Colección: 1→1, 2→3, 3→6, 4→10, 5+→15", None),
    "eclair": ("Éclair", "0", "Toma la carta superior de la pila de descartes."),
    "french_cruller": ("Buñuelo francés", "2",
                       "Descarta cualquier número de cartas de la fila que nadie eligió en "
                       "esta ronda."),
    "glazed": ("Glaseada", "2", None),
    "jelly_filled": ("Rellena de mermelada", "Colección: 1→0, 2–3→5, 4–5→10, 6→15", None),
    "maple_bar": ("Barra de arce", "3 si tienes más de 6 tipos de donas", None),
    "plain": ("Sencilla", "1 cada una; más Sencillas +3 (empate: +1 cada uno)", None),
    "powdered": ("Azucarada", "3", None),
    "boston_cream": ("Crema de Boston", "Colección: 1→0, 2→6, 3→0, 4→15, 5→0, 6→25", None),
    "double_chocolate": ("Doble chocolate", "0",
                         "Roba dos cartas del mazo, quédate una y devuelve la otra encima."),
    "red_velvet": ("Red Velvet", "−2", "Toma una carta a tu elección de la pila de descartes."),
    "sprinkled": ("Con chispas", "2",
                  "Da una de tus otras cartas a un oponente; si no tienes otra carta, da esta "
                  "Con chispas."),
    "bear_claw": ("Garra de oso", "−2", "Toma una carta de un oponente."),
    "cinnamon_twist": ("Trenza de canela", "1",
                       "Cada jugador pasa una carta (tú: no esta) al jugador de su izquierda; si "
                       "alguien no tiene carta que pasar, descarta esta Trenza de canela."),
    "coffee": ("Café", "+1 por cada carta negativa que tengas", None),
    "day_old": ("Donas del día anterior", "−7",
                "Toma hasta 3 cartas a tu elección de la pila de descartes."),
    "milk": ("Leche", "5",
             "Descarta 3 de tus otras cartas, o descarta esta Leche (obligatorio con menos de 3 "
             "otras cartas)."),
    "old_fashioned": ("Tradicional", "5 si tienes menos de 10 cartas", None),
    "maple_frosted": ("Glaseada de arce", "5 si tienes menos cartas que nadie", None),
    "mucho_matcha": ("Mucho Matcha", "3 si tienes menos de 7 tipos de donas", None),
    "raspberry_frosted": ("Glaseada de frambuesa", "0",
                          "Descarta una de tus otras cartas; si no tienes otra carta, descarta "
                          "esta Glaseada de frambuesa."),
    "strawberry_glazed": ("Glaseada de fresa", "−2",
                          "Descarta una carta a tu elección de un oponente; si ningún oponente "
                          "tiene cartas, no pasa nada."),
}  # fmt: skip

_CARDS_IT: Final[dict[str, tuple[str, str, str | None]]] = {
    "chocolate_frosted": ("Chocolate Frosted", "0",
                          "Pesca immediatamente la prima carta dal mazzo e posizionala di "
                          "fronte a te."),
    "donut_holes": ("Doughnut", "1 per uno, 3 per due, 6 per tre, 10 per quattro, 15 per "
                    "cinque o più", None),
    "eclair": ("Éclair", "0", "Prendi immediatamente la prima carta dalla pila degli scarti."),
    "french_cruller": ("French Cruller", "2",
                       "Scarta un numero qualsiasi di carte nella fila che non sono state "
                       "selezionate."),
    "glazed": ("Smaltato", "2", None),
    "jelly_filled": ("Jelly-Filled", "0 per uno, 5 per due o tre, 10 per quattro o cinque, "
                     "15 per sei", None),
    "maple_bar": ("Maple Bar", "3 se hai più di sei tipi di ciambelle", None),
    "plain": ("Plain", "1 ciascuna; chi ne ha di più +3 (in parità: +1 ciascuno)", None),
    "powdered": ("Powdered", "3", None),
    "boston_cream": ("Boston Cream", "0 per una, 6 per due, 0 per tre, 15 per quattro, "
                     "0 per cinque, 25 per sei", None),
    "double_chocolate": ("Double Chocolate", "0",
                         "Pesca due carte dal mazzo, scegline una da mettere di fronte a te e "
                         "rimetti l'altra in cima."),
    "red_velvet": ("Red Velvet", "−2",
                   "Prendi una ciambella a tua scelta dalla pila degli scarti."),
    "sprinkled": ("Spruzzato", "2",
                  "Dai una delle tue altre carte a un avversario; se non hai altre carte, dai "
                  "questo Spruzzato."),
    "bear_claw": ("Bear Claw", "−2", "Prendi una carta da un avversario, se possibile."),
    "cinnamon_twist": ("Cinnamon Twist", "1",
                       "Tutti i giocatori passano una carta (tu: non questa) al giocatore alla "
                       "loro sinistra; se qualcuno non ha carte da passare, scarta questo Cinnamon "
                       "Twist."),
    "coffee": ("Coffee", "+1 per ogni carta che ti dà punti negativi", None),
    "day_old": ("Day-Old Donuts", "−7",
                "Prendi fino a 3 carte a tua scelta dalla pila degli scarti."),
    "milk": ("Milk", "5",
             "Scarta 3 delle tue altre carte o scarta questo Milk (obbligatorio con meno di 3 "
             "altre carte)."),
    "old_fashioned": ("Old Fashioned", "5 se hai meno di 10 carte ciambella", None),
    "maple_frosted": ("Maple Frosted", "5 se hai il minor numero di carte", None),
    "mucho_matcha": ("Mucho Matcha", "3 se hai meno di 7 tipi di ciambelle", None),
    "raspberry_frosted": ("Raspberry Frosted", "0",
                          "Scarta una delle tue altre carte; se non hai altre carte, scarta "
                          "questo Raspberry Frosted."),
    "strawberry_glazed": ("Strawberry Glazed", "−2",
                          "Scarta una carta a tua scelta da un avversario; se nessun avversario "
                          "ha carte, non succede nulla."),
}  # fmt: skip

_CARD_TABLES: Final = {"es": _CARDS_ES, "it": _CARDS_IT}


def card_name(kind: str, lang: str) -> str:
    table = _CARD_TABLES.get(lang)
    if table is not None and kind in table:
        return table[kind][0]
    return next(k.name for k in KINDS if k.id == kind)


@cache
def cards(lang: str) -> dict[str, dict[str, Any]]:
    """Every card kind with its name, points and power texts in ``lang``, and its colour."""
    table = _CARD_TABLES.get(lang, {})
    out: dict[str, dict[str, Any]] = {}
    for k in KINDS:
        name, points, power = table.get(k.id, (k.name, k.points, k.power))
        out[k.id] = {
            "name": name,
            "points": points,
            "power": power if k.power is not None and power is not None else k.power,
            "count": k.count,
            "colour": COLOUR_NAMES[k.colour],
            "min_players": k.min_players,
            "has_power": k.has_power,
            "base_points": k.base_points,
        }
    return out


# -- UI catalogues -------------------------------------------------------------------------------


@cache
def messages(lang: str) -> dict[str, str]:
    """The UI catalogue ``gonuts/web/i18n/{lang}.json``."""
    text = (WEB_DIR / "i18n" / f"{lang}.json").read_text("utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return {str(k): str(v) for k, v in data.items()}


PHASES: Final[dict[str, dict[str, str]]] = {
    "en": {
        "select": "Choose a position", "french_cruller": "French Cruller",
        "double_chocolate": "Double Chocolate", "red_velvet": "Red Velvet",
        "sprinkled": "Sprinkled", "bear_claw": "Bear Claw", "cinnamon_twist": "Cinnamon Twist",
        "day_old": "Day-Old Donuts", "milk": "Milk", "raspberry_frosted": "Raspberry Frosted",
        "strawberry_glazed": "Strawberry Glazed", "over": "Game over",
    },
    "es": {
        "select": "Elige una posición", "french_cruller": "Buñuelo francés",
        "double_chocolate": "Doble chocolate", "red_velvet": "Red Velvet",
        "sprinkled": "Con chispas", "bear_claw": "Garra de oso",
        "cinnamon_twist": "Trenza de canela", "day_old": "Donas del día anterior",
        "milk": "Leche", "raspberry_frosted": "Glaseada de frambuesa",
        "strawberry_glazed": "Glaseada de fresa", "over": "Fin de la partida",
    },
    "it": {
        "select": "Scegli una posizione", "french_cruller": "French Cruller",
        "double_chocolate": "Double Chocolate", "red_velvet": "Red Velvet",
        "sprinkled": "Spruzzato", "bear_claw": "Bear Claw", "cinnamon_twist": "Cinnamon Twist",
        "day_old": "Day-Old Donuts", "milk": "Milk", "raspberry_frosted": "Raspberry Frosted",
        "strawberry_glazed": "Strawberry Glazed", "over": "Fine della partita",
    },
}  # fmt: skip


def catalogue(lang: str) -> dict[str, Any]:
    """The ``GET /api/i18n/{lang}`` object."""
    return {"lang": lang, "messages": messages(lang), "cards": cards(lang), "phases": PHASES[lang]}


# -- plurals, lists, articles ---------------------------------------------------------------------

PLURAL_RULES: Final[dict[str, dict[str, frozenset[int]]]] = {
    "en": {"one": frozenset({1})},
    "es": {"one": frozenset({1})},
    "it": {"one": frozenset({1})},
}
"""CLDR cardinal rules for whole numbers: the numbers of each category, ``other`` for the rest.
English, Spanish and Italian all have ``one`` (exactly 1) and ``other``."""


def plural_category(n: int, lang: str) -> str:
    """The CLDR plural category of ``n`` in ``lang`` ("one" or "other" here)."""
    rules = PLURAL_RULES.get(lang, PLURAL_RULES[DEFAULT_LANG])
    return next((cat for cat, numbers in rules.items() if n in numbers), "other")


_PLURALS: Final[dict[str, dict[str, dict[str, str]]]] = {
    "en": {
        "cards": {"one": "{n} card", "other": "{n} cards"},
        "kinds": {"one": "{n} kind", "other": "{n} kinds"},
        "negative": {"one": "{n} negative card", "other": "{n} negative cards"},
    },
    "es": {
        "cards": {"one": "{n} carta", "other": "{n} cartas"},
        "kinds": {"one": "{n} tipo", "other": "{n} tipos"},
        "negative": {"one": "{n} carta negativa", "other": "{n} cartas negativas"},
    },
    "it": {
        "cards": {"one": "{n} carta", "other": "{n} carte"},
        "kinds": {"one": "{n} tipo", "other": "{n} tipi"},
        "negative": {"one": "{n} carta negativa", "other": "{n} carte negative"},
    },
}


def plural(key: str, n: int, lang: str) -> str:
    """``key`` with ``n`` in ``lang``'s plural form: ``plural("cards", 1, "it")`` → "1 carta"."""
    forms = _PLURALS.get(lang, _PLURALS[DEFAULT_LANG])[key]
    return forms.get(plural_category(n, lang), forms["other"]).format(n=n)


_LIST_AND: Final = {"en": " and ", "es": " y ", "it": " e "}
"""CLDR's conjunction list patterns: "A, B and C" (the en-GB form), "A, B y C", "A, B e C"."""


def join_list(items: Sequence[str], lang: str) -> str:
    """``["A", "B", "C"]`` → "A, B and C" in ``lang`` (Spanish "y" becomes "e" before an
    /i/ sound, as CLDR's Spanish list rule says: "Ana e Inés")."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return items[0] if items else ""
    conj = _LIST_AND.get(lang, _LIST_AND[DEFAULT_LANG])
    last = items[-1]
    low = last.lower()
    if (
        lang == "es"
        and (low.startswith(("i", "í")) or low.startswith(("hi", "hí")))
        and not (low.startswith(("hia", "hie", "hio", "hiu")))
    ):
        conj = " e "
    return ", ".join(items[:-1]) + conj + last


def with_article(card: str, lang: str) -> str:
    """An English card name with its indefinite article ("a Glazed", "an Éclair"); Spanish and
    Italian texts name cards bare."""
    if lang != "en" or not card:
        return card
    return ("an " if card[0].lower() in "aeiouéè" else "a ") + card


_BOT_NAME: Final = re.compile(r"^Bot (\d+) \(([^()]+)\)$")
_LEVEL_NAMES: Final[dict[str, dict[str, str]]] = {
    "en": {"easy": "easy", "medium": "medium", "hard": "hard"},
    "es": {"easy": "fácil", "medium": "medio", "hard": "difícil"},
    "it": {"easy": "facile", "medium": "medio", "hard": "difficile"},
}
_LEVEL_BY_WORD: Final = {w: lvl for names in _LEVEL_NAMES.values() for lvl, w in names.items()}


def display_name(name: str, lang: str) -> str:
    """A bot's name ("Bot 2 (easy)", stored in its table creator's language) in ``lang``;
    any other name as it is."""
    m = _BOT_NAME.match(name)
    if not m or m.group(2) not in _LEVEL_BY_WORD:
        return name
    return bot_name(int(m.group(1)) - 1, _LEVEL_BY_WORD[m.group(2)], lang)


# -- score reasons --------------------------------------------------------------------------------

_REASONS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "set": "set of {count}", "times": "{count} × {each}",
        "plain_most": "{count} × 1, +3 for the most Plain",
        "plain_tied": "{count} × 1, +1 tied for the most Plain",
        "plain_none": "{count} × 1, no majority",
        "more_kinds": "{kinds} (> 6)", "not_more_kinds": "{kinds} (≤ 6)",
        "fewer_kinds": "{kinds} (< 7)", "not_fewer_kinds": "{kinds} (≥ 7)",
        "fewer_cards": "{cards} (< 10)", "not_fewer_cards": "{cards} (≥ 10)",
        "fewest": "fewest cards", "not_fewest": "{cards}, fewest is {fewest}",
        "coffee": "{count} × {negatives}",
    },
    "es": {
        "set": "colección de {count}", "times": "{count} × {each}",
        "plain_most": "{count} × 1, +3 por tener más Sencillas",
        "plain_tied": "{count} × 1, +1 por empatar en más Sencillas",
        "plain_none": "{count} × 1, sin mayoría",
        "more_kinds": "{kinds} (> 6)", "not_more_kinds": "{kinds} (≤ 6)",
        "fewer_kinds": "{kinds} (< 7)", "not_fewer_kinds": "{kinds} (≥ 7)",
        "fewer_cards": "{cards} (< 10)", "not_fewer_cards": "{cards} (≥ 10)",
        "fewest": "menos cartas que nadie", "not_fewest": "{cards}, el mínimo es {fewest}",
        "coffee": "{count} × {negatives}",
    },
    "it": {
        "set": "collezione di {count}", "times": "{count} × {each}",
        "plain_most": "{count} × 1, +3 per il maggior numero di Plain",
        "plain_tied": "{count} × 1, +1 in parità per il maggior numero di Plain",
        "plain_none": "{count} × 1, nessuna maggioranza",
        "more_kinds": "{kinds} (> 6)", "not_more_kinds": "{kinds} (≤ 6)",
        "fewer_kinds": "{kinds} (< 7)", "not_fewer_kinds": "{kinds} (≥ 7)",
        "fewer_cards": "{cards} (< 10)", "not_fewer_cards": "{cards} (≥ 10)",
        "fewest": "meno carte di tutti", "not_fewest": "{cards}, il minimo è {fewest}",
        "coffee": "{count} × {negatives}",
    },
}  # fmt: skip

_SET_KINDS: Final = frozenset({"donut_holes", "jelly_filled", "boston_cream"})


def score_reason(
    kind: str, count: int, points: int, *, kinds: int, cards: int, fewest: int, lang: str
) -> str:
    """Why ``count`` cards of ``kind`` scored ``points`` (the end screen's note), in ``lang``.

    ``kinds``/``cards``: the owner's kind and card counts; ``fewest``: the smallest collection
    at the table. Mirrors :func:`gonuts.scoring._kind_points`, which words it in English only."""
    lang = lang if lang in LANGS else DEFAULT_LANG
    text = _REASONS[lang]
    fields: dict[str, object] = {
        "count": count,
        "kinds": plural("kinds", kinds, lang),
        "cards": plural("cards", cards, lang),
        "fewest": fewest,
    }
    if kind in _SET_KINDS:
        key = "set"
    elif kind == "plain":
        key = {count + 3: "plain_most", count + 1: "plain_tied"}.get(points, "plain_none")
    elif kind == "maple_bar":
        key = "more_kinds" if points > 0 else "not_more_kinds"
    elif kind == "mucho_matcha":
        key = "fewer_kinds" if points > 0 else "not_fewer_kinds"
    elif kind == "old_fashioned":
        key = "fewer_cards" if points > 0 else "not_fewer_cards"
    elif kind == "maple_frosted":
        key = "fewest" if cards == fewest else "not_fewest"
    elif kind == "coffee":
        key = "coffee"
        fields["negatives"] = plural("negative", points // count if count else 0, lang)
    else:
        key = "times"
        fields["each"] = points // count if count else 0
    return text[key].format(**fields)


# -- server-side texts ----------------------------------------------------------------------------

_EVENT_TEXT: Final[dict[str, dict[EventType, str]]] = {
    "en": {
        EventType.ROUND_STARTED: "Round {round} begins.",
        EventType.SELECTIONS_REVEALED: "Selections revealed: {picks}.",
        EventType.CARD_TAKEN: "{who} takes the {card} from position {position}.",
        EventType.CARD_CONTESTED: "{all} chose position {position}: the {card} is discarded.",
        EventType.CARD_DRAWN: "{who} draws {a_card} from the deck ({src}).",
        EventType.CARD_PUT_BACK: "{who} puts {a_card} back on top of the deck (only {who} knows).",
        EventType.TOOK_FROM_DISCARD: "{who} takes {a_card} from the discard pile ({src}).",
        EventType.ROW_CARD_DISCARDED: "{who} discards the {card} at position {position} ({src}).",
        EventType.CARD_DISCARDED: "{who} discards {other}'s {card} ({src}).",
        EventType.CARD_MOVED: "{A_card} moves from {who} to {other} ({src}).",
        EventType.POWER_FIZZLED: "{who}'s {src} has nothing to do.",
        EventType.ROW_REFILLED: "The row is refilled ({filled}).",
        EventType.GAME_OVER: "The deck cannot refill the row: game over. Scores: {scores}. "
        "{winner_label}: {won}.",
    },
    "es": {
        EventType.ROUND_STARTED: "Empieza la ronda {round}.",
        EventType.SELECTIONS_REVEALED: "Se revelan las elecciones: {picks}.",
        EventType.CARD_TAKEN: "{who} toma {card} de la posición {position}.",
        EventType.CARD_CONTESTED: "{all} eligieron la posición {position}: {card} se descarta.",
        EventType.CARD_DRAWN: "{who} roba {card} del mazo ({src}).",
        EventType.CARD_PUT_BACK: "{who} devuelve {card} encima del mazo (solo {who} lo sabe).",
        EventType.TOOK_FROM_DISCARD: "{who} toma {card} de la pila de descartes ({src}).",
        EventType.ROW_CARD_DISCARDED: "{who} descarta {card} de la posición {position} ({src}).",
        EventType.CARD_DISCARDED: "{who} descarta {card} de {other} ({src}).",
        EventType.CARD_MOVED: "{card} pasa de {who} a {other} ({src}).",
        EventType.POWER_FIZZLED: "{src} de {who} no tiene efecto.",
        EventType.ROW_REFILLED: "Se rellena la fila ({filled}).",
        EventType.GAME_OVER: "El mazo no puede rellenar la fila: fin de la partida. Puntos: "
        "{scores}. {winner_label}: {won}.",
    },
    "it": {
        EventType.ROUND_STARTED: "Inizia il round {round}.",
        EventType.SELECTIONS_REVEALED: "Scelte rivelate: {picks}.",
        EventType.CARD_TAKEN: "{who} prende {card} dalla posizione {position}.",
        EventType.CARD_CONTESTED: "{all} hanno scelto la posizione {position}: {card} viene "
        "scartata.",
        EventType.CARD_DRAWN: "{who} pesca {card} dal mazzo ({src}).",
        EventType.CARD_PUT_BACK: "{who} rimette {card} in cima al mazzo (solo {who} lo sa).",
        EventType.TOOK_FROM_DISCARD: "{who} prende {card} dalla pila degli scarti ({src}).",
        EventType.ROW_CARD_DISCARDED: "{who} scarta {card} dalla posizione {position} ({src}).",
        EventType.CARD_DISCARDED: "{who} scarta {card} di {other} ({src}).",
        EventType.CARD_MOVED: "{card} passa da {who} a {other} ({src}).",
        EventType.POWER_FIZZLED: "{src} di {who} non ha effetto.",
        EventType.ROW_REFILLED: "La fila viene riempita ({filled}).",
        EventType.GAME_OVER: "Il mazzo non può riempire la fila: fine della partita. Punti: "
        "{scores}. {winner_label}: {won}.",
    },
}

_WINNER_LABEL: Final = {
    "en": {"one": "Winner", "other": "Winners"},
    "es": {"one": "Gana", "other": "Ganan"},
    "it": {"one": "Vince", "other": "Vincono"},
}


def describe_event(event: Event, names: Sequence[str], lang: str) -> str:
    """One line describing ``event`` in ``lang``."""
    lang = lang if lang in LANGS else DEFAULT_LANG

    def name(kind: str | None) -> str:
        return card_name(kind, lang) if kind else ""

    def who(seat: int | None) -> str:
        ok = seat is not None and 0 <= seat < len(names)
        return display_name(names[seat], lang) if seat is not None and ok else ""

    a_card = with_article(name(event.card), lang)
    fields = {
        "who": who(event.player),
        "other": who(event.other),
        "card": name(event.card),
        "a_card": a_card,
        "A_card": a_card[:1].upper() + a_card[1:],
        "src": name(event.source),
        "position": event.position,
        "round": event.round,
        "all": join_list([who(p) for p in event.players], lang),
        "won": join_list([who(p) for p in event.players], lang),
        "winner_label": _WINNER_LABEL[lang][plural_category(len(event.players), lang)],
        "picks": ", ".join(f"{who(i)} {p}" for i, p in enumerate(event.positions)),
        "filled": ", ".join(
            f"{p}: {name(c)}" for p, c in zip(event.positions, event.cards, strict=False)
        ),
        "scores": ", ".join(f"{who(i)} {s}" for i, s in enumerate(event.scores)),
    }
    return _EVENT_TEXT[lang][event.type].format(**fields)


_ACTION_TEXT: Final[dict[str, dict[Verb, str]]] = {
    "en": {
        Verb.PICK: "Pick position {position}",
        Verb.DISCARD_POSITION: "Discard the card at position {position}",
        Verb.STOP: "Stop",
        Verb.KEEP: "Keep the {card}",
        Verb.TAKE: "Take {a_card} from the discard pile",
        Verb.TAKE_FROM: "Take {a_card} from {seat}",
        Verb.GIVE: "Give {a_card} to {seat}",
        Verb.PASS: "Pass {a_card} to the left",
        Verb.DISCARD: "Discard your {card}",
        Verb.DISCARD_FROM: "Discard {seat}'s {card}",
    },
    "es": {
        Verb.PICK: "Elegir la posición {position}",
        Verb.DISCARD_POSITION: "Descartar la carta de la posición {position}",
        Verb.STOP: "Parar",
        Verb.KEEP: "Quedarte {card}",
        Verb.TAKE: "Tomar {card} de la pila de descartes",
        Verb.TAKE_FROM: "Tomar {card} de {seat}",
        Verb.GIVE: "Dar {card} a {seat}",
        Verb.PASS: "Pasar {card} a la izquierda",
        Verb.DISCARD: "Descartar tu {card}",
        Verb.DISCARD_FROM: "Descartar {card} de {seat}",
    },
    "it": {
        Verb.PICK: "Scegli la posizione {position}",
        Verb.DISCARD_POSITION: "Scarta la carta in posizione {position}",
        Verb.STOP: "Basta",
        Verb.KEEP: "Tieni {card}",
        Verb.TAKE: "Prendi {card} dalla pila degli scarti",
        Verb.TAKE_FROM: "Prendi {card} da {seat}",
        Verb.GIVE: "Dai {card} a {seat}",
        Verb.PASS: "Passa {card} a sinistra",
        Verb.DISCARD: "Scarta la tua {card}",
        Verb.DISCARD_FROM: "Scarta {card} di {seat}",
    },
}

VERB_NAMES: Final = {
    Verb.PICK: "pick",
    Verb.DISCARD_POSITION: "discard_position",
    Verb.STOP: "stop",
    Verb.KEEP: "keep",
    Verb.TAKE: "take",
    Verb.TAKE_FROM: "take_from",
    Verb.GIVE: "give",
    Verb.PASS: "pass",
    Verb.DISCARD: "discard",
    Verb.DISCARD_FROM: "discard_from",
}


def describe_action(action: Action, names: Sequence[str], lang: str) -> str:
    lang = lang if lang in LANGS else DEFAULT_LANG
    ok = action.seat is not None and action.seat < len(names)
    seat = display_name(names[action.seat], lang) if action.seat is not None and ok else ""
    card = card_name(action.kind, lang) if action.kind else ""
    return _ACTION_TEXT[lang][action.verb].format(
        position=action.position, card=card, a_card=with_article(card, lang), seat=seat
    )


def bot_name(seat: int, level: str, lang: str) -> str:
    """A bot's name, "Bot 2 (easy)", in ``lang`` (:func:`display_name` reads any back)."""
    levels: Mapping[str, str] = _LEVEL_NAMES.get(lang, _LEVEL_NAMES[DEFAULT_LANG])
    return f"Bot {seat + 1} ({levels.get(level, level)})"
