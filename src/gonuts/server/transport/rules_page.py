"""``/rules``: the donut guide, a self-contained HTML page in English, Spanish or Italian."""

from __future__ import annotations

from html import escape
from typing import Final

from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, kind_count
from gonuts.server.kernel import i18n

_TEXT: Final[dict[str, dict[str, object]]] = {
    "en": {
        "title": "How to play Go Nuts for Donuts",
        "back": "Back to the game",
        "sections": [
            ("Goal", ["Collect the donuts that score the most points by the end of the game."]),
            ("A round", [
                "The donut row holds one card more than there are players; its positions are "
                "numbered from 1.",
                "Everyone secretly chooses a position. Your choice is locked in, the others stay "
                "hidden until everyone has chosen; then all choices are revealed together.",
                "Position by position from 1: a card chosen by exactly one player goes to that "
                "player; a card chosen by two or more players is discarded and nobody gets it.",
                "A card with a ★ has a power that acts at once, only when taken from the row.",
                "Empty positions are refilled from the deck, in order, and a new round begins.",
            ]),
            ("End of the game", [
                "The game ends when the deck cannot refill the row. Highest score wins; tied, "
                "the player with more cards wins; still tied, they share the victory.",
            ]),
            ("Cards by player count", [
                "A card's colour and dots show the smallest number of players it is used with: "
                "green 2, pink 3, purple 4, blue 5–6.",
            ]),
        ],
        "cards": "The donuts", "points": "Points", "power": "★ Power", "players": "players",
        "copies": "Copies by player count (one per colour in play)",
    },
    "es": {
        "title": "Cómo se juega a Go Nuts for Donuts",
        "back": "Volver al juego",
        "sections": [
            ("Objeto del juego", [
                "Si dos o más jugadores eligen la misma dona, nadie la obtiene. ¡Elige tus donas "
                "sabiamente y consigue la mayor cantidad de puntos para cuando se acaben todas "
                "las donas!",
            ]),
            ("Cómo se juega", [
                "La fila de donas tiene tantas cartas como jugadores más una; sus posiciones se "
                "numeran desde 1.",
                "Cada jugador elige en secreto qué carta quiere de la fila. Tu elección queda "
                "fijada y las de los demás siguen ocultas; cuando todos han elegido, se revelan "
                "simultáneamente.",
                "Comenzando con el número de selección más bajo: si dos o más jugadores eligieron "
                "la misma carta, nadie la recibe y se descarta; si eres el único jugador que la "
                "elige, la tomas.",
                "Si una carta tiene una ★, tiene un poder especial que se activa inmediatamente "
                "cuando se toma de la fila de donas (solo entonces).",
                "Los espacios vacíos se rellenan en orden numérico con cartas del mazo y empieza "
                "una nueva ronda.",
            ]),
            ("Fin del juego", [
                "El juego termina cuando no hay suficientes donas para reponer completamente la "
                "fila. Gana el total más alto; si hay empate, gana el jugador con más cartas; si "
                "siguen empatados, comparten la victoria.",
            ]),
            ("Cartas según el número de jugadores", [
                "Cada carta tiene un fondo de color y puntos que indican el número mínimo de "
                "jugadores: verde 2, rosa 3, morado 4, azul 5–6.",
            ]),
        ],
        "cards": "Las donas", "points": "Puntos", "power": "★ Poder", "players": "jugadores",
        "copies": "Copias según el número de jugadores (una por color en juego)",
    },
    "it": {
        "title": "Come si gioca a Go Nuts for Donuts",
        "back": "Torna al gioco",
        "sections": [
            ("Obiettivo", [
                "Ottieni più ciambelle che puoi per ottenere il punteggio più alto alla fine del "
                "gioco.",
            ]),
            ("Gameplay", [
                "Un gioco è composto da diversi round. All'inizio di un round, la fila di "
                "ciambelle ha tante carte quanti i giocatori più 1.",
                "Ogni giocatore sceglie segretamente una posizione. La tua scelta è bloccata e "
                "quelle degli altri restano nascoste; poi tutti rivelano le proprie scelte.",
                "Se una carta viene scelta da una persona, la ottiene. Se viene scelta da 2 o più "
                "persone, viene scartata.",
                "I poteri delle carte (★) si attivano dalla carta numero 1 fino all'ultima quando "
                "le carte vengono prese dalla fila.",
            ]),
            ("Fine del gioco", [
                "Quando non ci sono abbastanza carte nel mazzo per riempire la fila, il gioco "
                "finisce e vince il punteggio più alto. In caso di pareggio, vince il giocatore "
                "con più carte. Se c'è ancora un pareggio, condividono la vittoria.",
            ]),
            ("Carte per numero di giocatori", [
                "Il colore e i puntini di una carta indicano il numero minimo di giocatori: verde "
                "2, rosa 3, viola 4, blu 5–6.",
            ]),
        ],
        "cards": "Elenco delle ciambelle", "points": "Punti", "power": "★ Potere",
        "players": "giocatori",
        "copies": "Copie per numero di giocatori (una per colore in gioco)",
    },
}  # fmt: skip

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
