"""Player views reveal nothing hidden (RULES.md "What each player may know").

The main technique: build a *twin* game that replays the same decisions from a deck that
differs only in cards a seat cannot have seen, check that the twin looks the same to every
seat from the outside (same public facts), and then require that seat's views to be equal.
Pending picks and Cinnamon Twist passes are checked the same way, by two copies that differ
only in one seat's secret choice.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gonuts import Game, Phase, PlayerView
from gonuts.actions import Action
from gonuts.cards import KIND_IDS, deck_counts
from gonuts.events import EventType
from gonuts.state import GameConfig, GameState
from strategies import (
    DECISION_POWERS,
    choosing_double_chocolate,
    deck_ids,
    games_where,
    has_known_top,
    interesting_games,
    knowers_of_top,
    public_fingerprint,
    replay_with_deck,
    several_passing,
    several_selecting,
)

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

POWERS = frozenset(DECISION_POWERS)


def views(game: Game) -> list[PlayerView]:
    return [game.view(s) for s in range(game.num_players)]


def kind(card: int) -> str:
    return KIND_IDS[card]


# -- the view is a detached value --------------------------------------------------------------


def _state_objects(game: Game) -> dict[int, str]:
    g = game.state
    objs: dict[str, object] = {
        "state": g,
        "config": g.config,
        "initial_deck": g.config.initial_deck,
        "deck": g.deck,
        "row": g.row,
        "discard": g.discard,
        "coll": g.coll,
        "picks": g.picks,
        "passes": g.passes,
        "known": g.known,
        "events": g.events,
    }
    return {id(o): name for name, o in objs.items() if o is not None}


def _walk(obj: object, forbidden: dict[int, str], path: str, seen: set[int]) -> None:
    if obj is None or isinstance(obj, (bool, int, float, str, Enum)):
        return
    assert id(obj) not in forbidden, f"{path} is the state's {forbidden[id(obj)]}"
    assert not isinstance(obj, (GameState, GameConfig)), path
    assert not isinstance(obj, (list, dict, set, bytearray)), f"{path}: mutable {type(obj)}"
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _walk(getattr(obj, f.name), forbidden, f"{path}.{f.name}", seen)
    elif isinstance(obj, (tuple, frozenset)):
        for i, item in enumerate(obj):
            _walk(item, forbidden, f"{path}[{i}]", seen)
    elif isinstance(obj, Mapping):
        # A read-only proxy must not wrap a dict of the state.
        for inner in gc.get_referents(obj):
            assert id(inner) not in forbidden, f"{path} wraps the state's {forbidden[id(inner)]}"
        for key, value in obj.items():
            _walk(key, forbidden, f"{path}.keys()", seen)
            _walk(value, forbidden, f"{path}[{key!r}]", seen)
    elif isinstance(obj, Action):
        for name in Action.__slots__:
            _walk(getattr(obj, name), forbidden, f"{path}.{name}", seen)
    else:
        pytest.fail(f"{path}: unexpected {type(obj).__name__} in a view")


def test_view_fields_hold_no_deck() -> None:
    names = {f.name for f in dataclasses.fields(PlayerView)}
    assert not names & {"deck", "initial_deck", "state", "config", "history", "picks", "passes"}


@given(game=interesting_games())
@SETTINGS
def test_view_is_detached_from_the_state(game: Game) -> None:
    forbidden = _state_objects(game)
    seats: list[int | None] = [*range(game.num_players), None]
    for seat in seats:
        view = game.view(seat) if seat is not None else game.public_view()
        assert view.seat == seat
        _walk(view, forbidden, "view", set())
        with pytest.raises(dataclasses.FrozenInstanceError):
            cast(Any, view).deck_size = 0
        for mapping in (*view.collections, view.unseen):
            with pytest.raises(TypeError):
                cast(Any, mapping)["glazed"] = 99
        # Its events are this seat's share of the log (a spectator's: the public ones).
        assert all(e.visible_to in (None, seat) for e in view.events)
        if seat is not None:
            assert view.events == game.events_for(seat)
            assert list(view.legal) == game.legal_actions(seat)
        else:
            assert view.events == tuple(e for e in game.event_log if e.visible_to is None)
            assert view.legal == ()
            assert (view.drawn, view.known_deck_top, view.my_pass) == ((), None, None)
            assert view.selections == game.selections
        # What it says agrees with the game.
        assert view.waiting_for == game.to_act
        assert view.row == game.row
        assert view.discard == game.discard_pile
        assert view.deck_size == game.deck_size
        assert [dict(c) for c in view.collections] == game.collections
        assert list(view.scores) == game.scores()


@given(game=interesting_games(), order=st.randoms(use_true_random=False))
@SETTINGS
def test_views_built_together_are_the_views_built_one_by_one(game: Game, order: Any) -> None:
    """``Game.views`` (what the server broadcasts) shares the public parts between seats: each
    seat must still get exactly its own view, whatever the order and repeats of the seats."""
    seats: list[int | None] = [*range(game.num_players), None]
    order.shuffle(seats)
    together = game.views([*seats, seats[0]])
    assert list(together) == seats
    for seat in seats:
        alone = game.view(seat) if seat is not None else game.public_view()
        assert together[seat] == alone, seat
    with pytest.raises(ValueError):
        game.views([0, game.num_players])


# -- 8. unseen accounting --------------------------------------------------------------------------


def _known_cards(view: PlayerView) -> list[str]:
    if view.drawn:
        return list(view.drawn)
    return [view.known_deck_top] if view.known_deck_top is not None else []


@given(game=interesting_games())
@SETTINGS
def test_unseen_plus_known_plus_visible_is_the_deck(game: Game) -> None:
    full = Counter({KIND_IDS[k]: c for k, c in enumerate(deck_counts(game.num_players)) if c})
    for view in [*views(game), game.public_view()]:
        visible: Counter[str] = Counter(c for c in view.row if c is not None)
        visible.update(view.discard)
        for coll in view.collections:
            visible.update(coll)
        known = _known_cards(view)
        assert all(v > 0 for v in view.unseen.values())
        assert Counter(view.unseen) + Counter(known) + visible == full
        assert sum(view.unseen.values()) == view.deck_size - len(known)


# -- 7. the deck order is hidden -------------------------------------------------------------------


def _twin_views_equal(game: Game, deck: Sequence[str], may_differ: set[int]) -> bool:
    """Replay ``game`` on ``deck``; if the twin is publicly identical, every seat not in
    ``may_differ`` must see exactly the same view. False when the twin is not comparable."""
    twin = replay_with_deck(game, deck)
    if twin is None or public_fingerprint(twin) != public_fingerprint(game):
        return False
    for seat in range(game.num_players):
        if seat not in may_differ:
            assert twin.view(seat) == game.view(seat), f"seat {seat} sees the deck order"
    assert twin.public_view() == game.public_view(), "spectators see the deck order"
    return True


@given(
    game=interesting_games(),
    data=st.data(),
)
@SETTINGS
def test_views_ignore_the_order_of_the_unseen_deck(game: Game, data: st.DataObject) -> None:
    initial = list(game.initial_deck)
    total, size = len(initial), game.deck_size
    deck = game.state.deck
    # Only the top card of the deck can have left the dealt order (Double Chocolate puts one
    # back); every card below it is still where it was dealt.
    assert [kind(c) for c in reversed(deck[:-1])] == initial[total - size + 1 :]
    knowers = knowers_of_top(game)
    dc_phase = game.phase is Phase.DOUBLE_CHOCOLATE
    if size and not knowers:
        assert kind(deck[-1]) == initial[total - size]

    # Cards nobody has seen: any order replays the same game and shows every seat the same.
    start = min(total, total - size + (2 if dc_phase else 1))
    twin_deck = initial[:start] + data.draw(st.permutations(initial[start:]))
    assert _twin_views_equal(game, twin_deck, set())

    # The top card when nobody knows it, and the card under it while a Double Chocolate is
    # being chosen: hidden from everyone but that player.
    start = total - size + (0 if not knowers else 1)
    if total - start >= 2:
        twin_deck = initial[:start] + data.draw(st.permutations(initial[start:]))
        may_differ = {game.state.actor} if dc_phase else set()
        if not dc_phase:
            assert _twin_views_equal(game, twin_deck, may_differ)
        else:
            event(f"dc twin comparable: {_twin_views_equal(game, twin_deck, may_differ)}")


@given(
    game=games_where(has_known_top, min_players=3, early=DECISION_POWERS[:3], prefer=POWERS),
    data=st.data(),
)
@SETTINGS
def test_put_back_card_is_known_only_to_its_player(game: Game, data: st.DataObject) -> None:
    knowers = knowers_of_top(game)
    top = kind(game.state.deck[-1])
    for seat, view in enumerate(views(game)):
        put_backs = [e for e in view.events if e.type is EventType.CARD_PUT_BACK]
        assert all(e.player == seat for e in put_backs)
        if seat in knowers:
            assert view.known_deck_top == top
            # Either this seat put the card back itself, or it deduced it: it knew the top card,
            # and another player's Double Chocolate drew that card and publicly kept another.
            assert put_backs or any(
                e.type is EventType.CARD_DRAWN
                and e.source == "double_chocolate"
                and e.player != seat
                for e in view.events
            )
        else:
            assert view.known_deck_top is None
    # A twin where a different card was put back: same to everyone but those who know it.
    initial = list(game.initial_deck)
    total, size = len(initial), game.deck_size
    tail = [m for m in range(total - size + 1, total) if initial[m] != top]
    if not tail:
        return
    compared = False
    for j, m in itertools.product(range(total - size + 1), data.draw(st.permutations(tail))[:3]):
        if compared or initial[j] != top:
            continue
        twin_deck = initial[:]
        twin_deck[j], twin_deck[m] = twin_deck[m], twin_deck[j]
        twin = replay_with_deck(game, twin_deck)
        if twin is None or not twin.state.deck or twin.state.deck[-1] == game.state.deck[-1]:
            continue
        if _twin_views_equal(game, twin_deck, knowers):
            compared = True
            for seat in knowers:
                assert twin.view(seat).known_deck_top == initial[m] != top
    event(f"put-back twin compared: {compared}")


@given(
    game=games_where(
        choosing_double_chocolate,
        min_players=3,
        early=("double_chocolate",),
        prefer={"double_chocolate"},
    ),
    data=st.data(),
)
@SETTINGS
def test_double_chocolate_draw_is_seen_only_by_its_player(game: Game, data: st.DataObject) -> None:
    actor = game.to_act[0]
    deck = game.state.deck
    for seat, view in enumerate(views(game)):
        if seat == actor:
            assert view.drawn == (kind(deck[-1]), kind(deck[-2]))
            assert view.drawn[0] != view.drawn[1], "two equal cards leave no choice"
            assert {a.notation for a in view.legal} == {f"keep {k}" for k in view.drawn}
        else:
            assert view.drawn == ()
            assert view.legal == ()
    # Which two cards were drawn is the actor's secret (as is a top card someone put back).
    knowers = knowers_of_top(game)
    initial = list(game.initial_deck)
    total, size = len(initial), game.deck_size
    start = total - size + (1 if knowers else 0)
    twin_deck = initial[:start] + data.draw(st.permutations(initial[start:]))
    event(f"twin comparable: {_twin_views_equal(game, twin_deck, {actor} | knowers)}")


# -- secret choices -----------------------------------------------------------------------------


def _secret_choice_is_hidden(game: Game, seat: int, a: Action, b: Action) -> None:
    """``seat`` choosing ``a`` or ``b`` in a simultaneous phase looks the same to the others."""
    first, second = game.copy(), game.copy()
    first.apply(seat, a)
    second.apply(seat, b)
    assert first.phase is game.phase, "others still have to choose"
    for other in range(game.num_players):
        if other != seat:
            assert first.view(other) == second.view(other), f"seat {other} sees {seat}'s choice"
    assert first.public_view() == second.public_view(), f"spectators see {seat}'s choice"
    assert first.view(seat) != second.view(seat), "a seat sees its own choice"


@given(game=games_where(several_selecting), data=st.data())
@SETTINGS
def test_pending_pick_is_hidden_from_others(game: Game, data: st.DataObject) -> None:
    seat = data.draw(st.sampled_from(game.to_act))
    a, b = data.draw(st.permutations(game.legal_actions(seat)))[:2]
    _secret_choice_is_hidden(game, seat, a, b)
    # Picks already made this round: each seat sees only its own.
    for view in views(game):
        picked = game.state.picks
        for p, shown in enumerate(view.selections):
            assert shown == (picked[p] + 1 if p == view.seat and picked[p] >= 0 else None)
    assert game.selections == (None,) * game.num_players


@given(
    game=games_where(
        several_passing,
        min_players=4,
        early=("cinnamon_twist",),
        prefer={"cinnamon_twist"},
    ),
    data=st.data(),
)
@SETTINGS
def test_cinnamon_twist_pass_is_hidden_from_others(game: Game, data: st.DataObject) -> None:
    seat = data.draw(st.sampled_from(game.to_act))
    a, b = data.draw(st.permutations(game.legal_actions(seat)))[:2]
    _secret_choice_is_hidden(game, seat, a, b)
    passes = game.state.passes
    for seat, view in enumerate(views(game)):
        assert view.my_pass == (kind(passes[seat]) if passes[seat] >= 0 else None)
    assert game.public_view().my_pass is None


# -- worked examples -------------------------------------------------------------------------------


def _deck(n: int, top: Sequence[str]) -> list[str]:
    rest = Counter(deck_ids(n))
    rest.subtract(top)
    assert min(rest.values()) >= 0
    return [*top, *sorted(rest.elements())]


def test_example_double_chocolate_put_back() -> None:
    # Row: DC, French Cruller, Glazed, Plain; deck top: Powdered, then Boston Cream.
    top = ["double_chocolate", "french_cruller", "glazed", "plain", "powdered", "boston_cream"]
    deck = _deck(3, top)
    game = Game.new(3, deck=deck)
    for seat in range(3):
        game.apply(seat, f"pick {seat + 1}")
    assert game.pending_power == "double_chocolate"
    assert [v.drawn for v in views(game)] == [("powdered", "boston_cream"), (), ()]
    game.apply(0, "keep powdered")
    # Seat 1's French Cruller waits; Boston Cream is on top of the deck, known to seat 0.
    assert game.pending_power == "french_cruller"
    assert [v.known_deck_top for v in views(game)] == ["boston_cream", None, None]
    assert game.view(0).unseen["boston_cream"] == game.view(1).unseen["boston_cream"] - 1
    assert not any(e.type is EventType.CARD_PUT_BACK for v in views(game)[1:] for e in v.events)
    # Had a Jelly-Filled been put back instead, only seat 0 could tell.
    swapped = deck[:]
    j = swapped.index("jelly_filled", len(top))
    swapped[5], swapped[j] = swapped[j], swapped[5]
    assert _twin_views_equal(game, swapped, {0})
    twin = replay_with_deck(game, swapped)
    assert twin is not None
    assert twin.view(0).known_deck_top == "jelly_filled"


def _two_double_chocolates(kept_by_second: str) -> Game:
    """Seats 0 and 1 take the row's two Double Chocolates, seat 2 a French Cruller (which waits).
    Seat 0 draws Powdered and Boston Cream, keeps Powdered, puts Boston Cream back; seat 1 then
    draws Boston Cream and Jelly-Filled and keeps ``kept_by_second``."""
    top = ["double_chocolate", "double_chocolate", "french_cruller", "plain"]
    top += ["powdered", "boston_cream", "jelly_filled"]
    game = Game.new(3, deck=_deck(3, top))
    for seat in range(3):
        game.apply(seat, f"pick {seat + 1}")
    game.apply(0, "keep powdered")
    assert [v.known_deck_top for v in views(game)] == ["boston_cream", None, None]
    assert game.view(1).drawn == ("boston_cream", "jelly_filled")
    game.apply(1, f"keep {kept_by_second}")
    assert game.pending_power == "french_cruller"
    return game


def test_example_put_back_card_deduced_after_another_double_chocolate() -> None:
    # Seat 1 keeps the Jelly-Filled in public: seat 0, who knew the Boston Cream was one of the
    # two cards drawn, can tell it went back on top; seat 1 put it back itself.
    game = _two_double_chocolates("jelly_filled")
    assert game.state.deck[-1] == KIND_IDS.index("boston_cream")
    assert [v.known_deck_top for v in views(game)] == ["boston_cream", "boston_cream", None]
    unseen = [v.unseen.get("boston_cream", 0) for v in views(game)]
    assert unseen[0] == unseen[1] == unseen[2] - 1
    # Only seat 1 saw a put-back event this time: seat 0's knowledge is a deduction.
    put_backs = [
        [e.player for e in v.events if e.type is EventType.CARD_PUT_BACK] for v in views(game)
    ]
    assert put_backs == [[0], [1], []]
    assert game.public_view().known_deck_top is None


def test_example_put_back_card_kept_by_another_double_chocolate() -> None:
    # Seat 1 keeps the Boston Cream seat 0 had put back: seat 0 no longer knows the top card,
    # seat 1 knows the Jelly-Filled it put back.
    game = _two_double_chocolates("boston_cream")
    assert [v.known_deck_top for v in views(game)] == [None, "jelly_filled", None]
    unseen = [v.unseen.get("jelly_filled", 0) for v in views(game)]
    assert unseen[1] == unseen[0] - 1 == unseen[2] - 1


def test_example_cinnamon_twist_passes() -> None:
    # Round 1: seats take Plain, Powdered, Donut Holes, Jelly-Filled (position 1 stays).
    # Round 2: seats 1–3 take Maple Bar, Glazed, Powdered; seat 0 the Cinnamon Twist last.
    top = ["glazed", "plain", "powdered", "donut_holes", "jelly_filled"]
    top += ["maple_bar", "glazed", "powdered", "cinnamon_twist"]
    game = Game.new(4, deck=_deck(4, top))
    for seat in range(4):
        game.apply(seat, f"pick {seat + 2}")
    assert game.row == ("glazed", "maple_bar", "glazed", "powdered", "cinnamon_twist")
    game.apply(0, "pick 5")
    for seat in (1, 2, 3):
        game.apply(seat, f"pick {seat + 1}")
    assert game.pending_power == "cinnamon_twist"
    # Seat 0 has only its Plain to pass: passed without being asked.
    assert game.to_act == (1, 2, 3)
    assert [v.my_pass for v in views(game)] == ["plain", None, None, None]
    _secret_choice_is_hidden(game, 1, *game.legal_actions(1))
    game.apply(1, "pass maple_bar")
    game.apply(2, "pass glazed")
    assert [v.my_pass for v in views(game)] == ["plain", "maple_bar", "glazed", None]
    game.apply(3, "pass powdered")
    # All passes move at once, then the round goes on.
    assert game.collection(0) == {"cinnamon_twist": 1, "powdered": 1}
    assert game.collection(1) == {"plain": 1, "powdered": 1}
    assert game.collection(2) == {"donut_holes": 1, "maple_bar": 1}
    assert game.collection(3) == {"jelly_filled": 1, "glazed": 1}


def test_example_pending_pick() -> None:
    game = Game.new(3, seed=1)
    _secret_choice_is_hidden(game, 0, *game.legal_actions(0)[:2])
    game.apply(0, "pick 2")
    assert [v.selections for v in views(game)] == [(2, None, None)] + [(None, None, None)] * 2
    game.apply(1, "pick 2")
    game.apply(2, "pick 1")
    # Once everyone has chosen, the selections are public.
    for view in views(game):
        revealed = [e for e in view.events if e.type is EventType.SELECTIONS_REVEALED]
        assert revealed[-1].positions == (2, 2, 1)
