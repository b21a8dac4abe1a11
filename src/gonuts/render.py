"""Rich renderables and wording for the terminal: the row, collections, discard pile, scores,
the event log, hints and the card reference.

Everything here draws from a :class:`~gonuts.view.PlayerView` (or a public view), so a screen
can only show what its viewer may know. Player names are always :class:`~rich.text.Text`,
never markup, so a name like ``[red]x`` or ``a[/b]`` prints as typed. Seats are numbered
from 0 everywhere, as in the record notation (``take glazed from 2`` takes from seat 2).
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.cells import cell_len
from rich.columns import Columns
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gonuts.actions import Action, Verb
from gonuts.cards import KIND_BY_ID, KINDS, CardKind
from gonuts.events import Event, EventType
from gonuts.scoring import ScoreBreakdown
from gonuts.view import PlayerView

if TYPE_CHECKING:
    from gonuts.bots.hint import Hint

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
COLOUR_NAME = {2: "green", 3: "pink", 4: "purple", 5: "blue"}

COMPACT_WIDTH = 100
"""Below this many columns (or :data:`COMPACT_HEIGHT` lines) the row is one line per card."""
COMPACT_HEIGHT = 32


# -- words ------------------------------------------------------------------------------------


def article(name: str) -> str:
    """``"an"`` before a vowel sound (an Éclair, an Old Fashioned), else ``"a"``."""
    letter = unicodedata.normalize("NFKD", name[:1])[:1].lower()
    return "an" if letter in "aeiou" and letter else "a"


def a_card(kind: str) -> str:
    """``"an Éclair"``, ``"a Glazed"``."""
    name = KIND_BY_ID[kind].name
    return f"{article(name)} {name}"


def points_text(card: CardKind) -> str:
    """A card's scoring in words: ``"1 pt"``, ``"2 pts"``, ``"-2 pts"``, or its rule."""
    plain = card.points.replace("−", "-")
    if plain.lstrip("-").isdigit():
        return f"{card.points} pt" if abs(int(plain)) == 1 else f"{card.points} pts"
    return card.points


BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that reorder the text around them (a name could make a line read backwards)."""


def is_control(char: str) -> bool:
    """A character that is an instruction to the terminal, not a letter: C0 and C1 controls,
    DEL, line and paragraph separators and the bidirectional overrides."""
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI_CONTROLS


def printable(text: str) -> str:
    """``text`` with every control character written as an escape (``ESC`` → ``\\x1b``), so
    a name from a record someone sent cannot retitle, clear or colour the terminal."""
    if not any(is_control(c) for c in text):
        return text
    out = []
    for char in text:
        if not is_control(char):
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)


def display_names(names: Sequence[str]) -> tuple[str, ...]:
    """Names as a screen shows them: control characters escaped (:func:`printable`), and
    names that read alike (``Ana``, ``ana``) told apart by their seat (``Ana (seat 1)``)."""
    shown = [printable(name) for name in names]
    folded = [name.casefold() for name in shown]
    return tuple(
        f"{name} (seat {p})" if folded.count(folded[p]) > 1 else name
        for p, name in enumerate(shown)
    )


def join_names(names: Sequence[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def seat_label(names: Sequence[str], seat: int) -> Text:
    """``"Ben (seat 1)"`` as text: the seat number the notation uses."""
    text = Text(names[seat], style="bold")
    text.append(f" (seat {seat})", style="dim")
    return text


# -- cards ------------------------------------------------------------------------------------


def card_text(kind: str, *, star: bool = True) -> Text:
    """A card's name in its style, with ★ for a power card."""
    card = KIND_BY_ID[kind]
    text = Text(card.name, style=KIND_STYLE.get(kind, ""))
    if star and card.has_power:
        text.append(" ★", style="yellow")
    return text


PANEL_WIDTH = 24
PANEL_HEIGHT = 8


def fit_lines(text: str, width: int, lines: int) -> str:
    """``text`` wrapped to ``width``; past ``lines`` lines it ends with an ellipsis (a box
    would cut it mid-sentence without one: ``? NAME`` shows the whole text)."""
    wrapped = textwrap.wrap(text, width)
    if len(wrapped) <= lines:
        return "\n".join(wrapped)
    last = wrapped[lines - 1]
    last = last if len(last) < width else last[: width - 1].rstrip()
    return "\n".join([*wrapped[: lines - 1], last + "…"])


