"""The context block through the API: gate, identity, policy, budget, usage feedback, validation, isolation."""

from __future__ import annotations

import pytest

from ledger import services as ledger_services
from ledger.forget import services as forget_services
from ledger.models import PinnedFact
from ledger.recall import services
from ledger.recall.lexical import count_tokens
from ledger.recall.models import Usage
from ledger.services import layers
from tests.factories import ConversationFactory, EpisodeFactory, FactFactory, UtteranceFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_recall")]


@pytest.fixture
def memories(user):
    layers.set_identity_override(owner=user, key="name", value="Alice Example")
    ledger_services.ensure_entity(owner=user, name="Maya")
    accepted = FactFactory(owner=user, content="Maya is Alice's sister and lives in Lisbon", status="accepted")
    pending = FactFactory(owner=user, content="Maya is moving to Porto next spring", pending=True)
    rejected = FactFactory(owner=user, content="Maya works at the Lisbon aquarium", status="accepted")
    ledger_services.decide(owner=user, fact=rejected, status="rejected", reason="wrong")
    pins = {f.content: layers.pin_fact(owner=user, fact=f) for f in (accepted, pending, rejected)}
    return pins


def test_recall_routes_a_known_entity_to_pinned_facts_with_policy(api, memories):
    resp = api.post("/memory/recall", {"query": "Where does Maya live?"})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["gate"]["route"] == "pinned"
    assert body["gate"]["entities"] == ["Maya"]
    assert body["block"].startswith("## Identity\n- name: Alice Example")
    texts = [i["text"] for i in body["items"]]
    assert "Maya is Alice's sister and lives in Lisbon" in texts
    assert "Maya works at the Lisbon aquarium" not in texts and "aquarium" not in body["block"]
    pending = next(i for i in body["items"] if i["text"].startswith("Maya is moving"))
    assert pending["permitted_uses"] == ["answers_with_disclaimer"]
    assert "Unconfirmed: not yet reviewed." in pending["disclaimers"]
    assert "Unconfirmed: not yet reviewed." in body["block"]
    assert body["tokens"] == count_tokens(body["block"]) <= 800


def test_recall_without_a_memory_cue_returns_identity_only(api, memories):
    body = api.post("/memory/recall", {"query": "What is the boiling point of water?"}).json()
    assert body["gate"]["route"] == "none"
    assert [i["kind"] for i in body["items"]] == ["identity"]


def test_recall_who_am_i_gives_identity(api, memories):
    body = api.post("/memory/recall", {"query": "who am I?"}).json()
    assert body["gate"]["route"] == "identity"
    assert "name: Alice Example" in body["block"]


def test_recall_exact_words_reads_the_transcript(api, user):
    conv = ConversationFactory(transcript__source__owner=user)
    UtteranceFactory(conversation=conv, index=0, speaker_name="Maya", text="The lease ends in March, not April.")
    body = api.post("/memory/recall", {"query": "What were Maya's exact words about the lease?"}).json()
    assert body["gate"]["route"] == "transcript"
    assert body["items"][0]["text"] == "Maya: The lease ends in March, not April."
    assert body["items"][0]["source_ref"].startswith("transcript:")


def test_recall_episodes_for_we_discussed(api, user):
    EpisodeFactory(owner=user, title="Budget call", summary="We discussed the renovation budget with the contractor.")
    body = api.post("/memory/recall", {"query": "What did we discuss about the renovation budget?"}).json()
    assert body["gate"]["route"] == "episodes"
    assert body["items"][0]["kind"] == "episode"


