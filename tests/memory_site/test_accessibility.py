"""Every page of the demo passes axe-core's WCAG 2 A/AA rules, at desktop and phone widths, light and dark.

The demo is what a new user sees after ``make up``; axe-core (vendored in static/vendor/axe-core) is injected from
the live server itself, so the page's Content-Security-Policy stays as it is in production.
"""

from __future__ import annotations

import pytest

from tests.conftest import DESKTOP, PHONE, screenshot

# The seeded demo is committed by the module's ``demo_site`` fixture, and what the live server writes is committed
# by it; the test thread itself writes nothing, so a plain (rolled back) ``django_db`` mark is enough.
pytestmark = [pytest.mark.django_db, pytest.mark.browser, pytest.mark.slow]

AXE_URL = "/static/vendor/axe-core/axe.min.js"
AXE_VERSION = "4.14.1"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWS = {
    "desktop-light": (DESKTOP, "light"),
    "desktop-dark": (DESKTOP, "dark"),
    "phone-light": (PHONE, "light"),
    "phone-dark": (PHONE, "dark"),
}
# Pages by path; the Review tabs and an opened fact are added by the test (they need the page to find them).
PAGES = [
    ("dashboard", "/"),
    ("transcripts", "/transcripts/"),
    ("timeline", "/timeline/"),
    ("chats", "/chats/"),
    ("sources", "/sources/"),
    ("settings", "/settings/"),
    ("people", "/memory/people/"),
    ("refusals", "/memory/refusals/"),
    ("refused", "/review/refused/"),
]
SCREENSHOTS = {"dashboard", "review-queue", "memory-fact", "timeline", "transcripts", "settings"}


def run_axe(pg) -> list[dict]:
    """axe-core's WCAG 2.0/2.1 A and AA violations on the page as it stands."""
    if not pg.evaluate("typeof window.axe === 'object'"):
        pg.add_script_tag(url=AXE_URL)
    assert pg.evaluate("axe.version") == AXE_VERSION
    return pg.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"
        ".then(r => r.violations)",
        WCAG_TAGS,
    )


def describe(where: str, violations: list[dict]) -> list[str]:
    """One line per rule and element: rule id, impact, target, and the first line of axe's failure summary."""
    lines = []
    for v in violations:
        for node in v["nodes"]:
            summary = " ".join(s.strip() for s in (node.get("failureSummary") or "").splitlines()[1:2])
            target = " ".join(str(t) for t in node["target"])
            lines.append(f"{where}: {v['id']} ({v['impact']}) at {target}: {summary or v['help']}")
    return lines


class Checker:
    """Visits pages in one browser context and gathers axe's violations and the page's own errors."""

    def __init__(self, pg, view: str):
        self.pg = pg
        self.view = view
        self.found: list[str] = []
        self.checked: list[str] = []
        pg.on("console", lambda m: m.type == "error" and self.found.append(f"{view}: console: {m.text}"))
        pg.on("pageerror", lambda e: self.found.append(f"{view}: pageerror: {e}"))
        pg.on("response", lambda r: r.status >= 400 and self.found.append(f"{view}: HTTP {r.status} {r.url}"))

    def visit(self, path: str) -> None:
        self.pg.goto(path)
        self.pg.wait_for_load_state("networkidle")

    def check(self, name: str) -> None:
        self.pg.wait_for_load_state("networkidle")
        self.found.extend(describe(f"{name} [{self.view}] {self.pg.url}", run_axe(self.pg)))
        self.checked.append(name)
        if name in SCREENSHOTS and self.view.startswith("desktop"):
            screenshot(self.pg, f"{name}-{self.view.split('-')[1]}")


def _review_tabs(checker: Checker) -> None:
    checker.visit("/review/")
    bands = checker.pg.locator("nav.tabs a[data-band]").evaluate_all("els => els.map(e => e.dataset.band)")
    assert len(bands) >= 3, bands
    for band in bands:
        checker.visit(f"/review/?band={band}")
        checker.check(f"review-{band}")


def _memory_with_a_fact_open(checker: Checker) -> None:
    checker.visit("/memory/")
    checker.check("memory")
    link = checker.pg.locator("#ledger-fact-table a").first
    link.click()
    checker.pg.locator("#ledger-detail #ledger-fact").wait_for()
    checker.check("memory-fact")
    fact_url = link.get_attribute("href")
    checker.visit(fact_url)
    checker.check("fact-page")


def _login(browser, demo_site, viewport, scheme) -> list[str]:
    context = browser.new_context(base_url=demo_site.url, viewport=viewport, color_scheme=scheme)
    try:
        checker = Checker(context.new_page(), f"login-{scheme}")
        checker.visit("/login/")
        checker.check("login")
        return checker.found
    finally:
        context.close()


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_demo_page_has_no_wcag_a_or_aa_violation(browser, demo_site, view):
    viewport, scheme = VIEWS[view]
    context = browser.new_context(
        base_url=demo_site.url, viewport=viewport, color_scheme=scheme, storage_state=demo_site.storage_state
    )
    try:
        checker = Checker(context.new_page(), view)
        for name, path in PAGES:
            checker.visit(path)
            checker.check(name)
        _review_tabs(checker)
        _memory_with_a_fact_open(checker)
        found = checker.found + _login(browser, demo_site, viewport, scheme)
    finally:
        context.close()
    assert len(checker.checked) >= len(PAGES) + 6, checker.checked
    assert not found, f"{len(found)} accessibility problem(s):\n" + "\n".join(found)
