from __future__ import annotations

import pytest

from ledger import queries as ledger_queries
from ledger.models import Fact
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db


def _pending(owner, content, trust=0.6, **kw):
    ev = EvidenceInFactory(quote=content, details={"trust_score": trust, "components": {"extraction": trust}})
    return FactFactory(owner=owner, content=content, pending=True, evidence=[ev], **kw)


def test_queue_lists_only_pending_memories_highest_trust_first(api, user):
    _pending(user, "Alice plays the cello", trust=0.5)
    _pending(user, "Alice is allergic to peanuts", trust=0.65)
    FactFactory(owner=user, content="Alice lives in Leeds", status="accepted")
    body = api.get("/review/items").json()
    assert body["count"] == 2
    assert [i["content"] for i in body["items"]] == ["Alice is allergic to peanuts", "Alice plays the cello"]
    first = body["items"][0]
    assert first["trust_score"] == 0.65
    assert first["evidence"][0]["quote"] == "Alice is allergic to peanuts"
    assert "answers_with_disclaimer" in first["permitted_uses"]
    assert first["disclaimers"]


def test_accepting_makes_the_memory_usable_for_answers(api, user):
    fact = _pending(user, "Alice runs on Tuesdays")
    response = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 200
    assert response.json()["status"] == "accepted"
    assert ledger_queries.facts_for_use(owner=user, use="answers").filter(pk=fact.pk).exists()


def test_accepting_with_corrected_wording_stores_the_correction(api, user):
    fact = _pending(user, "Alice owns a cat named Miso")
    response = api.post(
        f"/review/items/{fact.public_id}/decision", {"decision": "accept", "content": "Alice owns a cat named Mochi"}
    )
    assert response.json()["content"] == "Alice owns a cat named Mochi"
    fact.refresh_from_db()
    assert (fact.status, fact.content) == ("accepted", "Alice owns a cat named Mochi")


def test_rejected_memory_does_not_come_back_from_the_same_source(api, user):
    fact = _pending(user, "Alice moved to Mars last year")
    api.post(f"/review/items/{fact.public_id}/decision", {"decision": "reject"})
    again = FactFactory.build(
        owner=user, content="Alice moved to Mars last year", pending=True, on_duplicate="corroborate"
    )
    assert again is None  # refused: nothing written
    assert api.get("/review/items").json()["count"] == 0


def test_deciding_twice_is_a_conflict_and_changes_nothing(api, user):
    fact = _pending(user, "Alice has a brother")
    api.post(f"/review/items/{fact.public_id}/decision", {"decision": "reject"})
    response = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 409
    assert "already rejected" in response.json()["detail"]
    fact.refresh_from_db()
    assert fact.status == "rejected"


def test_unknown_decision_and_empty_wording_are_rejected(api, user):
    fact = _pending(user, "Alice likes tea")
    bad = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "maybe"})
    assert bad.status_code == 422
    empty = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept", "content": "  "})
    assert empty.status_code == 400
    assert "empty" in empty.json()["detail"]
    fact.refresh_from_db()
    assert fact.status == "pending_review"


def test_user_b_cannot_see_or_decide_user_a_items(other_api, user):
    fact = _pending(user, "Alice's door code is secret")
    assert other_api.get("/review/items").json()["count"] == 0
    response = other_api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 404
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_review_page_shows_the_queue_and_decides_with_htmx(auth_client, user):
    fact = _pending(user, "Alice is learning Portuguese")
    page = auth_client.get("/review/")
    assert "Alice is learning Portuguese" in page.content.decode()
    response = auth_client.post(
        f"/review/items/{fact.public_id}/decision/",
        {"decision": "accept", "content": "Alice is learning Portuguese"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "Accepted" in response.content.decode()
    assert "reviewQueueChanged" in response["HX-Trigger-After-Settle"]
    assert Fact.objects.get(pk=fact.pk).status == "accepted"


def test_review_page_returns_the_partial_for_htmx(auth_client, user):
    _pending(user, "Alice collects stamps")
    partial = auth_client.get("/review/", HTTP_HX_REQUEST="true").content.decode()
    assert "Alice collects stamps" in partial
    assert "<html" not in partial


def test_other_users_cannot_decide_through_the_page(client, user, other_user):
    fact = _pending(user, "Alice's private plan")
    client.force_login(other_user)
    assert client.post(f"/review/items/{fact.public_id}/decision/", {"decision": "reject"}).status_code == 404
    assert client.get(f"/review/items/{fact.public_id}/decision/").status_code in (404, 405)


def test_queue_page_query_count_does_not_grow_with_items(auth_client, user, django_assert_max_num_queries):
    for n in range(8):
        _pending(user, f"Alice fact number {n} about gardening")
    with django_assert_max_num_queries(12):
        auth_client.get("/review/")
