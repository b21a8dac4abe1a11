"""axe-core (tests/assets/axe-core, vendored) run in a page: its serious and critical findings.

The script is evaluated through the DevTools protocol, which the page's Content Security
Policy (script-src 'self') does not restrict; the app itself never loads it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "assets" / "axe-core" / "axe.min.js"
SEVERE = ("serious", "critical")

RUN = """
async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary),
  }));
}
"""


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Every serious or critical axe violation on the page as it is now."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text("utf-8"))
    found: list[dict[str, Any]] = page.evaluate(RUN)
    return [v for v in found if v["impact"] in SEVERE]


def assert_accessible(page: Page, where: str) -> None:
    severe = axe_violations(page)
    assert severe == [], f"{where}: {severe}"
