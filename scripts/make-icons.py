"""Render the app's home-screen icons (src/gonuts/web/static/img/icon-*.png) from donut.svg.

The web app manifest needs PNG icons of 192 and 512 pixels (what Chromium and Safari install
from), and a "maskable" one whose artwork sits inside the safe circle (80 % of the square) on
the header's brown, so that a launcher's circle or squircle crop never cuts the donut. Chromium
(Debian's, as the browser tests use) draws the SVG; run it again after changing donut.svg:

    .venv/bin/python scripts/make-icons.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

IMG = Path(__file__).resolve().parents[1] / "src" / "gonuts" / "web" / "static" / "img"
BROWN = "#5b3417"


def page_html(svg: str, size: int, *, maskable: bool) -> str:
    art = int(size * (0.62 if maskable else 0.92))
    background = BROWN if maskable else "transparent"
    sized = svg.replace("<svg ", "<svg width=100% height=100% ")
    return (
        "<!doctype html><html><body style='margin:0'>"
        f"<div style='width:{size}px;height:{size}px;display:grid;place-items:center;"
        f"background:{background}'>"
        f"<div style='width:{art}px;height:{art}px'>{sized}</div>"
        "</div></body></html>"
    )


def main() -> None:
    svg = (IMG / "donut.svg").read_text(encoding="utf-8")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
        for size, maskable, name in (
            (192, False, "icon-192.png"),
            (512, False, "icon-512.png"),
            (512, True, "icon-maskable-512.png"),
            (180, True, "apple-touch-icon.png"),
        ):
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html(svg, size, maskable=maskable))
            page.screenshot(path=str(IMG / name), omit_background=not maskable)
            page.close()
            print(f"wrote {IMG / name}")
        browser.close()


if __name__ == "__main__":
    main()
