"""An agent's claim that contradicts an accepted fact (MCP ``remember``, reason ``contradicts-accepted``) waits in
the Conflicts band beside the fact it contradicts, in headless Chromium; deciding it decides the held fact too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ledger.models import Fact
from memory_site import mcp
from review import queries
from tests.factories import FactFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def _remember(user, content: str) -> dict:
    out = mcp.call_tool(user, "remember", {"content": content})
    assert out["outcome"] == "escalated", out
    return out


def test_a_claim_contradicting_an_accepted_fact_waits_beside_it_in_the_conflicts_band(logged_in_page, user):
    held = FactFactory(owner=user, content="Alice's pottery class meets on Tuesdays")
    FactFactory(owner=user, content="Alice keeps bees on the roof")  # accepted, about something else
    out = _remember(user, "Alice's pottery class meets on Thursdays")
    plain = mcp.call_tool(user, "remember", {"content": "Alice drinks green tea in the evening"})
    assert plain["outcome"] == "admitted"
    page = logged_in_page

    page.goto("/review/?band=queue")
    expect(page.locator("nav.tabs a[data-band=conflicts] .badge")).to_have_text("1")
    expect(page.locator("#review-panel")).to_contain_text("green tea")
    expect(page.locator("#review-panel")).not_to_contain_text("Thursdays")

    page.goto("/review/?band=conflicts")
    card = page.locator(f"#review-item-{out['id']}")
    expect(card.locator("section.side.held .claim")).to_have_text(held.content)
    expect(card.locator("section.side.new .claim")).to_have_text("Alice's pottery class meets on Thursdays")
    expect(card.locator(".why")).to_contain_text("contradicts a memory you hold")

    card.get_by_role("button", name="Accept").click()
    page.get_by_role("status").filter(has_text="Accepted").wait_for()
    held.refresh_from_db()
    new = Fact.objects.get(public_id=out["id"])
    assert (new.status, held.status) == ("accepted", "contradicted")
    assert queries.band_page(user, queries.Band.CONFLICTS).total == 0
