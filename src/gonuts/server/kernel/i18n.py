"""Languages of the web app: negotiation, card names and texts, event and action wording.

English card texts come from :mod:`gonuts.cards`; Italian follows the Italian card summary in
the seeds (which keeps most English card names), Spanish the Spanish rulebook (Éclair,
buñuelo francés) with the other names translated in its style.

Every word is in a catalogue, this module only selects and formats (plurals, lists, articles,
bot names): the browser's catalogues are ``gonuts/web/i18n/{lang}.json``, the server's own
(error texts, the /rules page, event and action wording, card texts) are beside them in
``gonuts/web/i18n/server/{lang}.json`` (:func:`server_texts`).

Plural categories and list patterns are CLDR's, through Babel (the browser uses the same CLDR
data through ``Intl.PluralRules`` and ``Intl.ListFormat``). CLDR has no articles, so a card's
grammar is in the catalogue: each card's gender and number (and, in Italian and English, the
first sound of its name, which picks "lo"/"l'" or "an"), and per language the forms a message
can ask for, ``{card:the}``, ``{card:your}``, ``{card:their}``, ... or a choice by agreement,
``{card:pl=se descartan|se descarta}`` (:class:`CardWords`). The browser applies the same forms
(``static/js/i18n.js``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Final

from babel import Locale
from babel.lists import format_list

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

SERVER_TEXTS_DIR: Final = WEB_DIR / "i18n" / "server"
"""The server's catalogues, one per language: error texts, the /rules page, event and action
wording, card texts (``web/i18n/server/<lang>.json``, beside the browser's)."""


@cache
def server_texts(lang: str) -> dict[str, Any]:
    """The server's catalogue of ``lang`` (one of :data:`LANGS`), as read from its file."""
    data: dict[str, Any] = json.loads(
        (SERVER_TEXTS_DIR / f"{lang}.json").read_text(encoding="utf-8")
    )
    return data


def texts(part: str) -> dict[str, Any]:
    """One part of every language's server catalogue, by language."""
    return {lang: server_texts(lang)[part] for lang in LANGS}


_CARD_TABLES: Final[dict[str, dict[str, dict[str, Any]]]] = {
    lang: dict(server_texts(lang).get("cards", {})) for lang in LANGS
}
"""Each language's card entries: name, points and power (English: :mod:`gonuts.cards`'), and the
name's grammar: ``gender`` ("m"/"f", Spanish and Italian), ``number`` ("sg"/"pl"), ``sound``
("vowel", or Italian "lo" for s+consonant, z, gn, ps, x, y)."""


def _card_text(kind: str, field: str, lang: str) -> str | None:
    entry = _CARD_TABLES.get(lang, {}).get(kind, {})
    value = entry.get(field)
    return value if isinstance(value, str) else None


def card_name(kind: str, lang: str) -> str:
    return _card_text(kind, "name", lang) or next(k.name for k in KINDS if k.id == kind)


def card_class(kind: str, lang: str) -> str:
    """The agreement class of ``kind``'s name in ``lang``: its gender, number and first sound,
    dotted ("f.pl" for the Spanish Donas del día anterior, "m.sg.lo" for the Italian Smaltato,
    "sg.vowel" for the English Éclair)."""
    entry = _CARD_TABLES.get(lang, {}).get(kind, {})
    parts = [entry.get("gender"), entry.get("number", "sg"), entry.get("sound")]
    return ".".join(str(p) for p in parts if p)


@cache
def cards(lang: str) -> dict[str, dict[str, Any]]:
    """Every card kind with its name, points and power texts in ``lang``, its colour, and its
    name's agreement class (:func:`card_class`) for the browser's forms."""
    out: dict[str, dict[str, Any]] = {}
    for k in KINDS:
        power = _card_text(k.id, "power", lang)
        out[k.id] = {
            "name": card_name(k.id, lang),
            "points": _card_text(k.id, "points", lang) or k.points,
            "power": power if k.power is not None and power is not None else k.power,
            "class": card_class(k.id, lang),
            "count": k.count,
            "colour": COLOUR_NAMES[k.colour],
            "min_players": k.min_players,
            "has_power": k.has_power,
            "base_points": k.base_points,
        }
    return out


_CARD_FORMS: Final[dict[str, dict[str, dict[str, str]]]] = {
    lang: {k: v for k, v in table.items() if not k.startswith("_")}
    for lang, table in texts("card_forms").items()
}
"""Per language, each form a message can ask of a card (``the``, ``a``, ``your``, ...): the
patterns by agreement class, most specific first (``other`` matches every class)."""


def fits(selector: str, cls: str) -> bool:
    """Whether a form's or a choice's selector ("m.pl", "vowel", "other") fits ``cls``."""
    return selector == "other" or set(selector.split(".")) <= set(cls.split("."))


def agree(name: str, cls: str, spec: str, lang: str) -> str:
    """``name`` (of agreement class ``cls``) as ``spec`` asks in ``lang``: "" the name itself;
    a form ("the", "your"; capitalised, "The", to start a sentence); or a choice by agreement,
    "f.pl=scartate|pl=scartati|scartato" (the first choice whose selector fits, else the last
    plain one). Raises ValueError for a form the catalogue lacks (the catalogue test renders
    every message with every card, so none reaches a player)."""
    if not name or not spec:
        return name
    if "|" in spec or "=" in spec:
        for choice in spec.split("|"):
            selector, eq, text = choice.partition("=")
            if not eq:
                return choice
            if fits(selector, cls):
                return text
        return ""
    key = spec[:1].lower() + spec[1:]
    table = _CARD_FORMS.get(lang, _CARD_FORMS[DEFAULT_LANG]).get(key)
    if table is None:
        raise ValueError(f"no card form {key!r} in {lang}")
    pattern = next((p for sel, p in table.items() if fits(sel, cls)), "{name}")
    out = pattern.replace("{name}", name)
    return out[:1].upper() + out[1:] if spec[:1].isupper() else out


class CardWords:
    """A card in a message: ``{card}`` formats as its name, ``{card:the}``, ``{card:your}``,
    ``{card:pl=pasan|pasa}`` as :func:`agree` says (Python's format spec carries the form).

    >>> "{c:your} · {c:The} {c:pl=se descartan|se descarta}".format(c=CardWords("day_old", "es"))
    'tus Donas del día anterior · Las Donas del día anterior se descartan'
    >>> "Scarta {c:your}".format(c=CardWords("glazed", "it")), f"{CardWords('glazed', 'it'):the}"
    ('Scarta il tuo Smaltato', 'lo Smaltato')
    """

    __slots__ = ("cls", "lang", "name")

    def __init__(self, kind: str | None, lang: str) -> None:
        self.lang = lang
        self.name = card_name(kind, lang) if kind else ""
        self.cls = card_class(kind, lang) if kind else ""

    def __format__(self, spec: str) -> str:
        return agree(self.name, self.cls, spec, self.lang)

    def __str__(self) -> str:
        return self.name


# -- UI catalogues -------------------------------------------------------------------------------


@cache
def messages(lang: str) -> dict[str, str]:
    """The UI catalogue ``gonuts/web/i18n/{lang}.json``."""
    text = (WEB_DIR / "i18n" / f"{lang}.json").read_text("utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return {str(k): str(v) for k, v in data.items()}


PHASES: Final[dict[str, dict[str, str]]] = texts("phases")


def catalogue(lang: str) -> dict[str, Any]:
    """The ``GET /api/i18n/{lang}`` object."""
    return {
        "lang": lang,
        "messages": messages(lang),
        "cards": cards(lang),
        "phases": PHASES[lang],
        "card_forms": _CARD_FORMS[lang],
        "actions": {VERB_NAMES[verb]: text for verb, text in _ACTION_TEXT[lang].items()},
    }


# -- plurals, lists, articles ---------------------------------------------------------------------

_LOCALES: Final = {"en": "en_GB", "es": "es", "it": "it"}
"""The CLDR locale of each language (English lists take the en-GB form, "A, B and C")."""


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(_LOCALES.get(lang, _LOCALES[DEFAULT_LANG]))


def plural_category(n: int, lang: str) -> str:
    """The CLDR plural category of ``n`` in ``lang`` ("one", "many" or "other" here):

    >>> plural_category(1, "it"), plural_category(2, "es"), plural_category(1_000_000, "es")
    ('one', 'other', 'many')
    """
    category: str = _locale(lang).plural_form(n)
    return category


_PLURALS: Final[dict[str, dict[str, dict[str, str]]]] = texts("plurals")


def plural(key: str, n: int, lang: str) -> str:
    """``key`` with ``n`` in ``lang``'s plural form: ``plural("cards", 1, "it")`` → "1 carta"."""
    forms = _PLURALS.get(lang, _PLURALS[DEFAULT_LANG])[key]  # a missing category: "other"
    return forms.get(plural_category(n, lang), forms["other"]).format(n=n)


def join_list(items: Sequence[str], lang: str) -> str:
    """``["A", "B", "C"]`` → "A, B and C" in ``lang``: CLDR's conjunction list pattern (Babel),
    with Spanish "y" made "e" before an /i/ sound, as ICU's Spanish list formatter does
    ("Ana e Inés", "Ana y Hielo")."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return items[0] if items else ""
    out = format_list(items, locale=_locale(lang))
    low = items[-1].lower()
    if (
        lang == "es"
        and low.startswith(("i", "í", "hi", "hí"))
        and not low.startswith(("hia", "hie", "hio", "hiu"))
    ):
        head = out[: len(out) - len(items[-1])]
        if head.endswith(" y "):
            out = head[:-3] + " e " + items[-1]
    return out


def with_article(card: str, lang: str) -> str:
    """An English card name with its indefinite article ("a Glazed", "an Éclair"); other
    languages' names as they are (their messages use :class:`CardWords`)."""
    if lang != "en" or not card:
        return card
    return ("an " if card[0].lower() in "aeiouéè" else "a ") + card


_BOT_NAME: Final = re.compile(r"^Bot (\d+) \(([^()]+)\)$")
_LEVEL_NAMES: Final[dict[str, dict[str, str]]] = texts("levels")
_LEVEL_BY_WORD: Final = {w: lvl for names in _LEVEL_NAMES.values() for lvl, w in names.items()}


DELETED_PLAYER: Final = "Deleted player"
"""The name a deleted account's seats take in finished games and their records (fixed,
whatever the language; :func:`display_name` shows it in the reader's)."""


def deleted_player(lang: str) -> str:
    """:data:`DELETED_PLAYER` in ``lang``."""
    text: str = server_texts(lang if lang in LANGS else DEFAULT_LANG)["deleted_player"]
    return text


def display_name(name: str, lang: str) -> str:
    """A bot's name ("Bot 2 (easy)", stored in its table creator's language) in ``lang``;
    a deleted account's :data:`DELETED_PLAYER` in ``lang``; any other name as it is."""
    if name == DELETED_PLAYER:
        return deleted_player(lang)
    m = _BOT_NAME.match(name)
    if not m or m.group(2) not in _LEVEL_BY_WORD:
        return name
    return bot_name(int(m.group(1)) - 1, _LEVEL_BY_WORD[m.group(2)], lang)


# -- score reasons --------------------------------------------------------------------------------

_REASONS: Final[dict[str, dict[str, str]]] = texts("reasons")

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

_EVENT_TEXT: Final[dict[str, dict[str, str]]] = texts("events")
"""Each event type's wording by language; ``<type>.own`` where ``other`` is the player
themselves ("Lía descarta sus Donas del día anterior")."""

assert all(EventType(k.split(".")[0]) for table in _EVENT_TEXT.values() for k in table)

_WINNER_LABEL: Final[dict[str, dict[str, str]]] = texts("winner")


def describe_event(event: Event, names: Sequence[str], lang: str) -> str:
    """One line describing ``event`` in ``lang``."""
    lang = lang if lang in LANGS else DEFAULT_LANG

    def name(kind: str | None) -> str:
        return card_name(kind, lang) if kind else ""

    def who(seat: int | None) -> str:
        ok = seat is not None and 0 <= seat < len(names)
        return display_name(names[seat], lang) if seat is not None and ok else ""

    a_card = with_article(name(event.card), lang)
    fields: dict[str, object] = {
        "who": who(event.player),
        "other": who(event.other),
        "card": CardWords(event.card, lang),
        "a_card": a_card,
        "A_card": a_card[:1].upper() + a_card[1:],
        "src": CardWords(event.source, lang),
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
    table = _EVENT_TEXT[lang]
    own = event.other is not None and event.other == event.player
    key = f"{event.type.value}.own" if own and f"{event.type.value}.own" in table else event.type
    return table[key].format(**fields)


_ACTION_TEXT: Final[dict[str, dict[Verb, str]]] = {
    lang: {Verb[verb]: text for verb, text in table.items()}
    for lang, table in texts("actions").items()
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
    card = CardWords(action.kind, lang)
    return _ACTION_TEXT[lang][action.verb].format(
        position=action.position, card=card, a_card=with_article(card.name, lang), seat=seat
    )


def bot_name(seat: int, level: str, lang: str) -> str:
    """A bot's name, "Bot 2 (easy)", in ``lang`` (:func:`display_name` reads any back)."""
    levels: Mapping[str, str] = _LEVEL_NAMES.get(lang, _LEVEL_NAMES[DEFAULT_LANG])
    return f"Bot {seat + 1} ({levels.get(level, level)})"
