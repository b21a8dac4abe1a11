"""Sign-in that others' guessing cannot lock the owner out of (issue 26, item 5): OWASP's
device cookies, on SQLite and PostgreSQL. The lock-out the issue measured (255 guesses at one
name from rotating addresses in 60 s, then the owner with the right password from a new
address) is replayed on a simulated clock; and the number of checked guesses one name can
receive in an hour is counted against :func:`guesses_per_hour`."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select
from starlette.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from gonuts.server.accounts.api import SignInLimits, guesses_per_hour
from gonuts.server.accounts.devices import DEVICE_COOKIE, MAX_DEVICE_ENTRIES, DeviceCookies
from gonuts.server.accounts.service import COOKIE
from gonuts.server.kernel.db import SecretRow
from gonuts.server.kernel.limits import BucketMap, Limits
from web.helpers import AppFactory, error_code
from web.test_accounts import ORIGIN, PASSWORD, quick, set_cookie_header


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limits_on(clock: FakeClock) -> SignInLimits:
    """The default limits (rates and bursts), on ``clock``."""
    default = SignInLimits()
    return SignInLimits(
        *(
            BucketMap(b.rate, b.burst, clock)
            for b in (default.per_address, default.per_name, default.per_device)
        )
    )


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    return quick(make_app(limits=Limits.unlimited()))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    # every request says which address it comes from (X-Forwarded-For, trusted here)
    asgi: Any = app  # (uvicorn's ASGI types are narrower than Starlette's)
    proxied: Any = ProxyHeadersMiddleware(asgi, trusted_hosts=["testclient"])
    with TestClient(proxied) as c:
        yield c


def sign_in(
    client: TestClient, address: str, password: str, device: str | None = None, name: str = "Ana"
) -> Any:
    headers = {"X-Forwarded-For": address, **ORIGIN}
    if device is not None:
        headers["Cookie"] = f"{DEVICE_COOKIE}={device}"
    client.cookies.clear()
    return client.post(
        "/api/account/signin", json={"name": name, "password": password}, headers=headers
    )


def device_of(response: Any) -> str:
    header = set_cookie_header(response, DEVICE_COOKIE)
    return header.split(";")[0].removeprefix(f"{DEVICE_COOKIE}=")


def owner_device(client: TestClient, name: str = "Ana") -> str:
    """Sign ``name`` up from the owner's usual address; the device cookie it leaves."""
    r = client.post(
        "/api/account/signup",
        json={"name": name, "password": PASSWORD},
        headers={"X-Forwarded-For": "198.51.100.1", **ORIGIN},
    )
    assert r.status_code == 201, r.text
    client.cookies.clear()
    return device_of(r)


def test_the_lock_out_replayed_leaves_the_owner_a_way_in(app: FastAPI, client: TestClient) -> None:
    device = owner_device(client)
    mallory = owner_device(client, "Mallory")  # the attacker's own account's device cookie
    clock = FakeClock()
    limits = app.state.sign_in_limits = limits_on(clock)
    # 255 guesses at Ana from rotating addresses in 60 s
    codes = []
    for i in range(255):
        clock.now += 60 / 255
        r = sign_in(client, f"10.{i // 250}.{i % 250}.1", f"guess number {i}")
        codes.append(r.status_code)
    checked = codes.count(401)
    # what the name's bucket allows between the first guess and the last: its burst, then
    # its rate (10 + 4 with the defaults)
    elapsed = 254 * 60 / 255
    assert checked == math.floor(limits.per_name.burst + elapsed * limits.per_name.rate + 1e-9)
    assert codes.count(429) == 255 - checked and set(codes) == {401, 429}
    # without the device cookie the owner is locked out like everyone else from elsewhere …
    r = sign_in(client, "203.0.113.50", PASSWORD)
    assert (r.status_code, error_code(r)) == (429, "rate_limited")
    # … and another account's device cookie, or a forged one, does not help
    assert sign_in(client, "203.0.113.51", PASSWORD, mallory).status_code == 429
    nonce, mac = device.split(".")
    forged = f"{nonce}.{mac[:-2]}{'AA' if mac[-2:] != 'AA' else 'BB'}"
    assert sign_in(client, "203.0.113.52", PASSWORD, forged).status_code == 429
    # the owner, from a new address, with the browser that signed in before: signed in
    r = sign_in(client, "203.0.113.53", PASSWORD, device)
    assert r.status_code == 200, r.text
    assert r.json()["account"]["name"] == "Ana" and r.cookies.get(COOKIE)
    assert device_of(r) == device  # the same entry, kept


