"""Hostile input: schemathesis on the HTTP API's OpenAPI schema, hypothesis on the socket.

Malformed, oversized, out-of-order, replayed and forged messages: never a 500 or a closed
socket, always a clear error, no state change when refused, and other tables keep playing.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from sqlalchemy import Engine, inspect, text
from starlette.testclient import TestClient

from gonuts.server import create_app
from gonuts.server.kernel.db import make_engine
from gonuts.server.kernel.errors import ErrorCode
from gonuts.server.kernel.limits import Limits
from web.helpers import create, hello, receive_until, wait_until
from web.test_ws import play_to_end

ERROR_CODES = set(ErrorCode)
NO_RATE = Limits(ws_rate=None, http_rate=None, max_open_tables=8)

STILL_CLOCKS = 10_000.0
"""Every clock × this: the shortest (10 s) becomes more than a day."""

# The schema, read from an app on a throwaway database at collection time.
SCHEMA = schemathesis.openapi.from_dict(create_app("sqlite://").openapi())


@contextmanager
def engine_for(url: str) -> Iterator[Engine]:
    """An engine on the test's database (no migration), to read what the app stored."""
    engine = make_engine(url, migrate_schema=False)
    try:
        yield engine
    finally:
        engine.dispose()


def snapshot(engine: Engine) -> list[Any]:
    """Every row of every table: what "no state change" compares.

    Tables whose seats are all bots play on by themselves (an earlier fuzz case may have
    created one), so their rows may change between two snapshots: for those only the table's
    existence is compared, never its moves. ``gn_secrets`` is left out: the server's own
    device-cookie key, made once when a sign-in first needs it (one row per database, ever),
    is not state a client changes. ``gn_processes`` neither: each process's heartbeat (its row's
    ``until`` moves on every few seconds, requests or none; :mod:`gonuts.server.play.drivers`).
    """
    # On PostgreSQL the URL's search_path names the test's schema, which is the default one.
    names = sorted(inspect(engine).get_table_names())
    assert "gn_tables" in names, names
    with engine.connect() as con:
        autonomous = set(
            con.scalars(
                text(
                    "SELECT table_id FROM gn_seats GROUP BY table_id "
                    "HAVING SUM(CASE WHEN kind = 'human' THEN 1 ELSE 0 END) = 0"
                )
            )
        )
        out: list[Any] = [("table ids", sorted(con.scalars(text("SELECT id FROM gn_tables"))))]
        for n in names:
            if n in ("gn_secrets", "gn_processes"):
                continue
            result = con.execute(text(f'SELECT * FROM "{n}"'))
            columns = list(result.keys())
            key = "id" if n == "gn_tables" else "table_id" if "table_id" in columns else None
            rows = [
                repr(tuple(row))
                for row in result
                if key is None or row[columns.index(key)] not in autonomous
            ]
            out.append((n, sorted(rows)))
    return out


class Api:
    """An app on a database, with tables in every state and their seat tokens."""

    def __init__(self, client: TestClient, engine: Engine) -> None:
        self.client, self.engine = client, engine
        self.open = create(client, [{"kind": "human"}, {"kind": "human"}])
        tid = self.open["table"]["id"]
        self.playing = create(client, [{"kind": "human"}, {"kind": "human"}])
        pid = self.playing["table"]["id"]
        r = client.post(f"/api/tables/{pid}/join", json={"name": "Ben"})
        assert r.status_code == 200
        done = create(client, [{"kind": "bot", "level": "easy"}] * 2, name=None)
        self.finished_id: str = done["table"]["id"]
        wait_until(
            lambda: client.get(f"/api/tables/{self.finished_id}").json()["status"] == "finished",
            message="the bots' game to end",
        )
        self.ids = [tid, pid, self.finished_id]
        self.tokens = [self.open["token"], self.playing["token"], r.json()["token"]]


