"""The batch engine's table of powers and the action decoder both engines share.

The differential test checks what the powers do; these check the tables themselves: one
batch entry per power of :mod:`gonuts.powers`, with its phase and the functions a power of
its kind needs, and :func:`gonuts.choices.split` giving every action id's parts, on ints (as
:mod:`gonuts.powers` calls it) and on JAX arrays (as :mod:`gonuts.batch.powers` does).
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from gonuts import powers as scalar  # noqa: E402
from gonuts.actions import ACTIONS, STOP_ID, Verb  # noqa: E402
from gonuts.batch import powers  # noqa: E402
from gonuts.batch.state import BASE, PHASES  # noqa: E402
from gonuts.cards import KIND_IDS, NUM_KINDS  # noqa: E402
from gonuts.choices import CHOICE_BASE, split  # noqa: E402
from gonuts.state import Phase  # noqa: E402


def test_one_batch_entry_per_power_with_its_phase() -> None:
    entries = {p.kind: p for p in powers.POWERS}
    assert len(entries) == len(powers.POWERS)  # no kind twice
    for kind in range(NUM_KINDS):
        power = scalar.POWERS[kind]
        if power is None:
            assert kind not in entries, KIND_IDS[kind]
            assert powers.POWER_PHASE_OF_KIND[kind] == -1
            continue
        entry = entries[kind]
        waits = power.phase is not Phase.SELECT  # SELECT: it never waits for a decision
        assert entry.phase == (PHASES.index(power.phase) if waits else -1), KIND_IDS[kind]
        assert powers.POWER_PHASE_OF_KIND[kind] == entry.phase
        # one actor's decision: choices and an effect; the Twist's passes are every seat's
        one_actor = waits and power.phase is not Phase.CINNAMON_TWIST
        assert (entry.choices is not None) == one_actor, KIND_IDS[kind]
        assert (entry.act is not None) == one_actor, KIND_IDS[kind]
        # a power that needs no decision does something at once
        assert entry.start is not None or waits, KIND_IDS[kind]


def test_the_compact_layout_starts_each_phase_where_its_ids_start() -> None:
    for i, phase in enumerate(PHASES):
        assert BASE[i] == CHOICE_BASE.get(phase, 0)
    assert set(CHOICE_BASE) == set(Phase) - {Phase.OVER}


def _parts(action_id: int) -> tuple[int, int]:
    a = ACTIONS[action_id]
    part = KIND_IDS.index(a.kind) if a.kind is not None else (a.position or 0) - 1
    return a.seat or 0, part


@pytest.mark.parametrize("phase", sorted(CHOICE_BASE, key=PHASES.index), ids=str)
def test_split_gives_every_choice_its_parts(phase: Phase) -> None:
    base = CHOICE_BASE[phase]
    verb = ACTIONS[base].verb
    ids = [a.id for a in ACTIONS if a.verb is verb]
    assert ids and ids[0] == base and verb is not Verb.STOP
    for action_id in ids:
        assert split(action_id, base) == _parts(action_id), ACTIONS[action_id].notation
    # the same decoder on a JAX array, as the batch powers call it
    seats, parts = split(jnp.asarray(ids, jnp.int32), base)
    assert np.asarray(seats).tolist() == [_parts(i)[0] for i in ids]
    assert np.asarray(parts).tolist() == [_parts(i)[1] for i in ids]
    assert STOP_ID not in ids
