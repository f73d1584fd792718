"""GET /api/v1/wearables/memories and the per-day Memories page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.distill.conftest import DAY, build_day
from tests.distill.test_services import ALLERGY
from wearables.services import memories as services

# The nurse is named only by the wearer's greeting, so that claim is queued (pending_review).
TURNS = [*ALLERGY, ("user", True, "Hi, Vilja."), ("2", False, "I work as a nurse at the county hospital now.")]

pytestmark = pytest.mark.django_db
# Owner-chosen gate lines (smart mode uses them instead of the shipped model's, docs/trust-gate.md): this page's
# tests need one accepted and one queued memory, whatever the model's calibration.
# The accept line sits between the shipped model's p of a claim only told to the wearer (0.39) and of the wearer's
# own stated allergy (0.53).
LINES = {"auto_approve_trust": 0.47, "review_trust": 0.25}


@pytest.fixture
def memories(user):
    transcript = build_day(user, "limitless", TURNS, **LINES)
    services.run_memory_pass(transcript=transcript)
    return transcript


def test_api_lists_every_memory_of_the_day_including_pending(api, memories):
    response = api.get("/wearables/memories", {"source": "limitless", "date": DAY.isoformat()})
    assert response.status_code == 200
    items = response.json()
    statuses = {i["status"] for i in items}
    assert "accepted" in statuses and "pending_review" in statuses
    item = next(i for i in items if i["status"] == "accepted")
    assert item["content"] == "Alice is allergic to peanuts."
    assert item["subject"] == "user" and item["source"] == "limitless"
    assert item["trust_score"] >= LINES["auto_approve_trust"]
    assert item["components"]["p"] == item["trust_score"] and item["components"]["model_version"]
    assert item["decision"] == "accepted"
    assert item["evidence"]["url"].endswith("#u-0")


def test_api_evidence_names_the_turns_in_the_gates_own_words(api, memories):
    """The memories API comes from the neutral gate: evidence names the turns it rests on, never a source's row."""
    items = api.get("/wearables/memories", {"source": "limitless", "date": DAY.isoformat()}).json()
    accepted = next(i for i in items if i["status"] == "accepted")
    assert accepted["evidence"]["turns"] == [0, 0]
    assert set(accepted["evidence"]) == {"quote", "url", "turns", "extractor"}


def test_api_limit_and_other_day(api, memories):
    assert len(api.get("/wearables/memories", {"date": DAY.isoformat(), "limit": 1}).json()) == 1
    assert api.get("/wearables/memories", {"date": "2026-01-01"}).json() == []


def test_api_rejects_bad_filters(api):
    assert api.get("/wearables/memories", {"source": "fitbit"}).status_code in (400, 404, 422)
    assert api.get("/wearables/memories", {"date": "yesterday"}).status_code == 422
    assert api.get("/wearables/memories", {"limit": 0}).status_code == 422


def test_api_never_shows_another_users_memories(other_api, memories):
    assert other_api.get("/wearables/memories", {"date": DAY.isoformat()}).json() == []


def test_api_requires_auth(client):
    assert client.get("/api/v1/wearables/memories").status_code == 401


def test_page_shows_memories_with_trust_bar_and_transcript_link(auth_client, memories):
    response = auth_client.get(reverse("wearables:memories"), {"date": DAY.isoformat()})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Alice is allergic to peanuts." in html
    assert 'class="badge accepted"' in html and "pending" in html
    assert f"/transcripts/?date={DAY.isoformat()}&amp;source=limitless#u-0" in html


def test_page_htmx_request_gets_the_partial(auth_client, memories):
    response = auth_client.get(reverse("wearables:memories"), {"date": DAY.isoformat()}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="wearables-memories"') and "<html" not in html


def test_page_requires_login(client):
    assert client.get(reverse("wearables:memories")).status_code == 302


def test_page_rejects_post(auth_client):
    assert auth_client.post(reverse("wearables:memories")).status_code == 405


def test_page_hides_other_users_memories(client, other_user, memories):
    client.force_login(other_user)
    html = client.get(reverse("wearables:memories"), {"date": DAY.isoformat()}).content.decode()
    assert "peanuts" not in html


def test_page_query_count_is_bounded(auth_client, memories, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        auth_client.get(reverse("wearables:memories"), {"date": DAY.isoformat()})


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_memories_page_in_a_browser(logged_in_page, user):
    build_day(user, "limitless", TURNS, **LINES)
    services.run_memory_pass(transcript=user.wearables_daytranscript_set.get())
    page = logged_in_page
    page.goto(f"/memories/?date={DAY.isoformat()}")
    assert page.locator(".memory").count() >= 2
    assert page.locator(".badge.accepted").first.is_visible()
    page.select_option("select[name=source]", "bee")
    page.wait_for_selector("#wearables-memories .empty")
    assert "No memories" in page.locator("#wearables-memories").inner_text()
