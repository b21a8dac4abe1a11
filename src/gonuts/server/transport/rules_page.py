"""``/rules``: the donut guide, a self-contained HTML page in English, Spanish or Italian."""

from __future__ import annotations

from html import escape
from typing import Any, Final

from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, kind_count
from gonuts.server.kernel import i18n

_TEXT: Final[dict[str, dict[str, Any]]] = i18n.texts("rules")
"""The page's words in each language (the ``rules`` of ``web/i18n/server/<lang>.json``)."""

_COLOURS: Final = {"green": "#3c9a4a", "pink": "#d6538c", "purple": "#7b4fb8", "blue": "#2f74c0"}

_CSS: Final = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;
line-height:1.45;color:#3b2417;background:#fff8ee}
h1{font-size:1.6rem}nav a{margin-right:.8rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.8rem}
.card{border:4px solid;border-radius:.8rem;padding:.6rem;background:#fff}
.card h3{margin:.1rem 0 .4rem;font-size:1.05rem}.dots{float:right;letter-spacing:.1rem}
.card p{margin:.25rem 0;font-size:.92rem}
"""


def _counts_by_players(kind: str) -> dict[str, int]:
    """Copies of ``kind`` in the deck by player count, equal neighbours merged ("5–6": 4):
    the French Cruller has one per colour in play (RULES.md), every other kind a fixed count."""
    card = KIND_BY_ID[kind]
    runs: list[tuple[int, int, int]] = []
    for n in range(card.min_players, MAX_PLAYERS + 1):
        c = kind_count(card, n)
        if runs and runs[-1][2] == c:
            runs[-1] = (runs[-1][0], n, c)
        else:
            runs.append((n, n, c))
    return {(f"{a}" if a == b else f"{a}–{b}"): c for a, b, c in runs}


def _count_text(kind: str) -> str:
    """ "4", or "1–4" for a kind whose count depends on the player count."""
    counts = sorted(set(_counts_by_players(kind).values()))
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"


def rules_html(lang: str) -> str:
    """The rules page in ``lang`` (en, es or it)."""
    lang = lang if lang in i18n.LANGS else i18n.DEFAULT_LANG
    t = _TEXT[lang]
    title = escape(str(t["title"]))
    parts = [
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f'<nav><a href="/?lang={lang}">{escape(str(t["back"]))}</a>',
        *(
            f'<a href="/rules?lang={code}" hreflang="{code}">{code.upper()}</a>'
            for code in i18n.LANGS
        ),
        f"</nav><h1>{title}</h1>",
    ]
    sections = t["sections"]
    assert isinstance(sections, list)
    for heading, paragraphs in sections:
        parts.append(f"<h2>{escape(heading)}</h2>")
        parts.extend(f"<p>{escape(p)}</p>" for p in paragraphs)
    parts.append(f'<h2>{escape(str(t["cards"]))}</h2><div class="cards">')
    for kind, card in i18n.cards(lang).items():
        colour = _COLOURS[card["colour"]]
        star = " ★" if card["has_power"] else ""
        dots = "●" * card["min_players"]
        parts.append(
            f'<div class="card" id="{kind}" style="border-color:{colour}">'
            f'<span class="dots" style="color:{colour}" title="{card["min_players"]}+ '
            f'{escape(str(t["players"]))}">{dots}</span>'
            f"<h3>{escape(card['name'])}{star} <small>×{_count_text(kind)}</small></h3>"
            f"<p><b>{escape(str(t['points']))}:</b> {escape(card['points'])}</p>"
        )
        by_players = _counts_by_players(kind)
        if len(set(by_players.values())) > 1:
            listed = " · ".join(f"{escape(n)}: {c}" for n, c in by_players.items())
            parts.append(f"<p><b>{escape(str(t['copies']))}:</b> {listed}</p>")
        if card["power"]:
            parts.append(f"<p><b>{escape(str(t['power']))}:</b> {escape(card['power'])}</p>")
        parts.append("</div>")
    parts.append("</div></body></html>")
    return "".join(parts)
