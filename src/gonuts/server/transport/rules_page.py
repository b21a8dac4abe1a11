"""``/rules``: the donut guide, a self-contained HTML page in English, Spanish or Italian."""

from __future__ import annotations

from html import escape
from typing import Any, Final

from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, kind_count
from gonuts.server.kernel import i18n

_TEXT: Final[dict[str, dict[str, Any]]] = i18n.texts("rules")
"""The page's words in each language (the ``rules`` of ``web/i18n/server/<lang>.json``)."""

_CSS: Final = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;line-height:1.45;
color:#3b2417;background:#fff8ee}
.topbar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:8px 12px;
background:#5b3417;color:#fff}
.topbar a{color:#fff;text-decoration:none}
.topbar a:hover,.topbar a:focus-visible{text-decoration:underline}
.brand{font-weight:700;font-size:1.15rem}.topbar nav{display:flex;gap:12px;flex:1;flex-wrap:wrap}
.topbar nav.langs{flex:0 0 auto}.langs{display:flex;gap:8px}
.langs a[aria-current]{font-weight:700;text-decoration:underline}
main{max-width:64rem;margin:0 auto;padding:12px}

.rules h1{font-size:1.6rem}.rules h2{margin-top:1.4rem}
.rules .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.8rem}
.rules .card{border:4px solid;border-radius:.8rem;padding:.6rem;background:#fff}
.rules .card h3{margin:.1rem 0 .4rem;font-size:1.05rem}
.rules .dots{float:right;letter-spacing:.1rem}
.rules .card p{margin:.25rem 0;font-size:.92rem}
.rules .green{border-color:#3c9a4a}.rules .green .dots{color:#3c9a4a}
.rules .pink{border-color:#d6538c}.rules .pink .dots{color:#d6538c}
.rules .purple{border-color:#7b4fb8}.rules .purple .dots{color:#7b4fb8}
.rules .blue{border-color:#2f74c0}.rules .blue .dots{color:#2f74c0}
"""
"""The page's styles: the app's header and colours (``static/css/app.css``) and the rules'
own (``static/css/rules.css`` has the same ``.rules`` rules for the app's rules view)."""


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


def rules_main(lang: str) -> str:
    """The rules themselves (the page's ``<main>``, also shown inside the app by its rules
    view, ``static/js/views/rules.js``): classes only, no inline style, so the app's policy
    (``style-src 'self'``) lets it in."""
    lang = lang if lang in i18n.LANGS else i18n.DEFAULT_LANG
    t = _TEXT[lang]
    title = escape(str(t["title"]))
    parts = [f"<h1>{title}</h1>"]
    sections = t["sections"]
    assert isinstance(sections, list)
    for heading, paragraphs in sections:
        parts.append(f"<h2>{escape(heading)}</h2>")
        parts.extend(f"<p>{escape(p)}</p>" for p in paragraphs)
    parts.append(f'<h2>{escape(str(t["cards"]))}</h2><div class="cards">')
    for kind, card in i18n.cards(lang).items():
        star = " ★" if card["has_power"] else ""
        dots = "●" * card["min_players"]
        parts.append(
            f'<div class="card {card["colour"]}" id="{kind}">'
            f'<span class="dots" title="{card["min_players"]}+ '
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
    parts.append("</div>")
    return "".join(parts)


def rules_html(lang: str) -> str:
    """The rules page in ``lang`` (en, es or it), for a direct link: the app's header (its
    links, the languages) over :func:`rules_main`, styled as the app, without a script."""
    lang = lang if lang in i18n.LANGS else i18n.DEFAULT_LANG
    t = _TEXT[lang]
    ui = i18n.messages(lang)
    links = [
        (f"/?lang={lang}", ui["app.lobby"]),
        ("/my-games", ui["mygames.title"]),  # (no script here: no badge)
        ("/replays", ui["app.replays"]),
        ("/leaderboard", ui["leaderboard.title"]),
        (f"/rules?lang={lang}", ui["app.rules"]),
    ]
    here = ' aria-current="page"'
    nav = "".join(
        f'<a href="{href}"{here if href.startswith("/rules") else ""}>{escape(text)}</a>'
        for href, text in links
    )
    chosen = ' aria-current="true"'
    langs = "".join(
        f'<a href="/rules?lang={code}" hreflang="{code}" lang="{code}"'
        f"{chosen if code == lang else ''}>{code.upper()}</a>"
        for code in i18n.LANGS
    )
    return "".join(
        [
            f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<link rel="icon" href="/static/img/donut.svg" type="image/svg+xml">',
            f"<title>{escape(str(t['title']))}</title><style>{_CSS}</style></head><body>",
            f'<header class="topbar"><a class="brand" href="/?lang={lang}">',
            f"{escape(ui['app.title'])}</a>",
            f'<nav aria-label="{escape(ui["app.title"])}">{nav}</nav>',
            f'<nav class="langs" aria-label="{escape(ui["app.language"])}">{langs}</nav></header>',
            f'<main id="rules" class="rules">{rules_main(lang)}</main></body></html>',
        ]
    )