def settled_snapshot(engine: Engine, *, quiet: float = 0.1, limit: float = 5.0) -> list[Any]:
    """:func:`snapshot` once the background work of earlier cases has stopped: a bot seat of a
    table an accepted case made (a tutorial's coach, say) moves a few milliseconds after the
    request, and that move must not be taken for a change made by the next, refused, case."""
    deadline = time.monotonic() + limit
    last = snapshot(engine)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = snapshot(engine)
        if now == last:
            return now
        last = now
    raise AssertionError(f"the database kept changing for {limit} s with no request")


@pytest.fixture(scope="module")
def api(module_db_url: str) -> Iterator[Api]:
    """One app per backend (``module_db_url`` is parametrized over SQLite and PostgreSQL)."""
    # Turn clocks stretched past the test's length: a timeout played in the background would
    # change the database between the two snapshots of a refused request.
    app = create_app(
        module_db_url, bot_delay=0, hint_iterations=5, limits=NO_RATE, clock_scale=STILL_CLOCKS
    )
    with (
        TestClient(app, raise_server_exceptions=False) as client,
        engine_for(module_db_url) as engine,
    ):
        yield Api(client, engine)


@SCHEMA.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_http_api_fuzz(case: schemathesis.Case[Any], api: Api) -> None:
    rng = random.Random(repr(case.path_parameters) + repr(case.body))
    # half the cases aim at real tables and carry real (or forged) seat tokens
    if case.path_parameters and rng.random() < 0.5:
        key = next(iter(case.path_parameters))
        case.path_parameters[key] = rng.choice(api.ids)
    if case.headers is not None and "Authorization" in case.headers and rng.random() < 0.5:
        case.headers["Authorization"] = f"Bearer {rng.choice(api.tokens)}"
    before = settled_snapshot(api.engine)
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    kwargs.pop("allow_redirects", None)
    data = kwargs.pop("data", None)
    if data is not None:
        kwargs["content"] = data
    cookies = kwargs.pop("cookies", None)  # per-request cookies: a header, not client state
    if cookies:
        headers = dict(kwargs.get("headers") or {})
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        kwargs["headers"] = headers
    response = api.client.request(**kwargs)
    case.validate_response(response, checks=[not_a_server_error])
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"}, body
        assert body["error"]["code"] in ERROR_CODES and body["error"]["message"], body
        assert snapshot(api.engine) == before, f"refused {kwargs} changed the database"


# -- the socket -------------------------------------------------------------------------------

TEXT = st.text(max_size=60)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
NOTATIONS = st.sampled_from(
    ["pick 1", "pick 2", "pick 3", "pick 9", "pick 0", "pick -1", "stop", "keep glazed",
     "take glazed", "take plain from 1", "give eclair to 1", "pass milk", "discard 2",
     "discard glazed from 0", "", " pick 1", "PICK 1", "pick 1 2", "pick 99999999999999999999"]
)  # fmt: skip
IDS = st.sampled_from(["a", "b", "c", "d"]) | st.text(max_size=41)
FIELD = st.sampled_from(["type", "action", "id", "token", "lang", "on", "seat"])


@st.composite
def frame(draw: st.DrawFn) -> tuple[str, Any]:
    """One hostile (or, now and then, legal) frame: (kind, payload)."""
    kind = draw(
        st.sampled_from(
            ["legal", "act", "act", "json", "text", "shaped", "big", "bytes", "hello", "lang"]
        )
    )
    if kind == "legal":
        return kind, (draw(st.integers(0, 20)), draw(IDS))
    if kind == "act":
        msg: dict[str, Any] = {"type": "act", "action": draw(NOTATIONS | TEXT)}
        if draw(st.booleans()):
            msg["id"] = draw(IDS)
        return "json", msg
    if kind == "json":
        return kind, draw(JSONISH)
    if kind == "text":
        return kind, draw(st.text(max_size=200))
    if kind == "shaped":
        msg = {"type": draw(st.sampled_from(["act", "hello", "hints", "lang", "ping", "x"]))}
        msg.update(draw(st.dictionaries(FIELD, JSONISH, max_size=3)))
        return "json", msg
    if kind == "big":
        size = draw(st.integers(4100, 9000))
        return "json", {"type": "act", "action": "pick 1", "id": "x" * size}
    if kind == "bytes":
        return kind, draw(st.binary(max_size=5000))
    if kind == "hello":  # out of order and forged
        return "json", {"type": "hello", "token": draw(st.none() | TEXT)}
    return "json", {"type": "lang", "lang": draw(st.sampled_from(["en", "es", "it", "fr", "xx"]))}


