"""The network's observation and action ids straight from a sampled state, for ``neural-mcts``.

:func:`gonuts.envs.encoding.encode_observation` reads a :class:`~gonuts.view.PlayerView`; at
every leaf of its search ``neural-mcts`` used to build every seat's view of the sampled state
(:func:`~gonuts.view.make_views`: tuples, mappings, the event log filtered per seat) only to
encode it. :func:`encode_state` writes the same numbers from the state itself: what the seat's
view would hold and nothing else (the test compares the two vectors over many states, so the
network sees bit for bit the same input). It is compiled with mypyc
(:data:`gonuts.build.COMPILED_MODULES`) and imports no NumPy: it returns sparse
``(index, value)`` lists that the caller scatters into its array. The section layout repeats
:data:`gonuts.envs.encoding.OBS_SECTIONS` (that module needs NumPy); a test checks they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gonuts import rules
from gonuts.actions import (
    DISCARD_FROM_BASE,
    GIVE_BASE,
    MAX_POSITIONS,
    NUM_ACTIONS,
    PASS_BASE,
    TAKE_FROM_BASE,
)
from gonuts.cards import MAX_PLAYERS, MIN_PLAYERS, NUM_KINDS, deck_counts
from gonuts.powers import POWER_BY_PHASE
from gonuts.scoring import scores
from gonuts.state import GameState, Phase

K: Final = NUM_KINDS
PHASE_INDEX: Final[dict[Phase, int]] = {phase: i for i, phase in enumerate(Phase)}

SECTION_SIZES: Final[tuple[tuple[str, int], ...]] = (
    ("players", MAX_PLAYERS - MIN_PLAYERS + 1),
    ("phase", len(PHASE_INDEX)),
    ("must_act", 1),
    ("waiting_for", MAX_PLAYERS),
    ("actor", MAX_PLAYERS),
    ("resolving", MAX_POSITIONS),
    ("step", 1),
    ("round", 1),
    ("deck_size", 1),
    ("row", MAX_POSITIONS * (K + 1)),
    ("selections", MAX_PLAYERS * MAX_POSITIONS),
    ("collections", MAX_PLAYERS * K),
    ("cards_owned", MAX_PLAYERS),
    ("scores", MAX_PLAYERS),
    ("discard_counts", K),
    ("discard_top", K),
    ("drawn", K),
    ("known_deck_top", K),
    ("my_pass", K),
    ("unseen", K),
)
"""The observation's sections, as :data:`gonuts.envs.encoding.OBS_SECTIONS` has them."""


def _starts() -> dict[str, int]:
    out: dict[str, int] = {}
    start = 0
    for name, size in SECTION_SIZES:
        out[name] = start
        start += size
    out["end"] = start
    return out


_AT: Final = _starts()
OBS_SIZE: Final = _AT["end"]
PLAYERS: Final = _AT["players"]
PHASE: Final = _AT["phase"]
MUST_ACT: Final = _AT["must_act"]
WAITING_FOR: Final = _AT["waiting_for"]
ACTOR: Final = _AT["actor"]
RESOLVING: Final = _AT["resolving"]
STEP: Final = _AT["step"]
ROUND: Final = _AT["round"]
DECK_SIZE: Final = _AT["deck_size"]
ROW: Final = _AT["row"]
SELECTIONS: Final = _AT["selections"]
COLLECTIONS: Final = _AT["collections"]
CARDS_OWNED: Final = _AT["cards_owned"]
SCORES: Final = _AT["scores"]
DISCARD_COUNTS: Final = _AT["discard_counts"]
DISCARD_TOP: Final = _AT["discard_top"]
DRAWN: Final = _AT["drawn"]
KNOWN_DECK_TOP: Final = _AT["known_deck_top"]
MY_PASS: Final = _AT["my_pass"]
UNSEEN: Final = _AT["unseen"]


def env_ids(action_ids: Sequence[int], seat: int, players: int) -> list[int]:
    """:func:`gonuts.envs.encoding.to_env_action` of each id: the seats that ``take … from``,
    ``give … to`` and ``discard … from`` name made relative to ``seat``."""
    out: list[int] = []
    for a in action_ids:
        if TAKE_FROM_BASE <= a < PASS_BASE:
            base = TAKE_FROM_BASE if a < GIVE_BASE else GIVE_BASE
        elif DISCARD_FROM_BASE <= a < NUM_ACTIONS:
            base = DISCARD_FROM_BASE
        else:
            out.append(a)
            continue
        other, kind = divmod(a - base, K)
        out.append(base + ((other - seat) % players) * K + kind)
    return out


def legal_rows(
    g: GameState, acting: list[int], width: int
) -> tuple[list[Sequence[int]], list[int], list[int]]:
    """Each acting player's legal action ids, and where their logits go: flat indices into one
    row of ``width`` per acting player (``j * width + env id``) and into the network's rows of
    every seat (``seat * width + env id``)."""
    legals, source = leaf_rows([g], [acting], width)
    legal = legals[0]
    rows: list[int] = []
    at = 0
    for j in range(len(legal)):
        for _ in range(len(legal[j])):
            rows.append(j * width + source[at] % width)
            at += 1
    return legal, rows, source


