"""Sample a full :class:`~gonuts.state.GameState` consistent with one seat's view.

A bot sees only a :class:`~gonuts.view.PlayerView`. Search needs concrete states, so it
*determinizes*: every hidden fact is replaced by a sample drawn from what the seat knows.

* **Deck order** — the unseen multiset (``view.unseen``) is shuffled; the cards the seat knows
  sit where it knows them: the card it put back with Double Chocolate on top
  (``view.known_deck_top``), or the two cards it is choosing between (``view.drawn``).
* **Other players' pending selections** (or Cinnamon Twist passes) that were already made in
  secret become pending decisions again in the sample: the searcher does not know them, so it
  lets those players choose inside the search.
* Nothing else is hidden: the row, discard pile, collections, picks once revealed and the
  state of a power being resolved are all public.

The function reads only the view, so a search built on it cannot reach hidden information.
"""

from __future__ import annotations

import random
from typing import Final

from gonuts.actions import PASS_BASE
from gonuts.cards import NUM_KINDS, kind_index
from gonuts.powers import POWER_BY_PHASE
from gonuts.state import GameConfig, GameState, Phase
from gonuts.view import PlayerView

K: Final = NUM_KINDS


def unseen_cards(view: PlayerView) -> list[int]:
    """The cards ``view.seat`` cannot place, as kind indexes (sorted by kind)."""
    out: list[int] = []
    for kind, count in view.unseen.items():
        out.extend([kind_index(kind)] * count)
    out.sort()
    return out


class Determinizer:
    """Samples states for one view: the view is parsed once into a template state (built with
    :class:`~gonuts.state.GameState`'s constructor, the deck left empty); each sample is a fast
    copy of it with a freshly shuffled deck."""

    __slots__ = ("_deck_top", "_template", "_unseen", "seat")

    def __init__(self, view: PlayerView) -> None:
        seat = view.seat
        if seat is None:
            raise ValueError("a spectator's view cannot be determinized for a seat")
        n = view.num_players
        self.seat = seat
        coll = [0] * (n * K)
        for p, cards in enumerate(view.collections):
            for kind, count in cards.items():
                coll[p * K + kind_index(kind)] = count
        self._unseen = unseen_cards(view)
        # Cards the seat knows the position of, bottom first (they go on top of the sample).
        top: list[int] = []
        if view.drawn:
            top = [kind_index(c) for c in reversed(view.drawn)]
        elif view.known_deck_top is not None:
            top = [kind_index(view.known_deck_top)]
        self._deck_top = top
        if len(self._unseen) + len(top) != view.deck_size:
            raise ValueError(
                f"inconsistent view: {len(self._unseen)} unseen + {len(top)} known cards "
                f"for a deck of {view.deck_size}"
            )
        known: dict[int, tuple[int, int]] = {}
        if view.known_deck_top is not None and not view.drawn:
            known[seat] = (view.deck_size, top[-1])
        if view.phase is Phase.SELECT:
            # Revealed picks are never pending; own pick is known; others' secret: pending again.
            picks = [
                (s - 1 if s is not None and p == seat else -1)
                for p, s in enumerate(view.selections)
            ]
        else:
            picks = [s - 1 if s is not None else -1 for s in view.selections]
        passes: list[int] = []
        if view.phase is Phase.CINNAMON_TWIST:
            # Own pass known; every other player's pass, made or not, is pending in the sample.
            passes = [
                kind_index(view.my_pass) if p == seat and view.my_pass is not None else -1
                for p in range(n)
            ]
        template = GameState(
            GameConfig(view.players, (), view.variants),
            deck=[],
            row=[kind_index(c) if c is not None else -1 for c in view.row],
            discard=[kind_index(c) for c in view.discard],
            coll=coll,
            round=view.round,
            picks=picks,
            phase=view.phase,
            pos=(view.resolving - 1) if view.resolving is not None else 0,
            actor=view.actor if view.actor is not None else -1,
            step=view.step,
            passes=passes,
            known=known,
            winners=view.winners,
        )
        if passes:
            # As the rules do: a player with a single possible card passes it unasked.
            twist = POWER_BY_PHASE[Phase.CINNAMON_TWIST]
            for p in range(n):
                if passes[p] < 0:
                    legal = twist.legal(template, p)
                    if len(legal) == 1:
                        passes[p] = legal[0] - PASS_BASE
        self._template = template

    def sample(self, rng: random.Random) -> GameState:
        """One state consistent with the view (deck order and secret choices drawn at random)."""
        deck = self._unseen[:]
        shuffle(deck, rng)
        deck.extend(self._deck_top)
        g = self._template.copy(events=False)
        g.deck = deck
        return g


def shuffle(items: list[int], rng: random.Random) -> None:
    """``rng.shuffle(items)``, the same swaps from the same stream (CPython's Fisher-Yates with
    ``_randbelow``'s rejection on ``getrandbits``), but one C call per card when compiled:
    ``random.shuffle`` is interpreted Python."""
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        bound = i + 1
        bits = 0
        rest = bound
        while rest:
            bits += 1
            rest >>= 1
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """One state consistent with ``view`` (see the module docstring)."""
    return Determinizer(view).sample(rng)
