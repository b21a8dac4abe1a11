"""Game review over HTTP (``/api/games/{id}/review``): a finished game's review computed once in
the background and cached in the database, its progress, busy and bad requests refused."""

from __future__ import annotations

import argparse
import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import gonuts.review
import gonuts.server.review.service as review_service
from gonuts.cli import serve
from gonuts.record import Record
from gonuts.server.games.service import Games
from gonuts.server.kernel.db import TableRow
from gonuts.server.kernel.errors import ErrorCode, error_text
from gonuts.server.review.service import Reviews
from gonuts.server.store import TableStore
from web.helpers import AppFactory, error_code, wait_until

RECORDS = Path(__file__).resolve().parents[1] / "records"
TINY = "neural:1"
"""A tiny budget: the whole 2-player review in well under a second."""


def add_finished_game(db_url: str, table_id: str, record_file: str = "complete-2p.json") -> str:
    """A finished game in the database as play leaves one (its table and its record)."""
    text = (RECORDS / record_file).read_text(encoding="utf-8")
    store = TableStore(db_url)
    try:
        store.add_finished(table_id, text)
    finally:
        store.close()
    return text


def add_unfinished_table(db_url: str, table_id: str) -> None:
    store = TableStore(db_url)
    try:
        with store.sessions.begin() as s:
            s.add(TableRow(id=table_id, status="playing", players=2, deck="[]"))
    finally:
        store.close()