def test_a_device_is_limited_on_its_own_bucket(app: FastAPI, client: TestClient) -> None:
    """Guesses with a stolen device cookie are bounded too, by that device's bucket."""
    device = owner_device(client)
    clock = FakeClock()
    limits = app.state.sign_in_limits = limits_on(clock)
    codes = [
        sign_in(client, f"10.1.1.{i}", "not the password", device).status_code
        for i in range(int(limits.per_device.burst) + 3)
    ]
    assert codes == [401] * int(limits.per_device.burst) + [429] * 3
    assert sign_in(client, "10.1.2.1", PASSWORD, device).status_code == 429
    # the name's own bucket was not touched: a browser without a cookie still gets its turn
    assert sign_in(client, "10.1.2.2", PASSWORD).status_code == 200
    clock.now += 1 / limits.per_device.rate
    assert sign_in(client, "10.1.2.3", PASSWORD, device).status_code == 200


def test_the_device_cookie_is_safe_and_shared_by_processes(
    make_app: AppFactory, app: FastAPI, client: TestClient
) -> None:
    r = client.post(
        "/api/account/signup", json={"name": "Ana", "password": PASSWORD}, headers=ORIGIN
    )
    header = set_cookie_header(r, DEVICE_COOKIE).lower()
    parts = {p.strip().split("=")[0] for p in header.split(";")}
    assert {"httponly", "max-age", "path", "samesite"} <= parts
    assert "path=/api/account" in header and "samesite=strict" in header
    device = device_of(r)
    assert "ana" not in device.lower()  # (the name is in the MAC, not in the clear)
    # one secret in the database; a second process on it accepts this browser's cookie
    store = app.state.service.store
    with store.engine.connect() as conn:
        secrets = conn.execute(select(SecretRow.name, SecretRow.value)).all()
    # one device-cookie key (made on the first sign-in), beside the push key made at start
    assert sorted(s.name for s in secrets) == ["device_cookie", "vapid_private_key"]
    other = quick(make_app(limits=Limits.unlimited()))
    clock = FakeClock()
    other.state.sign_in_limits = limits_on(clock)
    other.state.sign_in_limits.per_name = BucketMap(1e-9, 1, clock)
    other.state.sign_in_limits.per_name.take("ana")  # the name's bucket: empty
    with TestClient(other) as c:
        r = c.post(
            "/api/account/signin",
            json={"name": "Ana", "password": PASSWORD},
            headers={"Cookie": f"{DEVICE_COOKIE}={device}", **ORIGIN},
        )
        assert r.status_code == 200, r.text


def test_hourly_guesses_at_one_name_are_bounded() -> None:
    """One attempt every half second for two hours, each from a new address: the name's
    checked guesses are :func:`guesses_per_hour` (310 in the first hour, 300 in the next)."""
    clock = FakeClock()
    limits = limits_on(clock)
    passed = [0, 0]
    for step in range(2 * 7200):
        clock.now += 0.5
        try:
            limits.check(f"addr-{step}", "ana", exists=lambda _key: True)
        except Exception:
            continue
        passed[step // 7200] += 1
    assert guesses_per_hour(limits) == 310
    assert abs(passed[0] - guesses_per_hour(limits)) <= 1, passed
    assert abs(passed[1] - (guesses_per_hour(limits, 2) - guesses_per_hour(limits))) <= 1, passed


def test_device_cookie_entries() -> None:
    cookies = DeviceCookies(b"k" * 32)
    value = ""
    for i in range(MAX_DEVICE_ENTRIES + 2):
        value = cookies.remember(value, f"player {i}")
    entries = value.split("~")
    assert len(entries) == MAX_DEVICE_ENTRIES
    assert cookies.device(value, "player 0") is None  # the oldest went first
    last = cookies.device(value, f"player {MAX_DEVICE_ENTRIES + 1}")
    assert last is not None
    # signing in again keeps the entry (and moves it last); junk is ignored, never an error
    again = cookies.remember("junk~" + value + "~x.y", "player 2")
    assert cookies.device(again, "player 2") == cookies.device(value, "player 2")
    assert again.split("~")[-1].startswith(cookies.device(value, "player 2") or "?")
    assert cookies.device("x" * 5000, "player 2") is None
    assert cookies.device(value, "player 2") is not None
    assert cookies.device(cookies.forget(value, "player 2"), "player 2") is None
    # another secret: nothing is recognised
    assert DeviceCookies(b"j" * 32).device(value, "player 2") is None
