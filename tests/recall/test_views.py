"""Recall panel views: search by layer, context preview (redacted, with token count), consolidation button."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger import services as ledger_services
from ledger.recall.models import ConsolidationRun
from ledger.services import layers
from tests.factories import FactFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_recall")]


@pytest.fixture
def maya(user):
    ledger_services.ensure_entity(owner=user, name="Maya")
    fact = FactFactory(
        owner=user, content="Maya's email is maya@example.org and she lives in Lisbon", status="accepted"
    )
    return layers.pin_fact(owner=user, fact=fact)


def test_pages_require_login(client):
    for name in ("recall:page", "recall:search", "recall:consolidation"):
        resp = client.get(reverse(name))
        assert resp.status_code == 302 and "/login/" in resp["Location"]
    assert client.post(reverse("recall:preview"), {"question": "x"}).status_code == 302


def test_wrong_method_is_405(auth_client):
    assert auth_client.get(reverse("recall:preview")).status_code == 405
    assert auth_client.get(reverse("recall:consolidation-run")).status_code == 405
    assert auth_client.post(reverse("recall:search")).status_code == 405


def test_search_returns_results_by_layer_redacted(auth_client, maya):
    resp = auth_client.get(reverse("recall:search"), {"q": "Maya Lisbon"}, HTTP_HX_REQUEST="true")
    html = resp.content.decode()
    assert resp.status_code == 200 and "<html" not in html
    assert "Pinned facts" in html and "lives in Lisbon" in html
    assert "maya@example.org" not in html and "[email]" in html
    full = auth_client.get(reverse("recall:search"), {"q": "Maya Lisbon"})
    assert "<html" in full.content.decode() and "lives in Lisbon" in full.content.decode()


def test_search_never_shows_another_users_memories(client, other_user, maya):
    client.force_login(other_user)
    html = client.get(reverse("recall:search"), {"q": "Maya Lisbon"}, HTTP_HX_REQUEST="true").content.decode()
    assert "Lisbon" in html  # echoed query only
    assert "lives in Lisbon" not in html


def test_preview_shows_the_block_and_its_token_count(auth_client, maya):
    resp = auth_client.post(
        reverse("recall:preview"), {"question": "Where does Maya live?", "budget_tokens": "300"}, HTTP_HX_REQUEST="true"
    )
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "## Pinned facts" in html and "[email]" in html and "maya@example.org" not in html
    assert "of 300 tokens" in html
    maya.refresh_from_db()
    assert maya.use_count == 0  # a person previewing is not an agent using the memory


def test_preview_rejects_a_budget_out_of_range_with_422(auth_client, maya):
    resp = auth_client.post(
        reverse("recall:preview"),
        {"question": "Where does Maya live?", "budget_tokens": "5000"},
        HTTP_HX_REQUEST="true",
    )
    assert resp.status_code == 422
    assert "between 100 and 4000" in resp.content.decode()
    assert auth_client.post(reverse("recall:preview"), {"question": ""}, HTTP_HX_REQUEST="true").status_code == 422


def test_run_now_consolidates_and_shows_counts(auth_client, user, maya):
    resp = auth_client.post(reverse("recall:consolidation-run"), HTTP_HX_REQUEST="true")
    html = resp.content.decode()
    assert resp.status_code == 200 and "Consolidation finished." in html and 'data-count="decayed"' in html
    assert ConsolidationRun.objects.owned_by(user).count() == 1


def test_memory_page_includes_the_recall_panel(auth_client):
    html = auth_client.get(reverse("ledger:memory")).content.decode()
    assert 'id="recall-panel"' in html and reverse("recall:consolidation") in html
