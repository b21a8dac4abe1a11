"""The fixed action space and observation vector shared by every research environment.

Everything here is computed from a :class:`~gonuts.view.PlayerView` (what one seat may know),
never from the game state, so no hidden information (the deck order, another player's pending
pick or pass, the card another player put back with Double Chocolate) can leak into an
observation. The encoding is the same for 2–6 players: absent seats and row positions are
zeros, so one policy can play every player count.

Actions
-------
One ``Discrete(521)`` space (:data:`NUM_ENV_ACTIONS`) covers every decision of the game: the
engine's id layout of :mod:`gonuts.actions` (selections, French Cruller discards, ``stop``,
``keep``/``take``/``pass``/``discard KIND`` and the verbs that name another seat), with one
change: **seats are relative to the acting player**. ``take KIND from S``, ``give KIND to S``
and ``discard KIND from S`` use slot ``r = (S - me) mod N`` (1 = the player on your left, …),
so the same id means the same thing from every seat. Slot 0 (yourself) is never legal.
:func:`to_env_action` and :func:`from_env_action` convert; :func:`action_mask` marks exactly
the legal ids (``int8``, 1 = legal).

Observation
-----------
A ``float32`` vector of :data:`OBS_SIZE` numbers, sections in this order (see
:data:`OBS_SECTIONS`; "rel" = seats relative to the observer, the observer first, then the
player on its left, …):

==================  ====  ==============================================================
section             size  meaning
==================  ====  ==============================================================
``players``            5  one-hot number of players (2 … 6)
``phase``             12  one-hot :class:`~gonuts.state.Phase` (select, each power, over)
``must_act``           1  1 if the observer has a decision to take now
``waiting_for``        6  rel seats that must still act (public)
``actor``              6  rel seat resolving a ★ power, one-hot (zeros if none)
``resolving``          7  row position whose power is being resolved, one-hot
``step``               1  cards taken (Day-Old) or discarded (Milk) so far in that power
``round``              1  round number (1 = first)
``deck_size``          1  cards left in the deck
``row``              168  7 positions × (23 kinds one-hot + "empty" flag); absent positions 0
``selections``        42  6 rel seats × 7 positions: selections this seat may know (its own;
                          everyone's once revealed)
``collections``      138  6 rel seats × 23 kinds: counts of each collection
``cards_owned``        6  rel seats: collection sizes
``scores``             6  rel seats: end-game score of the collections as they stand
``discard_counts``    23  count of each kind on the discard pile
``discard_top``       23  kind of the top card of the discard pile, one-hot
``drawn``             23  Double Chocolate: the two cards the observer must choose between
``known_deck_top``    23  the deck's top card, if the observer put it back (one-hot)
``my_pass``           23  Cinnamon Twist: the card the observer chose to pass (one-hot)
``unseen``            23  cards the observer cannot see (deck minus what it knows), by kind
==================  ====  ==============================================================

Values are raw counts (not normalised); :data:`OBS_LOW`/:data:`OBS_HIGH` bound them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from gonuts.actions import (
    ACTIONS,
    DISCARD_FROM_BASE,
    GIVE_BASE,
    NUM_ACTIONS,
    TAKE_FROM_BASE,
    Action,
    Verb,
)
from gonuts.actions import MAX_POSITIONS as _MAX_POSITIONS
from gonuts.cards import KIND_BY_ID, MAX_PLAYERS, MIN_PLAYERS, NUM_KINDS
from gonuts.state import Phase
from gonuts.view import PlayerView

K: Final = NUM_KINDS
MAX_POSITIONS: Final = _MAX_POSITIONS
NUM_ENV_ACTIONS: Final = NUM_ACTIONS
PHASES: Final[tuple[Phase, ...]] = tuple(Phase)

ObsArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

OBS_SECTIONS: Final[tuple[tuple[str, int], ...]] = (
    ("players", MAX_PLAYERS - MIN_PLAYERS + 1),
    ("phase", len(PHASES)),
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
"""(name, size) of each observation section, in order."""


def _offsets() -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    start = 0
    for name, size in OBS_SECTIONS:
        out[name] = (start, start + size)
        start += size
    return out


OBS_SLICES: Final[dict[str, tuple[int, int]]] = _offsets()
"""Section name → (start, stop) in the observation vector."""
OBS_SIZE: Final = sum(size for _, size in OBS_SECTIONS)

MAX_CARDS: Final = 70
"""The largest deck (5–6 players); bounds every count."""
MIN_SCORE: Final = -32
"""Below any score: all negative cards together make −19."""
MAX_SCORE: Final = 512
"""Above any score (70 cards cannot make 512 points)."""


def _bounds() -> tuple[ObsArray, ObsArray]:
    low = np.zeros(OBS_SIZE, np.float32)
    high = np.ones(OBS_SIZE, np.float32)
    for name in ("step", "round", "deck_size", "collections", "cards_owned"):
        a, b = OBS_SLICES[name]
        high[a:b] = MAX_CARDS
    for name in ("discard_counts", "drawn", "unseen"):
        a, b = OBS_SLICES[name]
        high[a:b] = MAX_CARDS
    a, b = OBS_SLICES["scores"]
    low[a:b] = MIN_SCORE
    high[a:b] = MAX_SCORE
    return low, high


OBS_LOW, OBS_HIGH = _bounds()

_SEATED: Final = frozenset((Verb.TAKE_FROM, Verb.GIVE, Verb.DISCARD_FROM))
_SEAT_BASES: Final = {
    Verb.TAKE_FROM: TAKE_FROM_BASE,
    Verb.GIVE: GIVE_BASE,
    Verb.DISCARD_FROM: DISCARD_FROM_BASE,
}
_KIND_INDEX: Final = {kid: k.index for kid, k in KIND_BY_ID.items()}


# -- actions ---------------------------------------------------------------------------------


def to_env_action(action_id: int, seat: int, players: int) -> int:
    """The environment id of engine action ``action_id`` taken by ``seat`` (seats made relative)."""
    act = ACTIONS[action_id]
    if act.verb not in _SEATED:
        return action_id
    assert act.seat is not None and act.kind is not None
    rel = (act.seat - seat) % players
    return _SEAT_BASES[act.verb] + rel * K + _KIND_INDEX[act.kind]


def from_env_action(env_id: int, seat: int, players: int) -> int:
    """The engine action id of environment id ``env_id`` chosen by ``seat``.

    ``ValueError`` for an id outside the space or naming a relative seat that is not at the
    table (legality is the engine's question).
    """
    if not 0 <= env_id < NUM_ENV_ACTIONS:
        raise ValueError(f"action {env_id} is outside Discrete({NUM_ENV_ACTIONS})")
    act = ACTIONS[env_id]
    if act.verb not in _SEATED:
        return env_id
    assert act.seat is not None and act.kind is not None
    if act.seat >= players:
        raise ValueError(f"action {env_id} names relative seat {act.seat} of {players}")
    absolute = (act.seat + seat) % players
    return _SEAT_BASES[act.verb] + absolute * K + _KIND_INDEX[act.kind]


def env_action_to_action(env_id: int, seat: int, players: int) -> Action:
    """The engine :class:`~gonuts.actions.Action` for an environment id (absolute seats)."""
    return ACTIONS[from_env_action(env_id, seat, players)]


def describe_env_action(env_id: int) -> str:
    """Human text of an environment id, relative seats written ``+r`` (``take glazed from +1``)."""
    act = ACTIONS[env_id]
    if act.verb in _SEATED:
        head, _, _ = act.notation.rpartition(" ")
        return f"{head} +{act.seat}"
    return act.notation


def action_mask(view: PlayerView) -> MaskArray:
    """``int8`` mask over the environment ids: 1 exactly where the view's seat may act."""
    return mask_from_ids((a.id for a in view.legal), _seat(view), view.num_players)


def mask_from_ids(action_ids: Iterable[int], seat: int, players: int) -> MaskArray:
    """``int8`` mask of the environment ids of engine ``action_ids`` taken by ``seat``."""
    mask = np.zeros(NUM_ENV_ACTIONS, np.int8)
    for i in action_ids:
        mask[to_env_action(i, seat, players)] = 1
    return mask


def legal_env_actions(action_ids: Sequence[int], seat: int, players: int) -> list[int]:
    """Environment ids of engine ``action_ids`` for ``seat``, ascending."""
    return sorted(to_env_action(i, seat, players) for i in action_ids)


# -- observations -------------------------------------------------------------------------------


def _seat(view: PlayerView) -> int:
    if view.seat is None:
        raise ValueError("observations are built from a seat's view, not a spectator's")
    return view.seat


def encode_observation(view: PlayerView, out: ObsArray | None = None) -> ObsArray:
    """The observation vector of ``view`` (see the module docstring for its layout).

    A spectator's view (``seat`` None) encodes the public information, seats relative to seat 0.
    """
    me = 0 if view.seat is None else view.seat
    n = view.num_players
    obs = np.zeros(OBS_SIZE, np.float32) if out is None else out
    if out is not None:
        obs.fill(0.0)
    s = OBS_SLICES

    def rel(p: int) -> int:
        return (p - me) % n

    obs[s["players"][0] + n - MIN_PLAYERS] = 1.0
    obs[s["phase"][0] + PHASES.index(view.phase)] = 1.0
    obs[s["must_act"][0]] = 1.0 if view.legal else 0.0
    for p in view.waiting_for:
        obs[s["waiting_for"][0] + rel(p)] = 1.0
    if view.actor is not None:
        obs[s["actor"][0] + rel(view.actor)] = 1.0
    if view.resolving is not None:
        obs[s["resolving"][0] + view.resolving - 1] = 1.0
    obs[s["step"][0]] = view.step
    obs[s["round"][0]] = view.round
    obs[s["deck_size"][0]] = view.deck_size
    base = s["row"][0]
    for i, card in enumerate(view.row):
        slot = base + i * (K + 1)
        obs[slot + (K if card is None else _KIND_INDEX[card])] = 1.0
    base = s["selections"][0]
    for p, pos in enumerate(view.selections):
        if pos is not None:
            obs[base + rel(p) * MAX_POSITIONS + pos - 1] = 1.0
    base_c = s["collections"][0]
    base_o = s["cards_owned"][0]
    base_s = s["scores"][0]
    for p in range(n):
        r = rel(p)
        coll = view.collections[p]
        for kid, count in coll.items():
            obs[base_c + r * K + _KIND_INDEX[kid]] = count
        obs[base_o + r] = sum(coll.values())
        obs[base_s + r] = view.scores[p]
    base = s["discard_counts"][0]
    for kid in view.discard:
        obs[base + _KIND_INDEX[kid]] += 1.0
    if view.discard:
        obs[s["discard_top"][0] + _KIND_INDEX[view.discard[-1]]] = 1.0
    base = s["drawn"][0]
    for kid in view.drawn:
        obs[base + _KIND_INDEX[kid]] += 1.0
    if view.known_deck_top is not None:
        obs[s["known_deck_top"][0] + _KIND_INDEX[view.known_deck_top]] = 1.0
    if view.my_pass is not None:
        obs[s["my_pass"][0] + _KIND_INDEX[view.my_pass]] = 1.0
    base = s["unseen"][0]
    for kid, count in view.unseen.items():
        obs[base + _KIND_INDEX[kid]] = count
    return obs


def describe_observation(obs: ObsArray) -> dict[str, list[float]]:
    """Split an observation vector into its named sections (for debugging and docs)."""
    return {name: obs[a:b].tolist() for name, (a, b) in OBS_SLICES.items()}


# -- rewards ------------------------------------------------------------------------------------

REWARD_MODES: Final = ("win_share", "score_diff")


def terminal_rewards(
    scores: Sequence[int], winners: Sequence[int], mode: str = "win_share"
) -> list[float]:
    """Each seat's terminal reward.

    ``win_share`` (default): 1 for a sole winner, ``1/w`` for each of ``w`` players sharing the
    victory (ties broken as the rules say), 0 otherwise — the rewards sum to 1.
    ``score_diff``: the seat's final score minus the best final score among the other players
    (positive exactly when the seat is strictly ahead on points).
    """
    n = len(scores)
    if mode == "win_share":
        share = 1.0 / len(winners) if winners else 0.0
        return [share if p in winners else 0.0 for p in range(n)]
    if mode == "score_diff":
        return [float(scores[p] - max(scores[q] for q in range(n) if q != p)) for p in range(n)]
    raise ValueError(f"unknown reward mode {mode!r} (choose from: {', '.join(REWARD_MODES)})")
