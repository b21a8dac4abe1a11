"""Record uploads (issue 17 item 2): names checked like the lobby's, replays built off the event
loop in a bounded pool, and the caches they fill bounded by bytes."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any

import pytest
from starlette.testclient import TestClient

import gonuts.server.games.api as app_module
from gonuts.errors import RecordError
from gonuts.game import Game
from gonuts.record import Record
from gonuts.server.games.messages import replay_data as real
from gonuts.server.kernel.cache import ByteLRU
from gonuts.server.kernel.errors import ServiceError
from gonuts.server.kernel.work import BoundedPool, check_record_names
from gonuts.server.play import messages
from web.helpers import AppFactory, error_code


def record_json(players: list[str]) -> bytes:
    """A short valid record (the deck from a seed, no actions yet)."""
    return json.dumps(
        {"format": "gonuts-record/1", "players": players, "seed": 7, "actions": []}
    ).encode("utf-8", "surrogatepass")


def test_a_plain_record_is_replayed(client: TestClient) -> None:
    r = client.post("/api/replay", content=record_json(["Ana", "Ben"]))
    assert r.status_code == 200, r.text
    assert r.json()["players"] == ["Ana", "Ben"]


@pytest.mark.parametrize(
    "name",
    ["x" * 25, "x" * 200_000, "", "   ", "tab\there", "\ud800", "bell\x07"],
    ids=["25", "200k", "empty", "blank", "tab", "lone-surrogate", "control"],
)
def test_names_the_lobby_refuses_are_refused_in_records(client: TestClient, name: str) -> None:
    r = client.post("/api/replay", content=record_json(["Ana", name]))
    assert r.status_code == 422, r.text[:200]
    assert error_code(r) == "bad_record"
    assert len(r.content) < 1000  # no amplification in the refusal either


def test_check_record_names_accepts_what_the_lobby_makes() -> None:
    check_record_names(Record(("Ana", "x" * 24, "Bot 3 (hard)"), None, 1, (), {}, ()))
    with pytest.raises(RecordError):
        check_record_names(Record(("Ana", "y" * 25), None, 1, (), {}, ()))


def test_replays_are_built_off_the_event_loop(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    where: list[bool] = []

    def spy(record: Record, lang: str) -> dict[str, Any]:
        try:
            asyncio.get_running_loop()
            where.append(True)  # on the loop: everything else waits
        except RuntimeError:
            where.append(False)
        return real(record, lang)

    monkeypatch.setattr(app_module, "replay_data", spy)
    with TestClient(make_app()) as c:
        assert c.post("/api/replay", content=record_json(["Ana", "Ben"])).status_code == 200
    assert where == [False]


def test_the_pool_is_bounded() -> None:
    pool = BoundedPool(workers=2, queue=1)
    running = 0
    most = 0
    lock = threading.Lock()

    def work() -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return 1

    async def main() -> list[int | BaseException]:
        return await asyncio.gather(*(pool.run(work) for _ in range(6)), return_exceptions=True)

    try:
        results = asyncio.run(main())
    finally:
        pool.close()
    done = [r for r in results if r == 1]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(done) == 3 and len(refused) == 3
    assert all(r.status == 429 for r in refused)
    assert most == 2


def played_record(names: list[str], seed: int) -> bytes:
    """A whole game of random moves between ``names``, as an upload."""
    rng = random.Random(seed)
    game = Game.new(names, seed=seed)
    while not game.is_over:
        seat = rng.choice(game.to_act)
        game.apply(seat, rng.choice(game.legal_actions(seat)))
    return Record.from_game(game).to_json().encode("utf-8")


def test_the_message_caches_stay_within_their_byte_budgets(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every upload brings new names (the key of the cache of localized events): it fills up
    to its budget and no further (issue 17 item 2: 1.4 GB once)."""
    cache = messages._event_json.cache
    monkeypatch.setattr(cache, "budget", 64 * 1024)
    cache.clear()
    for i in range(12):
        names = [f"{c * 22}{i:02d}" for c in "ABCD"]  # 24 characters, new each time
        r = client.post("/api/replay", content=played_record(names, i))
        assert r.status_code == 200, r.text[:200]
        assert len(r.json()["steps"]) > 20
        assert 0 < cache.nbytes <= cache.budget
    # full (entries were dropped to stay within), and what is counted is what is held
    assert cache.nbytes > cache.budget // 2
    assert cache.nbytes == sum(cache._costs.values())
    assert cache._costs.keys() == cache._entries.keys()


def test_a_byte_lru_drops_the_least_recently_used() -> None:
    cache: ByteLRU[str, str] = ByteLRU(100, size=len)
    cache.put("a", "x" * 40)
    cache.put("b", "y" * 40)
    assert cache.get("a") == "x" * 40  # a is now the most recent
    cache.put("c", "z" * 40)  # 120 > 100: b goes
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == ("x" * 40, None, "z" * 40)
    assert cache.nbytes == 80 and len(cache) == 2
    cache.put("d", "w" * 500)  # larger than the whole budget: not kept, nothing dropped
    assert cache.get("d") is None and len(cache) == 2
    cache.put("a", "v" * 10)  # replacing an entry counts its new size only
    assert cache.nbytes == 50
    with pytest.raises(ValueError):
        ByteLRU(0)