def test_socket_fuzz(db_url: str) -> None:
    app = create_app(db_url, bot_delay=0, hint_iterations=5, limits=NO_RATE)
    bots = [{"kind": "human"}, {"kind": "bot", "level": "easy"}, {"kind": "bot", "level": "easy"}]
    with TestClient(app) as client, engine_for(db_url) as engine:
        made = create(client, bots)
        tid, token = made["table"]["id"], made["token"]
        healthy = create(client, bots, name="Hal")
        with (
            client.websocket_connect(f"/ws/tables/{tid}") as ws,
            client.websocket_connect(f"/ws/tables/{healthy['table']['id']}") as good,
        ):
            hello(ws, token)
            legal: list[str] = [a["action"] for a in receive_until(ws, "state")["view"]["legal"]]
            hello(good, healthy["token"])
            good_state = receive_until(good, "state")
            acked: dict[str, tuple[str, int]] = {}  # id -> (action, version)
            applied = 0  # actions of mine the server accepted

            def exchange(kind: str, payload: Any) -> list[dict[str, Any]]:
                if kind == "bytes":
                    ws.send_bytes(payload)
                elif kind == "text":
                    ws.send_text(payload)
                else:
                    ws.send_text(json.dumps(payload))
                ws.send_text('{"type": "ping"}')
                pongs = 2 if kind == "json" and payload == {"type": "ping"} else 1
                got: list[dict[str, Any]] = []
                while pongs:
                    msg = ws.receive_json()
                    if msg["type"] == "pong":
                        pongs -= 1
                    else:
                        got.append(msg)
                return got

            @settings(
                max_examples=60,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                derandomize=True,
            )
            @given(st.lists(frame(), min_size=1, max_size=6))
            def run(frames: list[tuple[str, Any]]) -> None:
                nonlocal legal, applied
                for drawn_kind, drawn in frames:
                    kind, payload = drawn_kind, drawn
                    if kind == "legal":
                        if not legal:
                            continue
                        index, id_ = payload
                        kind = "json"
                        payload = {"type": "act", "action": legal[index % len(legal)], "id": id_}
                    replies = exchange(kind, payload)
                    refused = [m for m in replies if m["type"] == "error"]
                    acks = [m for m in replies if m["type"] == "ack"]
                    for m in refused:
                        assert m["code"] in ERROR_CODES and m["message"], m
                    for m in acks:
                        if m["id"] is None:  # no id, no idempotency: applied
                            unnamed[0] += 1
                        elif m["id"] in acked:  # a replay: acknowledged again, not applied
                            assert acked[m["id"]] == (m["action"], m["version"]), m
                        else:
                            acked[m["id"]] = (m["action"], m["version"])
                            applied += 1
                    assert len(refused) + len(acks) <= 1, replies
                    if not (isinstance(payload, dict) and payload.get("type") == "act"):
                        assert not acks, (payload, replies)
                    for m in replies:
                        if m["type"] == "state":
                            legal = [a["action"] for a in m["view"]["legal"]]
                # the seat's stored actions are exactly the acknowledged ones
                with engine.connect() as con:
                    mine = con.scalar(
                        text("SELECT COUNT(*) FROM gn_actions WHERE table_id = :t AND seat = 0"),
                        {"t": tid},
                    )
                assert mine == applied + unnamed[0]
                # and the other table is served meanwhile
                good.send_text('{"type": "ping"}')
                assert receive_until(good, "pong")

            unnamed = [0]
            run()
            # a table next door still plays to the end
            log: list[dict[str, Any]] = []
            play_to_end(good, good_state, random.Random(2), log)
            assert any(m["type"] == "ack" for m in log)
