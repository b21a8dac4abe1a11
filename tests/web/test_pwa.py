"""The installable app's files as the server sends them (issue 27 item 4): the manifest, the
service worker at the root with the headers that let it control the whole site and update at
once, the offline page, and a page policy that allows both (the browser test shows Chromium
installs and uses them)."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

from starlette.testclient import TestClient

from gonuts.server.transport.middleware import PAGE_CSP

STATIC = Path(__file__).resolve().parents[2] / "src" / "gonuts" / "web" / "static"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_names_the_app_and_icons_of_the_sizes_it_says(client: TestClient) -> None:
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/manifest+json")
    manifest = r.json()
    assert manifest["name"] == "Go Nuts for Donuts"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {icon["sizes"] for icon in pngs} >= {"192x192", "512x512"}
    assert any(icon["purpose"] == "maskable" for icon in pngs)
    for icon in pngs:
        got = client.get(icon["src"])
        assert got.status_code == 200, icon["src"]
        width, height = png_size(got.content)
        assert f"{width}x{height}" == icon["sizes"], icon["src"]


def test_the_service_worker_controls_the_site_and_is_never_stale(client: TestClient) -> None:
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["service-worker-allowed"] == "/"
    # it keeps only the offline page and that page's own files, each of which is served
    assets = json.loads(
        re.search(r"OFFLINE_ASSETS = (\[.*?\]);", r.text, re.S)
        .group(1)  # type: ignore[union-attr]
        .replace("OFFLINE_PAGE", '"/offline"')
        .replace(",\n]", "]")
    )
    assert "/offline" in assets
    for path in assets:
        assert client.get(path).status_code == 200, path


def test_the_offline_page_speaks_every_language(client: TestClient) -> None:
    r = client.get("/offline")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    for lang, heading in (
        ("en", "You are offline"),
        ("es", "Estás sin conexión"),
        ("it", "Sei offline"),
    ):
        assert f'<section lang="{lang}"' in r.text
        assert heading in r.text


def test_the_page_policy_allows_the_manifest_and_the_worker_and_matches_the_meta(
    client: TestClient,
) -> None:
    header = client.get("/").headers["content-security-policy"]
    assert "manifest-src 'self'" in header and "worker-src 'self'" in header
    index = (STATIC / "index.html").read_text(encoding="utf-8")
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', index)
    assert meta is not None
    # the same policy in both places (a <meta> cannot carry frame-ancestors)
    assert meta.group(1) == PAGE_CSP.removesuffix("; frame-ancestors 'none'")
    assert '<link rel="manifest" href="/manifest.webmanifest">' in index