def card_panel(kind: str | None, position: int, *, mark: str = "") -> Panel:
    """One row card: name, points text, power text; the player-count colour as the border."""
    title = Text(str(position), style="bold")
    if mark:
        title.append(mark)
    if kind is None:
        return Panel(
            Text("(empty)", style="dim"), title=title, width=PANEL_WIDTH, height=PANEL_HEIGHT
        )
    card = KIND_BY_ID[kind]
    body = Text()
    body.append_text(card_text(kind))
    body.append(f"\n{points_text(card)}", style="cyan")
    if card.power:
        body.append("\n" + fit_lines(card.power, PANEL_WIDTH - 4, PANEL_HEIGHT - 4), style="italic")
    return Panel(
        body,
        title=title,
        subtitle=Text("•" * card.min_players),
        border_style=COLOUR_STYLE[card.min_players],
        width=PANEL_WIDTH,
        height=PANEL_HEIGHT,
    )


class CompactRow:
    """The row one line per card, for small terminals: the position (what you type), the name
    and the dots always whole; the points text gives way first, with an ellipsis."""

    def __init__(self, row: Sequence[str | None], mine: int | None) -> None:
        self.row = row
        self.mine = mine

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        marks = [("◀ " if self.mine == i + 1 else "") + str(i + 1) for i in range(len(self.row))]
        pos_width = max(cell_len(m) for m in marks)
        names = [card_text(k) if k else Text("(empty)", style="dim") for k in self.row]
        name_width = max(n.cell_len for n in names)
        points_width = max((cell_len(points_text(KIND_BY_ID[k])) for k in self.row if k), default=0)
        for mark, kind, name in zip(marks, self.row, names, strict=True):
            line = Text(mark.rjust(pos_width), style="bold")
            line.append("  ")
            line.append_text(name)
            if kind is None:
                yield line
                continue
            line.append(" " * (name_width - name.cell_len + 2))
            card = KIND_BY_ID[kind]
            dots = "•" * card.min_players
            room = min(points_width, width - line.cell_len - 2 - len(dots))
            points = Text(points_text(card), style="cyan")
            if room >= 1:
                points.truncate(room, overflow="ellipsis", pad=True)
                line.append_text(points)
                line.append("  ")
            line.append(dots, style=COLOUR_STYLE[card.min_players])
            line.truncate(width, overflow="ellipsis")
            yield line


def row_renderable(view: PlayerView, *, compact: bool = False) -> RenderableType:
    """The donut row, position 1 first: boxes wrapping to the terminal's width, or (compact,
    for small terminals) one line per card."""
    mine = view.selections[view.seat] if view.seat is not None else None
    if compact:
        return CompactRow(view.row, mine)
    cells = []
    for i, kind in enumerate(view.row):
        cells.append(card_panel(kind, i + 1, mark=" ◀ you" if mine == i + 1 else ""))
    return Columns(cells, padding=(0, 1))


def card_reference(kind: str) -> RenderableType:
    """Everything about one kind: count, colour, points and power (for ``? NAME``)."""
    card = KIND_BY_ID[kind]
    body = Text()
    body.append_text(card_text(kind))
    body.append(f"\nPoints: {points_text(card)}", style="cyan")
    body.append(f"\nPower: {card.power}" if card.power else "\nNo power.")
    body.append(
        f"\nIn the deck from {card.min_players} players "
        f"({COLOUR_NAME[card.min_players]}, {'•' * card.min_players}); "
        f"{card.count} cards of this kind."
    )
    body.append(f"\nIn notation: {card.id}", style="dim")
    return Panel(body, border_style=COLOUR_STYLE[card.min_players], expand=False)


