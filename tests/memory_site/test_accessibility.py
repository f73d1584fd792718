"""Every page of the demo passes axe-core's WCAG 2 A/AA rules, at desktop and phone widths, light and dark.

The demo is what a new user sees after ``make up``; axe-core (vendored in static/vendor/axe-core) is injected from
the live server itself, so the page's Content-Security-Policy stays as it is in production.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

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
# Written to docs/img/ only with ALMANAC_SCREENSHOTS=1 (see tests/conftest.py: screenshot).
SCREENSHOTS = {"dashboard", "review-queue", "memory-fact", "timeline", "transcripts", "settings"}
PHONE_SCREENSHOTS = {"review-queue", "memory-fact"}


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
        where = f"{name} [{self.view}] {self.pg.url}"
        self.found.extend(describe(where, run_axe(self.pg)))
        # WCAG 2.1 1.4.10 Reflow (axe cannot see it): nothing makes the page scroll sideways at phone width.
        overflow = self.pg.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 1:
            self.found.append(f"{where}: reflow: the page is {overflow}px wider than the screen")
        self.checked.append(name)
        width, scheme = self.view.split("-")
        if name in SCREENSHOTS and (width == "desktop" or name in PHONE_SCREENSHOTS):
            screenshot(self.pg, f"{name}-{scheme}" if width == "desktop" else f"{name}-phone-{scheme}")


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


# --- Keyboard only -------------------------------------------------------------------------------------
# These write to the demo (accept, reject, decide), so they come after the axe runs above, which see it pristine.
RECORD_TAB_STOPS = """() => {
  window.__stops = [];
  document.addEventListener("focusin", (e) => {
    const el = e.target, style = getComputedStyle(el);
    const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    window.__stops.push({key: el.dataset.stopKey || "", ring, tag: el.tagName, text: (el.textContent || "").trim().slice(0, 40)});
  });
  // Every visible control of the page, each with a key, to compare with what the Tab key reached.
  const controls = [...document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex="-1"])'
  )].filter((el) => !el.disabled && el.checkVisibility() && !el.closest("dialog:not([open])"));
  controls.forEach((el, i) => { el.dataset.stopKey = String(i); });
  return controls.length;
}"""


@pytest.fixture
def keyboard_page(browser, demo_site):
    """A desktop page, logged in as the demo user, that fails the test on any console error or failed request."""
    context = browser.new_context(base_url=demo_site.url, viewport=DESKTOP, storage_state=demo_site.storage_state)
    pg = context.new_page()
    problems = []
    pg.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    pg.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    pg.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status} {r.url}"))
    yield pg
    context.close()
    assert not problems, problems


def _focused(pg, script: str):
    return pg.evaluate(f"(() => {{ const el = document.activeElement; return {script}; }})()")


def _wait_for_focus(pg, script: str) -> None:
    """Focus moves when htmx has settled the swap (a few ms after the new content is in the page)."""
    pg.wait_for_function(f"() => {{ const el = document.activeElement; return {script}; }}", timeout=5000)


def _tab_until(pg, script: str, limit: int = 80) -> int:
    """Press Tab until ``script`` (JS over ``el``, the focused element) is true; the number of presses."""
    for n in range(1, limit + 1):
        pg.keyboard.press("Tab")
        if _focused(pg, script):
            return n
    raise AssertionError(f"Tab never reached {script!r} in {limit} presses")


def _live_text(pg, region: str = "#a11y-live") -> str:
    return pg.locator(region).inner_text().strip()


@pytest.mark.parametrize("path", ["/", "/review/", "/memory/", "/sources/", "/timeline/", "/chats/", "/settings/"])
def test_tab_reaches_every_visible_control_and_shows_a_focus_ring(keyboard_page, path):
    pg = keyboard_page
    pg.goto(path)
    pg.wait_for_load_state("networkidle")
    total = pg.evaluate(RECORD_TAB_STOPS)
    assert total >= 5, f"{path}: only {total} controls found"
    pg.locator("body").focus()
    for _ in range(total + 5):
        pg.keyboard.press("Tab")
    stops = pg.evaluate("window.__stops")
    reached = {s["key"] for s in stops if s["key"]}
    missing = pg.evaluate(
        "keys => [...document.querySelectorAll('[data-stop-key]')].filter(el => !keys.includes(el.dataset.stopKey))"
        ".map(el => el.outerHTML.slice(0, 120))",
        sorted(reached),
    )
    assert not missing, f"{path}: {len(missing)} control(s) Tab never reached: {missing[:5]}"
    no_ring = [f"{s['tag']} {s['text']!r}" for s in stops if not s["ring"]]
    assert not no_ring, f"{path}: focus ring missing on {no_ring[:10]}"


def test_skip_link_is_the_first_stop_and_moves_focus_to_the_main_content(keyboard_page):
    pg = keyboard_page
    pg.goto("/memory/")
    pg.keyboard.press("Tab")
    assert _focused(pg, "el.textContent.trim()") == "Skip to main content"
    assert pg.locator(".skip-link").is_visible()
    pg.keyboard.press("Enter")
    assert _focused(pg, "el.id") == "main"
    pg.keyboard.press("Tab")
    assert _focused(pg, "!!el.closest('main')")


def test_review_queue_is_triaged_from_the_keyboard_and_each_outcome_is_announced(keyboard_page):
    pg = keyboard_page
    pg.goto("/review/")
    pg.wait_for_load_state("networkidle")
    current = pg.locator("#review-panel .review-card.current")
    current.wait_for()
    assert _focused(pg, "el.classList.contains('review-card')"), "the first card has focus on arrival"
    first = current.locator(".claim").first.inner_text()

    pg.keyboard.press("j")
    assert current.locator(".claim").first.inner_text() != first
    pg.keyboard.press("k")
    assert current.locator(".claim").first.inner_text() == first

    pg.keyboard.press("a")
    expect(pg.locator("#a11y-live")).to_have_text(re.compile(r"^Accepted: .+\. Undo$"))
    assert first.strip().rstrip(".") in _live_text(pg)
    # Focus moved on to the next card, ready for the next key.
    _wait_for_focus(pg, "el.classList.contains('review-card') && el.classList.contains('current')")
    second = current.locator(".claim").first.inner_text()
    assert second != first

    pg.keyboard.press("r")
    expect(pg.locator("#a11y-live")).to_have_text(re.compile(r"^Rejected: .+\. Undo$"))

    # The card's own buttons work from the keyboard too: Tab from the card to Accept, then Enter.
    third = current.locator(".claim").first.inner_text()
    _tab_until(pg, "el.tagName === 'BUTTON' && el.textContent.trim() === 'Accept'")
    pg.keyboard.press("Enter")
    expect(pg.locator("#a11y-live")).to_have_text(re.compile(r"^Accepted: .+\. Undo$"))
    assert third.strip().rstrip(".") in _live_text(pg)

    pg.keyboard.press("u")
    expect(pg.locator("#review-undo-status")).to_have_text(re.compile(r"Undone: 1 memory restored"))
    expect(pg.locator("#review-panel .review-card:not(.decided) .claim", has_text=third.strip())).to_have_count(1)

    pg.keyboard.press("?")
    expect(pg.locator("#review-help")).to_be_visible()
    pg.keyboard.press("Escape")
    expect(pg.locator("#review-help")).to_be_hidden()


def test_memory_page_opens_a_fact_and_decides_it_from_the_keyboard(keyboard_page, demo_site):
    pg = keyboard_page
    pg.goto("/memory/?tab=pending")
    pg.wait_for_load_state("networkidle")
    links = pg.locator("#ledger-fact-table a")
    assert links.count() >= 1, "the demo has facts waiting for review"
    _tab_until(pg, "!!el.closest('#ledger-fact-table') && el.tagName === 'A'", limit=120)
    opened = _focused(pg, "el.textContent.trim()")
    pg.keyboard.press("Enter")
    pg.locator("#ledger-detail #ledger-fact").wait_for()
    # Focus followed the link into the opened fact, so the next Tab stops are its own.
    _wait_for_focus(pg, "!!el.closest('#ledger-detail')")
    assert pg.locator("#ledger-fact h2").inner_text().strip() == opened
    _tab_until(pg, "el.tagName === 'BUTTON' && el.textContent.trim() === 'Accept'", limit=40)
    pg.keyboard.press("Enter")
    expect(pg.locator("#a11y-live")).to_have_text("Saved.")
    expect(pg.locator("#fact-status")).to_have_text("accepted")
    _wait_for_focus(pg, "!!el.closest('#ledger-detail')")  # still in the fact after its buttons were redrawn


# --- Form errors ---------------------------------------------------------------------------------------
def _described_by(pg, selector: str) -> str:
    """The text a screen reader reads as the field's description (the elements its aria-describedby names)."""
    return pg.evaluate(
        """sel => (document.querySelector(sel).getAttribute("aria-describedby") || "").split(/\\s+/)
            .map(id => document.getElementById(id)).filter(Boolean).map(el => el.textContent.trim()).join(" ")""",
        selector,
    )


