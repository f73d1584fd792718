"""The recall panel on the Memory page, in headless Chromium: live search, context preview, Run now."""

from __future__ import annotations

import pytest

from ledger import services as ledger_services
from ledger.recall import search
from ledger.services import layers
from tests.factories import FactFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture
def memories(user):
    search.forget_stats()
    layers.set_identity_override(owner=user, key="name", value="Alice Example")
    ledger_services.ensure_entity(owner=user, name="Maya")
    fact = FactFactory(owner=user, content="Maya lives in Lisbon, her number is +351 912 345 678", status="accepted")
    layers.pin_fact(owner=user, fact=fact)
    layers.pin_fact(owner=user, fact=FactFactory(owner=user, content="Maya is vegetarian", pending=True))
    yield
    search.forget_stats()


def test_recall_panel_searches_previews_and_consolidates(logged_in_page, memories):
    page = logged_in_page
    page.goto("/memory/")
    panel = page.locator("#recall-panel")
    panel.locator("text=Run now").wait_for()  # consolidation stats loaded by htmx on page load

    panel.locator("input[name=q]").fill("Maya Lisbon")
    results = page.locator("#recall-results")
    results.locator("li").first.wait_for()
    assert "Pinned facts" in results.inner_text()
    assert "lives in Lisbon" in results.inner_text()
    assert "912 345" not in results.inner_text()  # redacted for display

    panel.locator("input[name=question]").fill("What does Maya eat?")
    panel.locator("input[name=budget_tokens]").fill("200")
    panel.locator("#recall-preview").locator("..").locator("button:has-text('Preview')").click()
    block = page.locator("[data-testid=recall-block]")
    block.wait_for()
    text = block.inner_text()
    assert text.startswith("## Identity")
    assert "Maya is vegetarian" in text and "Unconfirmed: not yet reviewed." in text
    tokens = int(page.locator("[data-testid=recall-tokens]").inner_text())
    assert 0 < tokens <= 200
    assert page.locator("[data-route]").inner_text() == "pinned"

    panel.locator("button:has-text('Run now')").click()
    page.locator("text=Consolidation finished.").wait_for()
    assert page.locator("[data-count=decayed]").is_visible()
