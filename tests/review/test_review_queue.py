"""The first review API (``/review/items``) and the page's basics: listing, deciding, htmx partials, owners."""

from __future__ import annotations

import pytest

from ledger import queries as ledger_queries
from ledger.models import Fact
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def test_queue_lists_only_pending_memories_most_uncertain_first(api, user, pending):
    pending(user, "Alice plays the cello", trust=0.9)
    pending(user, "Alice is allergic to peanuts", trust=0.58)
    FactFactory(owner=user, content="Alice lives in Leeds", status="accepted")
    body = api.get("/review/items").json()
    assert body["count"] == 2
    assert [i["content"] for i in body["items"]] == ["Alice is allergic to peanuts", "Alice plays the cello"]
    first = body["items"][0]
    assert first["trust_score"] == 0.58
    assert first["evidence"][0]["quote"] == "Alice is allergic to peanuts"
    assert "answers_with_disclaimer" in first["permitted_uses"]
    assert "judge: accept" in first["trust_in_words"]
    assert first["disclaimers"]


def test_accepting_makes_the_memory_usable_for_answers(api, user, pending):
    fact = pending(user, "Alice runs on Tuesdays")
    response = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 200
    assert response.json()["status"] == "accepted"
    assert ledger_queries.facts_for_use(owner=user, use="answers").filter(pk=fact.pk).exists()


def test_accepting_with_corrected_wording_stores_the_correction(api, user, pending):
    fact = pending(user, "Alice owns a cat named Miso")
    response = api.post(
        f"/review/items/{fact.public_id}/decision", {"decision": "accept", "content": "Alice owns a cat named Mochi"}
    )
    assert response.json()["content"] == "Alice owns a cat named Mochi"
    fact.refresh_from_db()
    assert (fact.status, fact.content) == ("accepted", "Alice owns a cat named Mochi")


def test_rejected_memory_does_not_come_back_from_the_same_source(api, user, pending):
    fact = pending(user, "Alice tames dragons for a living")
    api.post(f"/review/items/{fact.public_id}/decision", {"decision": "reject"})
    again = FactFactory.build(
        owner=user, content="Alice tames dragons for a living", pending=True, on_duplicate="corroborate"
    )
    assert again is None  # refused: nothing written
    assert api.get("/review/items").json()["count"] == 0
    assert api.get("/review/stats").json()["refused_this_week"] == 1


def test_deciding_twice_is_a_conflict_and_changes_nothing(api, user, pending):
    fact = pending(user, "Alice has a brother")
    api.post(f"/review/items/{fact.public_id}/decision", {"decision": "reject"})
    response = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 409
    assert "already rejected" in response.json()["detail"]
    fact.refresh_from_db()
    assert fact.status == "rejected"


def test_unknown_decision_and_empty_wording_are_rejected(api, user, pending):
    fact = pending(user, "Alice likes tea")
    bad = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "maybe"})
    assert bad.status_code == 422
    empty = api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept", "content": "  "})
    assert empty.status_code == 400
    assert "empty" in empty.json()["detail"]
    fact.refresh_from_db()
    assert fact.status == "pending_review"


