from __future__ import annotations

import pytest

from ledger.models import Fact
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_reviewer_accepts_and_rejects_from_the_page(logged_in_page, user):
    keep = FactFactory(
        owner=user,
        content="Alice swims at dawn",
        pending=True,
        evidence=[EvidenceInFactory(details={"trust_score": 0.6})],
    )
    drop = FactFactory(
        owner=user,
        content="Alice is a dragon",
        pending=True,
        evidence=[EvidenceInFactory(details={"trust_score": 0.5})],
    )
    page = logged_in_page
    page.goto("/review/")
    assert page.locator("#review-count").inner_text().startswith("2")
    page.locator(f"#review-item-{keep.public_id} button[value=accept]").click()
    page.get_by_role("status").filter(has_text="Accepted").wait_for()
    page.locator(f"#review-item-{drop.public_id} button[value=reject]").click()
    page.get_by_role("status").filter(has_text="Rejected").wait_for()
    page.wait_for_function("document.querySelector('#review-count').innerText.startsWith('0')")
    assert Fact.objects.get(pk=keep.pk).status == "accepted"
    assert Fact.objects.get(pk=drop.pk).status == "rejected"