def find_kind(text: str) -> str | None:
    """A card kind from its name or id as a person types it (``eclair``, ``Éclair``,
    ``bear claw``); ``None`` when nothing or several kinds match."""

    def fold(s: str) -> str:
        s = unicodedata.normalize("NFKD", s.casefold())
        return "".join(c for c in s if c.isalnum())

    wanted = fold(text)
    if not wanted:
        return None
    exact = [k.id for k in KINDS if wanted in (fold(k.id), fold(k.name))]
    if exact:
        return exact[0]
    prefix = [k.id for k in KINDS if fold(k.name).startswith(wanted)]
    return prefix[0] if len(prefix) == 1 else None


LEGEND = (
    "Row cards: the number is the position you type; ★ marks a power (it acts when you take "
    "the card). The border colour and the dots say from how many players a card is in the "
    "deck: green •• 2+, pink ••• 3+, purple •••• 4+, blue ••••• 5+.\n"
    "Collections: … still choosing, ✓ has chosen (picks stay secret until everyone has "
    "chosen), ◀ your pick. Seats are numbered from 0, as in the notation you may type "
    "('take glazed from 2' takes a Glazed from seat 2)."
)


# -- the table --------------------------------------------------------------------------------


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


def players_table(view: PlayerView, *, compact: bool = False) -> Table:
    names = view.players
    table = Table(
        title=None if compact else "Collections",
        expand=True,
        title_justify="left",
        box=None if compact else box.HEAVY_HEAD,
        pad_edge=not compact,
        padding=(0, 1),
    )
    table.add_column("Seat", no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column("Cards", justify="right")
    table.add_column("Collection", ratio=1)
    table.add_column("Score", justify="right")
    table.add_column("Pick", justify="center")
    for p, name in enumerate(names):
        pick = view.selections[p]
        waiting = p in view.waiting_for
        status = str(pick) if pick is not None else ("…" if waiting else "✓")
        label = Text(f"{p} ", style="dim")
        label.append(name, style="bold" if p == view.seat else "")
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


def table_renderable(
    view: PlayerView, *, title: str | Text | None = None, compact: bool = False
) -> RenderableType:
    """The whole table as ``view.seat`` sees it (``compact``: for small terminals)."""
    head = Text()
    if isinstance(title, Text):
        head.append_text(title)
    else:
        head.append(title or f"Go Nuts for Donuts — round {view.round}", style="bold")
    head.append(f"   Deck: {view.deck_size} cards", style="cyan")
    if view.known_deck_top:
        head.append("   (you know the top card: ")
        head.append_text(card_text(view.known_deck_top, star=False))
        head.append(")")
    limit = 4 if compact else 8
    return Group(
        head,
        row_renderable(view, compact=compact),
        discard_text(view, limit),
        players_table(view, compact=compact),
    )


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
        name = Text(f"{b.player} ", style="dim")
        name.append(names[b.player], style="bold")
        if b.player in winners:
            name.append(" 🏆 winner", style="yellow")
        table.add_row(
            name, lines if b.lines else Text("—", style="dim"), str(b.cards), f"{b.total}"
        )
    return table


def winners_text(names: Sequence[str], winners: Sequence[int]) -> Text:
    """``"Ana wins!"`` or ``"Ana and Ben share the victory!"`` (names as text)."""
    who = join_names([names[p] for p in winners])
    verb = " share the victory!" if len(winners) > 1 else " wins!"
    return Text(who + verb, style="bold yellow")


# -- actions and events -----------------------------------------------------------------------


def describe_action(action: Action, names: Sequence[str]) -> str:
    """Words for an action, for menus ("Take a Glazed from Ben (seat 1)")."""
    kind = a_card(action.kind) if action.kind else ""
    the = KIND_BY_ID[action.kind].name if action.kind else ""
    seat = f"{names[action.seat]} (seat {action.seat})" if action.seat is not None else ""
    verb = action.verb
    if verb is Verb.PICK:
        return f"Pick position {action.position}"
    if verb is Verb.DISCARD_POSITION:
        return f"Discard the card at position {action.position}"
    if verb is Verb.STOP:
        return "Stop"
    if verb is Verb.KEEP:
        return f"Keep the {the}"
    if verb is Verb.TAKE:
        return f"Take {kind} from the discard pile"
    if verb is Verb.TAKE_FROM:
        return f"Take {kind} from {seat}"
    if verb is Verb.GIVE:
        return f"Give {kind} to {seat}"
    if verb is Verb.PASS:
        return f"Pass {kind} to the left"
    if verb is Verb.DISCARD:
        return f"Discard your {the}"
    return f"Discard {seat}'s {the}"


def describe_event(event: Event, names: Sequence[str]) -> Text:
    """One line of the game log, as text (names never parsed as markup). The power that
    caused an event is named once, at the start."""
    who = names[event.player] if event.player is not None else ""
    other = names[event.other] if event.other is not None else ""
    card = a_card(event.card) if event.card else ""
    the = KIND_BY_ID[event.card].name if event.card else ""
    src = KIND_BY_ID[event.source].name if event.source else ""
    by = f"{src}: " if src else ""
    t = event.type
    if t is EventType.ROUND_STARTED:
        return Text(f"Round {event.round} begins.", style="bold")
    if t is EventType.SELECTIONS_REVEALED:
        picks = ", ".join(f"{names[i]} {p}" for i, p in enumerate(event.positions))
        return Text(f"Picks revealed: {picks}.")
    if t is EventType.CARD_TAKEN:
        return Text(f"{who} takes the {the} from position {event.position}.")
    if t is EventType.CARD_CONTESTED:
        who_all = join_names([names[i] for i in event.players])
        return Text(
            f"{who_all} chose position {event.position}: nobody gets the {the}; it is discarded."
        )
    if t is EventType.CARD_DRAWN:
        return Text(f"{by}{who} draws {card} from the deck.")
    if t is EventType.CARD_PUT_BACK:
        return Text(f"{by}{who} puts {card} back on top of the deck (only {who} knows).")
    if t is EventType.TOOK_FROM_DISCARD:
        return Text(f"{by}{who} takes {card} from the discard pile.")
    if t is EventType.ROW_CARD_DISCARDED:
        return Text(f"{by}{who} discards the {the} at position {event.position}.")
    if t is EventType.CARD_DISCARDED:
        owner = "their own" if event.other == event.player else f"{other}'s"
        return Text(f"{by}{who} discards {owner} {the}.")
    if t is EventType.CARD_MOVED:
        return Text(f"{by}{card[0].upper()}{card[1:]} moves from {who} to {other}.")
    if t is EventType.POWER_FIZZLED:
        return Text(f"{who}'s {src} has nothing to do.")
    if t is EventType.ROW_REFILLED:
        filled = ", ".join(
            f"{p}: {KIND_BY_ID[c].name}"
            for p, c in zip(event.positions, event.cards, strict=True)
            if c is not None
        )
        return Text(f"The row is refilled ({filled}).")
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(event.scores))
    won = join_names([names[i] for i in event.players])
    return Text(f"Game over. Scores: {scores}. Winner: {won}.", style="bold")