@pytest.fixture
def blocked(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Reviews that report one decision done of five, then wait until the event is set."""
    release = threading.Event()
    real = gonuts.review.review_record

    def slow(record: Record, **kwargs: Any) -> Any:
        kwargs["progress"](1, 5)
        release.wait(20)
        return real(record, **kwargs)

    monkeypatch.setattr(gonuts.review, "review_record", slow)
    yield release
    release.set()


def review_done(client: TestClient, game_id: str) -> Callable[[], bool]:
    return lambda: client.get(f"/api/games/{game_id}/review").json()["status"] == "done"


def test_a_review_is_computed_once_then_served_from_the_database(
    db_url: str, make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = add_finished_game(db_url, "g1")
    record = Record.from_json(text)
    with TestClient(make_app(review_bot=TINY)) as client:
        first = client.get("/api/games/g1/review")
        assert first.status_code == 200 and first.json()["status"] == "none"
        started = client.post("/api/games/g1/review")
        assert started.status_code in (200, 202), started.text
        assert started.json()["analyser"] == TINY
        wait_until(review_done(client, "g1"), timeout=30, message="the review")
        done = client.get("/api/games/g1/review")
        assert done.status_code == 200
        review = done.json()["review"]
        # the library's own review of the record, at the server's analyser and seed 0
        expected = gonuts.review.review_record(
            record, analyser=gonuts.review.parse_analyser(TINY), seed=0
        ).to_dict()
        assert review == json.loads(json.dumps(expected))
        assert [p["name"] for p in review["players"]] == ["Ana", "Ben"]
        assert review["graph"][-1]["end"] is True
        assert TableStore(db_url).review_count() == 1

    # another server on the same database answers from it, without reviewing again
    def no_review(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the cached review was computed again")

    monkeypatch.setattr(gonuts.review, "review_record", no_review)
    with TestClient(make_app(review_bot=TINY)) as client:
        again = client.post("/api/games/g1/review")
        assert again.status_code == 200 and again.json()["status"] == "done"
        assert again.json()["review"] == review
    # a server with another analyser does not take that review for its own
    with TestClient(make_app(review_bot="neural:2")) as client:
        assert client.get("/api/games/g1/review").json()["status"] == "none"


def test_progress_is_shown_and_a_full_queue_is_refused_politely(
    db_url: str, make_app: AppFactory, blocked: threading.Event
) -> None:
    for game in ("g1", "g2"):
        add_finished_game(db_url, game)
    app = make_app(review_bot=TINY)
    with TestClient(app) as client:
        app.state.service.reviews.capacity = 1  # one review at a time, none waiting
        assert client.post("/api/games/g1/review").status_code == 202
        wait_until(
            lambda: client.get("/api/games/g1/review").json()["done"] == 1, message="progress"
        )
        running = client.get("/api/games/g1/review")
        assert running.status_code == 202
        assert running.json() | {"review": None} == {
            "status": "running", "analyser": TINY, "done": 1, "total": 5, "review": None
        }  # fmt: skip
        # the same game asked again joins the running review; another game is refused
        assert client.post("/api/games/g1/review").status_code == 202
        busy = client.post("/api/games/g2/review?lang=es")
        assert busy.status_code == 503 and error_code(busy) == "review_busy"
        assert busy.json()["error"]["message"] == error_text(ErrorCode.REVIEW_BUSY, "es")
        assert busy.json()["error"]["message"] != error_text(ErrorCode.REVIEW_BUSY, "en")
        blocked.set()
        wait_until(review_done(client, "g1"), timeout=30, message="the review")
        # room again
        assert client.post("/api/games/g2/review").status_code in (200, 202)
        wait_until(review_done(client, "g2"), timeout=30, message="the second review")


def test_a_review_nobody_follows_is_cancelled(
    db_url: str, make_app: AppFactory, blocked: threading.Event
) -> None:
    add_finished_game(db_url, "g1")
    app = make_app(review_bot=TINY)
    with TestClient(app) as client:
        reviews = app.state.service.reviews
        assert client.post("/api/games/g1/review").status_code == 202
        wait_until(lambda: reviews.jobs["g1"].done == 1, message="progress")
        reviews.abandon_after = 0.0  # (nobody asked since)
        blocked.set()
        wait_until(lambda: reviews.busy() == 0, message="the cancellation")
        assert client.get("/api/games/g1/review").json()["status"] == "none"
        assert TableStore(db_url).review_count() == 0


def test_unfinished_unknown_and_bad_ids_are_refused(db_url: str, make_app: AppFactory) -> None:
    add_unfinished_table(db_url, "live1")
    with TestClient(make_app(review_bot=TINY)) as client:
        for method in (client.get, client.post):
            assert error_code(method("/api/games/live1/review")) == "not_finished"
            r = method("/api/games/nosuchgame/review")
            assert r.status_code == 404 and error_code(r) == "unknown_table"
            r = method(f"/api/games/{'x' * 300}/review")
            assert r.status_code == 404 and error_code(r) == "unknown_table"
        assert client.get("/api/games/live1/review?lang=it").json()["error"]["message"] == (
            error_text(ErrorCode.NOT_FINISHED, "it")
        )
        assert app_reviews_idle(client)


def app_reviews_idle(client: TestClient) -> bool:
    reviews = client.app.state.service.reviews  # type: ignore[attr-defined]
    return bool(reviews.busy() == 0 and not reviews.jobs)


def test_no_numpy_means_a_polite_refusal(
    db_url: str, make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_finished_game(db_url, "g1")
    monkeypatch.setattr(review_service, "reviews_available", lambda: False)
    with TestClient(make_app(review_bot=TINY)) as client:
        r = client.post("/api/games/g1/review")
        assert r.status_code == 503 and error_code(r) == "review_unavailable"
        assert client.get("/api/games/g1/review").json()["status"] == "none"


def test_reviews_run_and_stop_in_worker_processes(tmp_path: Path) -> None:
    """What ``gonuts serve`` does when bots think in processes: the review in a spawned worker,
    its progress back through the queue, a stop through the shared flags. (SQLite only: the
    database plays no part here, the processes do.)"""
    url = f"sqlite:///{tmp_path / 'gonuts.sqlite3'}"
    text = add_finished_game(url, "g1")
    add_finished_game(url, "g6", "complete-6p.json")
    store = TableStore(url)
    reviews = Reviews(store, Games(store), analyser=TINY, processes=True)
    reports: list[tuple[int, int, int]] = []
    report = reviews.report

    def record_report(job: int, done: int, total: int) -> bool:
        reports.append((job, done, total))
        return report(job, done, total)

    reviews.report = record_report  # type: ignore[method-assign,assignment]

    async def finish(game: str) -> dict[str, Any]:
        assert reviews.request(game)["status"] == "running"
        while reviews.busy():
            await asyncio.sleep(0.05)
        return reviews.state(game)

    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        done = await finish("g1")
        reviews.abandon_after = -1.0  # every report now says: nobody is watching
        stopped = await finish("g6")
        return done, stopped

    try:
        done, stopped = asyncio.run(asyncio.wait_for(both(), 120))
    finally:
        reviews.close()
        store.close()
    expected = gonuts.review.review_record(
        Record.from_json(text), analyser=gonuts.review.parse_analyser(TINY), seed=0
    ).to_dict()
    assert done["status"] == "done" and done["review"] == json.loads(json.dumps(expected))
    judged = len(expected["decisions"])
    first = [r for r in reports if r[0] == 1]
    assert first[0] == (1, 0, judged) and first[-1] == (1, judged, judged)
    # the second review stopped at its first report, long before its 100-odd decisions
    assert stopped["status"] == "none"
    second = [r for r in reports if r[0] == 2]
    assert second and second[-1][1] < second[-1][2] // 2


def test_serve_takes_the_review_analyser_from_a_flag_or_the_environment() -> None:
    parser = argparse.ArgumentParser()
    serve.register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--review-bot", "neural:8"])
    assert serve.resolve(args, {})["review_bot"] == "neural:8"
    plain = parser.parse_args(["serve"])
    assert serve.resolve(plain, {})["review_bot"] is None  # the server's default
    assert serve.resolve(plain, {"GONUTS_REVIEW_BOT": "mcts:50"})["review_bot"] == "mcts:50"
    with pytest.raises(serve.SettingError, match="GONUTS_REVIEW_BOT='neural:0' is not an"):
        serve.resolve(plain, {"GONUTS_REVIEW_BOT": "neural:0"})
    # every analyser of `gonuts review --bot`, the judges tried for validity included
    from gonuts.review.engine import ANALYSER_KINDS  # noqa: PLC0415

    assert serve.REVIEW_KINDS == ANALYSER_KINDS
    for kind in ANALYSER_KINDS:
        args = parser.parse_args(["serve", "--review-bot", f"{kind}:32"])
        assert serve.resolve(args, {})["review_bot"] == f"{kind}:32"
    with pytest.raises(serve.SettingError, match="is not an analyser"):
        serve.resolve(plain, {"GONUTS_REVIEW_BOT": "neural-mixer:32"})