def test_user_b_cannot_see_or_decide_user_a_items(other_api, user, pending):
    fact = pending(user, "Alice's door code is secret")
    assert other_api.get("/review/items").json()["count"] == 0
    response = other_api.post(f"/review/items/{fact.public_id}/decision", {"decision": "accept"})
    assert response.status_code == 404
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_review_page_shows_the_queue_and_decides_with_htmx(auth_client, user, pending):
    fact = pending(user, "Alice is learning Portuguese")
    page = auth_client.get("/review/").content.decode()
    assert "Alice is learning Portuguese" in page
    assert "judge: accept" in page
    assert "may answer with a disclaimer" in page
    response = auth_client.post(f"/review/items/{fact.public_id}/action/", {"action": "accept"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Accepted" in response.content.decode()
    assert "reviewQueueChanged" in response["HX-Trigger-After-Settle"]
    assert Fact.objects.get(pk=fact.pk).status == "accepted"


def test_an_invalid_action_on_the_page_answers_422_with_the_card(auth_client, user, pending):
    fact = pending(user, "Alice paints on Sundays")
    response = auth_client.post(
        f"/review/items/{fact.public_id}/action/", {"action": "edit", "edit": " "}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422
    assert "corrected wording" in response.content.decode()
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_review_page_returns_the_panel_partial_for_htmx(auth_client, user, pending):
    pending(user, "Alice collects stamps")
    partial = auth_client.get("/review/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="review-panel").content.decode()
    assert "Alice collects stamps" in partial
    assert "<html" not in partial


def test_source_filter_lists_each_source_once(auth_client, user, pending):
    for n in range(3):
        pending(user, f"Alice note {n} about birds", source="wearable:limitless")
    pending(user, "Alice note about trains", source="chat:claude-code")
    page = auth_client.get("/review/").content.decode()
    assert page.count('<option value="wearable:limitless"') == 1
    assert page.count('<option value="chat:claude-code"') == 1


def test_other_users_cannot_act_through_the_page(client, user, other_user, pending):
    fact = pending(user, "Alice's private plan")
    client.force_login(other_user)
    assert client.post(f"/review/items/{fact.public_id}/action/", {"action": "reject"}).status_code == 404
    assert client.get(f"/review/items/{fact.public_id}/action/").status_code == 405
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_anonymous_visitors_are_sent_to_login(client):
    assert client.get("/review/").status_code == 302


def test_queue_page_query_count_does_not_grow_with_items(auth_client, user, pending, django_assert_max_num_queries):
    for n in range(12):
        pending(user, f"Alice fact number {n} about gardening")
    with django_assert_max_num_queries(40) as ctx:
        auth_client.get("/review/")
    few = len(ctx.captured_queries)
    for n in range(12, 24):
        pending(user, f"Alice fact number {n} about gardening")
    with django_assert_max_num_queries(few) as ctx:
        auth_client.get("/review/")


def test_nav_badge_shows_the_queue_size(auth_client, user, pending):
    pending(user, "Alice fixes bikes")
    pending(user, "Alice owns a kayak")
    badge = auth_client.get("/review/badge/").content.decode()
    assert ">2<" in badge
    page = auth_client.get("/").content.decode()
    assert 'hx-trigger="load, every 60s' in page


def test_refused_page_lists_this_weeks_refused_re_extractions(auth_client, user, pending):
    fact = pending(user, "Alice collects antique clocks")
    auth_client.post(f"/review/items/{fact.public_id}/action/", {"action": "reject"}, HTTP_HX_REQUEST="true")
    assert FactFactory.build(owner=user, content="Alice collects antique clocks", on_duplicate="corroborate") is None
    page = auth_client.get("/review/").content.decode()
    assert "1 re-extraction refused this week" in page
    refused = auth_client.get("/review/refused/").content.decode()
    assert "Alice collects antique clocks" in refused
    assert "rejected" in refused


def test_not_about_me_from_the_page_keeps_the_card_with_the_new_subject(auth_client, user, pending):
    fact = pending(user, "Runs a bakery in Hull")
    response = auth_client.post(
        f"/review/items/{fact.public_id}/action/",
        {"action": "not_about_me", "subject": "Marek"},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Subject changed" in html and "Marek" in html


def test_undo_on_the_page_answers_with_the_restored_card_out_of_band(auth_client, user, pending):
    fact = pending(user, "Alice rides a tandem")
    auth_client.post(f"/review/items/{fact.public_id}/action/", {"action": "reject"}, HTTP_HX_REQUEST="true")
    response = auth_client.post("/review/undo/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "Undone: 1 memory restored" in html
    assert f'id="review-item-{fact.public_id}"' in html and 'hx-swap-oob="true"' in html
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"
    assert "Nothing to undo" in auth_client.post("/review/undo/", HTTP_HX_REQUEST="true").content.decode()