def test_an_empty_upload_marks_the_file_field_and_says_why(browser, demo_site):
    context = browser.new_context(base_url=demo_site.url, viewport=DESKTOP, storage_state=demo_site.storage_state)
    try:
        pg = context.new_page()
        pg.goto("/chats/")
        pg.set_input_files("#chats-upload input[type=file]", files=[
            {"name": "notes.json", "mimeType": "application/json", "buffer": b""}
        ])  # fmt: skip
        with pg.expect_response(lambda r: "/chats/upload/" in r.url) as answer:
            pg.locator("#chats-upload button[type=submit]").press("Enter")
        assert answer.value.status == 422
        field = "#chats-upload input[type=file]"
        expect(pg.locator(field)).to_have_attribute("aria-invalid", "true")
        reason = _described_by(pg, field)
        assert reason, "the error is tied to the file field"
        expect(pg.locator("#a11y-alert")).to_have_text(reason)
        _wait_for_focus(pg, "el.type === 'file'")  # focus lands on the field to fix
    finally:
        context.close()


def test_the_review_badge_refreshing_on_its_own_never_takes_the_focus(browser, demo_site):
    # It refreshes every minute and whenever the queue changes; landing just after another swap had removed the
    # focused button, it used to take the focus meant for that swap's form (a flaky upload test showed it).
    context = browser.new_context(base_url=demo_site.url, viewport=DESKTOP, storage_state=demo_site.storage_state)
    try:
        pg = context.new_page()
        pg.goto("/chats/")
        pg.wait_for_load_state("networkidle")
        pg.evaluate("document.activeElement && document.activeElement.blur()")
        with pg.expect_response(lambda r: "/review/badge" in r.url):
            pg.evaluate("document.body.dispatchEvent(new Event('reviewQueueChanged'))")
        pg.wait_for_timeout(200)  # htmx settles 20 ms after the swap
        assert not _focused(pg, "el.id === 'nav-review-badge'")
    finally:
        context.close()


