"""Rich renderables for the terminal: the row, collections, discard pile, scores.

Everything here draws from a :class:`~gonuts.view.PlayerView` (or a public view), so a screen
can only show what its viewer may know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gonuts.actions import Action, Verb
from gonuts.cards import KIND_BY_ID, KINDS
from gonuts.scoring import ScoreBreakdown
from gonuts.view import PlayerView

# A colour per kind, suggesting the donut (terminal styles, readable on dark and light).
KIND_STYLE: Mapping[str, str] = {
    "chocolate_frosted": "bold #8b4513",
    "donut_holes": "#d2a15e",
    "eclair": "bold #a0522d",
    "french_cruller": "#e3b04b",
    "glazed": "bold #f2c14e",
    "jelly_filled": "bold #c0392b",
    "maple_bar": "#b5651d",
    "plain": "#c8a165",
    "powdered": "bold white",
    "boston_cream": "bold #f5deb3",
    "double_chocolate": "bold #5c3317",
    "red_velvet": "bold red",
    "sprinkled": "bold magenta",
    "bear_claw": "#cd853f",
    "cinnamon_twist": "#d2691e",
    "coffee": "#6f4e37",
    "day_old": "dim",
    "milk": "bold bright_white",
    "old_fashioned": "#deb887",
    "maple_frosted": "#c68e17",
    "mucho_matcha": "bold green",
    "raspberry_frosted": "bold #e30b5c",
    "strawberry_glazed": "bold #fc5a8d",
}
COLOUR_STYLE = {2: "green", 3: "magenta", 4: "purple", 5: "blue"}


def card_text(kind: str, *, star: bool = True) -> Text:
    """A card's name in its style, with ★ for a power card."""
    card = KIND_BY_ID[kind]
    text = Text(card.name, style=KIND_STYLE.get(kind, ""))
    if star and card.has_power:
        text.append(" ★", style="yellow")
    return text


def card_panel(kind: str | None, position: int, *, mark: str = "") -> Panel:
    """One row card: name, points text, power text; the player-count colour as the border."""
    if kind is None:
        return Panel(Text("(empty)", style="dim"), title=f"{position}", width=24, height=8)
    card = KIND_BY_ID[kind]
    body = Text()
    body.append_text(card_text(kind))
    points = card.points.replace("−", "-")
    body.append(
        f"\n{card.points} pts" if points.lstrip("-").isdigit() else f"\n{card.points}", style="cyan"
    )
    if card.power:
        body.append(f"\n{card.power}", style="italic")
    dots = "•" * card.min_players
    return Panel(
        body,
        title=f"[b]{position}[/b]{mark}",
        subtitle=dots,
        border_style=COLOUR_STYLE[card.min_players],
        width=24,
        height=8,
    )


def row_renderable(view: PlayerView) -> RenderableType:
    """The donut row, position 1 first, wrapping to the terminal's width."""
    cells = []
    for i, kind in enumerate(view.row):
        mine = view.seat is not None and view.selections[view.seat] == i + 1
        cells.append(card_panel(kind, i + 1, mark=" ◀ you" if mine else ""))
    return Columns(cells, padding=(0, 1))


def collection_text(collection: Mapping[str, int]) -> Text:
    if not collection:
        return Text("—", style="dim")
    text = Text()
    for i, kind in enumerate(k.id for k in KINDS if k.id in collection):
        if i:
            text.append(", ")
        text.append_text(card_text(kind, star=False))
        if collection[kind] > 1:
            text.append(f" ×{collection[kind]}")
    return text


def players_table(view: PlayerView, names: Sequence[str] | None = None) -> Table:
    names = names or view.players
    table = Table(title="Collections", expand=True, title_justify="left")
    table.add_column("Seat", no_wrap=True)
    table.add_column("Cards", justify="right")
    table.add_column("Collection", ratio=1)
    table.add_column("Score", justify="right")
    table.add_column("Pick", justify="center")
    for p, name in enumerate(names):
        pick = view.selections[p]
        waiting = p in view.waiting_for
        status = str(pick) if pick is not None else ("…" if waiting else "✓")
        label = Text(name, style="bold" if p == view.seat else "")
        if p in view.winners:
            label.append(" 🏆")
        table.add_row(
            label,
            str(sum(view.collections[p].values())),
            collection_text(view.collections[p]),
            str(view.scores[p]),
            status if not view.over else "",
        )
    return table


def discard_text(view: PlayerView, limit: int = 8) -> Text:
    pile = view.discard
    text = Text(f"Discard pile ({len(pile)}): ", style="bold")
    if not pile:
        text.append("empty", style="dim")
        return text
    shown = list(reversed(pile))[:limit]
    for i, kind in enumerate(shown):
        if i:
            text.append(" · ")
        text.append_text(card_text(kind, star=False))
        if i == 0:
            text.append(" (top)", style="dim")
    if len(pile) > limit:
        text.append(f" · … {len(pile) - limit} more", style="dim")
    return text


def table_renderable(view: PlayerView, *, title: str | None = None) -> RenderableType:
    """The whole table as ``view.seat`` sees it."""
    head = Text()
    head.append(title or f"Go Nuts for Donuts — round {view.round}", style="bold")
    head.append(f"   Deck: {view.deck_size} cards", style="cyan")
    if view.known_deck_top:
        head.append("   (you know the top card: ")
        head.append_text(card_text(view.known_deck_top, star=False))
        head.append(")")
    return Group(head, row_renderable(view), discard_text(view), players_table(view))


def breakdown_table(
    names: Sequence[str], rows: Sequence[ScoreBreakdown], winners: Sequence[int]
) -> Table:
    table = Table(title="Final scores", expand=True, title_justify="left")
    table.add_column("Seat")
    table.add_column("Score breakdown", ratio=1)
    table.add_column("Cards", justify="right")
    table.add_column("Total", justify="right")
    for b in rows:
        lines = Text()
        for i, line in enumerate(b.lines):
            if i:
                lines.append("\n")
            lines.append_text(card_text(line.kind, star=False))
            lines.append(f" ×{line.count}: {line.points:+d}  ", style="")
            lines.append(line.reason, style="dim")
        name = Text(names[b.player], style="bold")
        if b.player in winners:
            name.append(" 🏆 winner", style="yellow")
        table.add_row(
            name, lines if b.lines else Text("—", style="dim"), str(b.cards), f"{b.total}"
        )
    return table


def describe_action(action: Action, names: Sequence[str]) -> str:
    """Words for an action, for menus ("Take a Glazed from Ben")."""
    kind = KIND_BY_ID[action.kind].name if action.kind else ""
    seat = names[action.seat] if action.seat is not None else ""
    verb = action.verb
    if verb is Verb.PICK:
        return f"Pick position {action.position}"
    if verb is Verb.DISCARD_POSITION:
        return f"Discard the card at position {action.position}"
    if verb is Verb.STOP:
        return "Stop"
    if verb is Verb.KEEP:
        return f"Keep the {kind}"
    if verb is Verb.TAKE:
        return f"Take a {kind} from the discard pile"
    if verb is Verb.TAKE_FROM:
        return f"Take a {kind} from {seat}"
    if verb is Verb.GIVE:
        return f"Give a {kind} to {seat}"
    if verb is Verb.PASS:
        return f"Pass a {kind} to the left"
    if verb is Verb.DISCARD:
        return f"Discard your {kind}"
    return f"Discard {seat}'s {kind}"