# -- hints ------------------------------------------------------------------------------------


def hint_table(result: Hint, names: Sequence[str]) -> RenderableType:
    """The search's estimate of every legal action, the recommendation, and why it is not
    the highest win probability when it is not."""
    title = Text("Hint for ")
    title.append_text(seat_label(names, result.seat))
    title.append(f": {result.iterations} search iterations of {result.bot}")
    table = Table(title=title)
    table.add_column("action")
    table.add_column("win probability", justify="right")
    table.add_column("expected score", justify="right")
    table.add_column("visits", justify="right")
    mixed = result.simultaneous and result.bot == "mcts"
    if mixed:
        table.add_column("play it", justify="right")
    for e in result.estimates:
        action = Text(e.action.notation)
        if e.action is result.recommended:
            action.append(" → recommended", style="yellow")
        row: list[RenderableType] = [
            action,
            f"{e.win_probability:.1%}",
            "–" if e.expected_score is None else f"{e.expected_score:.1f}",
            str(e.visits),
        ]
        if mixed:
            row.append(f"{e.probability:.0%}")
        table.add_row(*row)
    parts: list[RenderableType] = [table]
    recommended = Text("Recommended: ", style="bold")
    recommended.append(
        f"{result.recommended.notation} ({describe_action(result.recommended, names)})"
    )
    parts.append(recommended)
    if result.explanation:
        parts.append(Text(result.explanation, style="italic"))
    return Group(*parts)