def leaf_rows(
    states: Sequence[GameState], actings: Sequence[list[int]], width: int
) -> tuple[list[list[Sequence[int]]], list[int]]:
    """:func:`legal_rows` for a batch of leaves whose seats' rows follow one another (leaf
    ``l``'s seat ``p`` is row ``l * players + p``): each leaf's acting players' legal ids, and
    the flat indices of their logits in the network's rows (``row * width + env id``)."""
    legals: list[list[Sequence[int]]] = []
    source: list[int] = []
    for leaf in range(len(states)):
        g = states[leaf]
        n = g.n
        acting = actings[leaf]
        legal: list[Sequence[int]] = []
        for p in acting:
            ids = rules.legal_ids(g, p)
            legal.append(ids)
            row = (leaf * n + p) * width
            for e in env_ids(ids, p, n):
                source.append(row + e)
        legals.append(legal)
    return legals, source


class _Public:
    """What every seat's observation of one state shares, computed once per state."""

    def __init__(self, g: GameState) -> None:
        n = g.n
        self.acting = rules.to_act(g)
        self.totals = scores(g.coll, n)
        hidden = list(deck_counts(n))
        for c in g.row:
            if c >= 0:
                hidden[c] -= 1
        coll = g.coll
        for p in range(n):
            for k in range(K):
                hidden[k] -= coll[p * K + k]
        self.discarded = [0] * K
        for c in g.discard:
            self.discarded[c] += 1
            hidden[c] -= 1
        self.hidden = hidden
        """The deck's contents by kind: the cards no seat can see (before its own secrets)."""


def encode_states(g: GameState, idx: list[int], val: list[float], base: int = 0) -> None:
    """Every seat's observation of ``g``, seat ``p``'s at offset ``base + p * OBS_SIZE``."""
    public = _Public(g)
    for seat in range(g.n):
        _encode(g, seat, base + seat * OBS_SIZE, public, idx, val)


def encode_state(g: GameState, seat: int, offset: int, idx: list[int], val: list[float]) -> None:
    """Append the nonzero entries of ``seat``'s observation of ``g`` (indices from ``offset``)
    to ``idx`` and ``val``; each index once."""
    _encode(g, seat, offset, _Public(g), idx, val)


def _encode(  # noqa: PLR0917 - one call site per use, all positional
    g: GameState, seat: int, offset: int, public: _Public, idx: list[int], val: list[float]
) -> None:
    n = g.n
    phase = g.phase
    idx.append(offset + PLAYERS + n - MIN_PLAYERS)
    val.append(1.0)
    idx.append(offset + PHASE + PHASE_INDEX[phase])
    val.append(1.0)
    if len(rules.legal_ids(g, seat)) > 0:
        idx.append(offset + MUST_ACT)
        val.append(1.0)
    for p in public.acting:
        idx.append(offset + WAITING_FOR + (p - seat) % n)
        val.append(1.0)
    if phase in POWER_BY_PHASE:
        idx.append(offset + ACTOR + (g.actor - seat) % n)
        val.append(1.0)
        idx.append(offset + RESOLVING + g.pos)
        val.append(1.0)
    if (phase is Phase.DAY_OLD or phase is Phase.MILK) and g.step != 0:
        idx.append(offset + STEP)
        val.append(float(g.step))
    if g.round != 0:
        idx.append(offset + ROUND)
        val.append(float(g.round))
    deck = g.deck
    if deck:
        idx.append(offset + DECK_SIZE)
        val.append(float(len(deck)))
    for i, c in enumerate(g.row):
        idx.append(offset + ROW + i * (K + 1) + (K if c < 0 else c))
        val.append(1.0)
    revealed = phase is not Phase.SELECT
    picks = g.picks
    for p in range(n):
        pick = picks[p]
        if pick >= 0 and (revealed or p == seat):
            idx.append(offset + SELECTIONS + ((p - seat) % n) * MAX_POSITIONS + pick)
            val.append(1.0)
    coll = g.coll
    totals = public.totals
    for p in range(n):
        r = (p - seat) % n
        owned = 0
        for k in range(K):
            count = coll[p * K + k]
            if count:
                idx.append(offset + COLLECTIONS + r * K + k)
                val.append(float(count))
                owned += count
        if owned:
            idx.append(offset + CARDS_OWNED + r)
            val.append(float(owned))
        if totals[p]:
            idx.append(offset + SCORES + r)
            val.append(float(totals[p]))
    discard = g.discard
    if discard:
        _counts(public.discarded, offset + DISCARD_COUNTS, idx, val)
        idx.append(offset + DISCARD_TOP + discard[-1])
        val.append(1.0)
    hidden = public.hidden
    copied = False
    if phase is Phase.DOUBLE_CHOCOLATE and g.actor == seat and deck:
        counts = [0] * K
        hidden = list(hidden)
        copied = True
        for c in deck[-2:]:
            counts[c] += 1
            hidden[c] -= 1
        _counts(counts, offset + DRAWN, idx, val)
    known = g.known.get(seat)
    if known is not None and known[0] == len(deck):
        idx.append(offset + KNOWN_DECK_TOP + known[1])
        val.append(1.0)
        if not copied:  # (the seat that drew two cards sees its known top card among them)
            hidden = list(hidden)
            hidden[known[1]] -= 1
    if phase is Phase.CINNAMON_TWIST and g.passes and g.passes[seat] >= 0:
        idx.append(offset + MY_PASS + g.passes[seat])
        val.append(1.0)
    _counts(hidden, offset + UNSEEN, idx, val)


def _counts(counts: list[int], at: int, idx: list[int], val: list[float]) -> None:
    for k in range(K):
        if counts[k]:
            idx.append(at + k)
            val.append(float(counts[k]))