def test_recall_budget_is_respected_and_validated(api, user):
    ledger_services.ensure_entity(owner=user, name="Maya")
    for n in range(60):
        f = FactFactory(
            owner=user, content=f"Maya mentioned detail number {n} about her garden and the tomatoes", status="accepted"
        )
        layers.pin_fact(owner=user, fact=f)
    body = api.post("/memory/recall", {"query": "What about Maya's garden?", "budget_tokens": 100}).json()
    assert 0 < len(body["items"]) < 20
    assert body["tokens"] == count_tokens(body["block"]) <= 100
    for bad in (99, 4001, "lots"):
        resp = api.post("/memory/recall", {"query": "x", "budget_tokens": bad})
        assert resp.status_code == 422
        assert "budget_tokens" in resp.json()["detail"]
    assert api.post("/memory/recall", {"query": ""}).status_code == 422
    assert api.post("/memory/recall", {"query": "x", "budget_tokens": None}).json()["budget_tokens"] == 800
    assert api.post("/memory/recall", {"query": "x", "scope": "everything"}).status_code == 422


def test_recall_bumps_usage_of_surfaced_items_once_per_cache_window(api, user, memories, run_queued_usage):
    api.post("/memory/recall", {"query": "Where does Maya live?"})
    pinned = PinnedFact.objects.get(fact__content="Maya is Alice's sister and lives in Lisbon")
    # Feedback is off the request path: the call only queued it.
    assert pinned.use_count == 0 and not Usage.objects.filter(owner=user).exists()
    assert run_queued_usage() == 1
    pinned.refresh_from_db()
    assert pinned.use_count == 1 and pinned.last_used_at is not None
    assert Usage.objects.get(owner=user, kind="pinned", ref_id=pinned.pk).use_count == 1
    api.post("/memory/recall", {"query": "Where does Maya live?"})  # cached for 10 s: not counted again
    assert run_queued_usage() == 0
    pinned.refresh_from_db()
    assert pinned.use_count == 1


def test_queued_usage_skips_rows_forgotten_before_the_worker_ran(api, user, memories, run_queued_usage):
    api.post("/memory/recall", {"query": "Where does Maya live?"})
    pinned = PinnedFact.objects.get(fact__content="Maya is Alice's sister and lives in Lisbon")
    forget_services.forget(owner=user, fact=pinned.fact)
    assert run_queued_usage() == 1
    assert not Usage.objects.filter(owner=user, kind="pinned", ref_id=pinned.pk).exists()


def test_recall_is_owner_isolated(api, other_api, memories):
    body = other_api.post("/memory/recall", {"query": "Where does Maya live?", "scope": "all"}).json()
    assert body["items"] == [] and body["block"] == ""
    assert other_api.get("/memory/search", {"q": "Maya"}).json()["items"] == []


def test_search_endpoint_filters_by_scope_and_validates(api, user, memories):
    resp = api.get("/memory/search", {"q": "Maya Lisbon", "scope": "pinned", "limit": 5})
    assert resp.status_code == 200
    items = resp.json()["items"]
    assert items and {i["kind"] for i in items} == {"pinned"}
    assert all("aquarium" not in i["text"] for i in items)
    assert api.get("/memory/search", {"q": "x", "limit": 0}).status_code == 422
    assert api.get("/memory/search", {"q": "x", "scope": "nope"}).status_code == 422
    assert api.get("/memory/search", {}).status_code == 422


def test_recall_requires_authentication(client):
    assert client.post("/api/v1/memory/recall", {"query": "x"}, content_type="application/json").status_code == 401


def test_service_cache_returns_the_same_block(user, memories):
    first = services.recall_context(owner=user, query="Where does Maya live?")
    second = services.recall_context(owner=user, query="Where does Maya live?")
    assert second.block == first.block and [i.id for i in second.items] == [i.id for i in first.items]


def test_recall_falls_back_to_facts_when_nothing_is_pinned_about_the_entity(api, user):
    ledger_services.ensure_entity(owner=user, name="Sam")
    FactFactory(owner=user, content="Sam coaches the under-12 football team", status="accepted")
    body = api.post("/memory/recall", {"query": "What does Sam do on weekends? football?"}).json()
    assert body["gate"]["route"] == "pinned"
    assert "## Facts" in body["block"] and "under-12 football" in body["block"]