def test_a_panel_loading_with_the_page_leaves_the_keyboard_at_the_top(keyboard_page):
    # The Memory page loads its recall panel after the page; settling with the focus on the page itself, it took
    # the focus, and the first Tab went to the panel's "Run now" instead of "Skip to main content".
    pg = keyboard_page
    pg.goto("/memory/")
    pg.get_by_role("button", name="Run now").wait_for()
    pg.wait_for_load_state("networkidle")
    pg.wait_for_timeout(100)  # htmx settles 20 ms after the swap
    pg.keyboard.press("Tab")
    assert _focused(pg, "el.textContent.trim()") == "Skip to main content"


def test_a_failed_login_marks_both_fields_with_the_reason(browser, demo_site):
    context = browser.new_context(base_url=demo_site.url, viewport=PHONE)
    try:
        pg = context.new_page()
        pg.goto("/login/")
        pg.fill("input[name=username]", demo_site.user.username)
        pg.fill("input[name=password]", "not the password")
        pg.keyboard.press("Enter")
        pg.locator("#login-error").wait_for()
        for name in ("username", "password"):
            expect(pg.locator(f"input[name={name}]")).to_have_attribute("aria-invalid", "true")
            assert _described_by(pg, f"input[name={name}]") == "Wrong username or password."
    finally:
        context.close()
