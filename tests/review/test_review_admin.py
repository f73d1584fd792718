"""Admin triage: filters and accept/reject actions that go through the review service (ledger commits)."""

from __future__ import annotations

import pytest

from ledger.models import Commit, Fact
from review import services
from review.models import ReviewAction
from tests.factories import FactFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    return client


def test_admin_accept_action_is_a_reviewer_commit_for_the_owner(admin_client, user, pending):
    fact = pending(user, "Alice sails on weekends")
    response = admin_client.post(
        "/admin/review/queueitem/", {"action": "accept_selected", "_selected_action": [fact.pk]}, follow=True
    )
    assert response.status_code == 200
    assert Fact.objects.get(pk=fact.pk).status == "accepted"
    assert Commit.objects.filter(owner=user, author="reviewer").count() == 1
    assert ReviewAction.objects.get().owner == user


def test_admin_reject_action_on_the_fact_admin(admin_client, user, pending):
    fact = pending(user, "Alice owns a llama")
    admin_client.post("/admin/ledger/fact/", {"action": "reject_selected", "_selected_action": [fact.pk]})
    assert Fact.objects.get(pk=fact.pk).status == "rejected"


def test_admin_lists_filter_by_band_source_day_and_subject(admin_client, user, pending):
    pending(user, "Alice hikes", source="wearable:limitless")
    pending(user, "Alice codes", source="chat:claude-code")
    page = admin_client.get("/admin/review/queueitem/", {"source": "chat:claude-code", "band": "queue"})
    html = page.content.decode()
    assert "Alice codes" in html and "Alice hikes" not in html
    assert admin_client.get("/admin/ledger/fact/", {"subject_kind": "user", "q": "hikes"}).status_code == 200
    assert admin_client.get("/admin/ledger/fact/", {"recorded_at__year": "2026"}).status_code == 200


def test_admin_skips_items_already_decided(admin_client, user, pending):
    fact = pending(user, "Alice fences")
    admin_client.post("/admin/review/queueitem/", {"action": "accept_selected", "_selected_action": [fact.pk]})
    admin_client.post("/admin/ledger/fact/", {"action": "accept_selected", "_selected_action": [fact.pk]})
    assert Commit.objects.filter(owner=user, author="reviewer").count() == 1


def test_admin_band_filter_finds_auto_accepted_not_reviewed(admin_client, user, pending):
    FactFactory(owner=user, content="Alice drinks oat milk", status="accepted")
    reviewed = pending(user, "Alice drinks rooibos")
    services.act(owner=user, fact=reviewed, action="accept")
    html = admin_client.get("/admin/ledger/fact/", {"band": "auto_accepted"}).content.decode()
    assert "Alice drinks oat milk" in html and "Alice drinks rooibos" not in html
