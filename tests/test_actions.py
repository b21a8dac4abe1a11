"""Move notation (RECORD.md "Move notation"): one interned action per string, strict parsing."""

from __future__ import annotations

import pickle

import pytest

from gonuts.actions import ACTIONS, NUM_ACTIONS, Action, Verb, parse_action
from gonuts.cards import KIND_IDS
from gonuts.errors import MalformedActionError


def test_every_action_round_trips_through_its_notation() -> None:
    assert len(ACTIONS) == NUM_ACTIONS == 521
    for i, action in enumerate(ACTIONS):
        assert action.id == i
        assert parse_action(str(action)) is action
        assert Action.parse(action.notation) is action


def test_notation_table() -> None:
    assert {str(a) for a in ACTIONS if a.verb is Verb.PICK} == {f"pick {p}" for p in range(1, 8)}
    assert parse_action("discard 3").verb is Verb.DISCARD_POSITION
    assert parse_action("stop").verb is Verb.STOP
    assert parse_action("keep glazed").kind == "glazed"
    take = parse_action("take plain")
    assert (take.verb, take.kind, take.seat) == (Verb.TAKE, "plain", None)
    take_from = parse_action("take plain from 4")
    assert (take_from.verb, take_from.kind, take_from.seat) == (Verb.TAKE_FROM, "plain", 4)
    assert parse_action("give milk to 0").verb is Verb.GIVE
    assert parse_action("pass coffee").verb is Verb.PASS
    assert parse_action("discard milk").verb is Verb.DISCARD
    assert parse_action("discard eclair from 5").verb is Verb.DISCARD_FROM
    for kind in KIND_IDS:
        for verb in ("keep", "take", "pass", "discard"):
            assert parse_action(f"{verb} {kind}").kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "", "pick", "pick 0", "pick 8", "pick  1", " pick 1", "pick 1 ", "Pick 1", "pick one",
        "pick 01", "pick 1\n", "stop ", "keep", "keep donut", "keep Glazed", "take glazed from",
        "take glazed from 6", "take glazed from -1", "give glazed 1", "give glazed to  1",
        "discard 0", "discard glazed from 9", "pass", "pass 1", "discard 8", "take 1",
        "keep glazed\tplain",
    ],
)  # fmt: skip
def test_parsing_is_strict(text: str) -> None:
    with pytest.raises(MalformedActionError):
        parse_action(text)


def test_non_strings_are_malformed() -> None:
    with pytest.raises(MalformedActionError):
        parse_action(3)


def test_actions_pickle_to_the_interned_object() -> None:
    for action in ACTIONS[::37]:
        assert pickle.loads(pickle.dumps(action)) is action


def test_actions_sort_by_notation() -> None:
    actions = [parse_action(s) for s in ("stop", "discard 2", "pick 1")]
    assert [str(a) for a in sorted(actions)] == ["discard 2", "pick 1", "stop"]
