"""The Memory page in headless Chromium: list, detail with evidence, decisions, identity editor."""

from __future__ import annotations

import pytest

from ledger.models import Fact, IdentityOverride
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_memory_page_shows_a_fact_its_evidence_and_takes_a_decision(logged_in_page, user):
    ev = EvidenceInFactory(quote="we finally adopted a greyhound", source_ref={"url": "/memory/"})
    fact = FactFactory(owner=user, content="Adopted a greyhound", pending=True, evidence=[ev])
    page = logged_in_page
    page.goto("/memory/")
    page.click("text=Needs review")
    page.wait_for_selector("text=Adopted a greyhound")
    page.click("text=Adopted a greyhound")
    page.wait_for_selector("#ledger-fact")
    assert "we finally adopted a greyhound" in page.inner_text("#fact-evidence")
    assert page.get_attribute("#fact-evidence a", "href") == "/memory/"
    assert "Unconfirmed" in page.inner_text("#fact-disclaimers")
    page.click("#ledger-fact button:has-text('Accept')")
    page.wait_for_selector("#fact-status:has-text('accepted')")
    assert Fact.objects.get(pk=fact.pk).status == "accepted"


def test_identity_overrides_editor(logged_in_page, user):
    page = logged_in_page
    page.goto("/memory/")
    page.fill("#identity-form input[name=key]", "name")
    page.fill("#identity-form input[name=value]", "Alice Example")
    page.click("#identity-form button[type=submit]")
    page.wait_for_selector("#identity-table >> text=Alice Example")
    assert IdentityOverride.objects.get(owner=user).value == "Alice Example"
    page.click("#identity-table button:has-text('Remove')")
    page.wait_for_selector("#identity-table >> text=Nothing yet")
    assert not IdentityOverride.objects.filter(owner=user).exists()
