"""Forget through the public API: a fact, a source, a person. Each is a content-free commit; verify passes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ledger import services
from ledger.models import Commit, Entity, Evidence, Fact, Refusal
from tests.factories import EvidenceInFactory

pytestmark = pytest.mark.django_db


def claim(user, content, source, **kw):
    return services.propose_fact(
        owner=user, content=content, source_label=source, evidence=EvidenceInFactory(source_label=source), **kw
    )


def _forget_commit_is_content_free(user):
    last = Commit.objects.filter(owner=user).order_by("-seq").first()
    assert last.mutation_types == ["forget"]
    assert all(m.get("payload") in (None, {}) for m in last.mutations)


def test_forget_a_fact_by_api_leaves_a_refusal_for_every_source(user, api):
    fact = claim(user, "Alice sleeps with the window open in winter", "wearable:omi", status="accepted").fact
    resp = api.post(f"/ledger/facts/{fact.public_id}/forget", {})
    assert resp.status_code == 200 and resp.json()["verify_ok"]
    _forget_commit_is_content_free(user)
    assert not Fact.objects.filter(owner=user).exists()
    for source in ("wearable:omi", "agent:mcp", "chat:import"):
        assert claim(user, "Alice sleeps with the window open in winter", source).outcome == "refused"
    # a forgotten fact has no "change" exception: only lifting brings it back
    later = services.propose_fact(
        owner=user,
        content="Alice now sleeps with the window open in winter",
        source_label="agent:mcp",
        evidence=EvidenceInFactory(source_label="agent:mcp", observed_at=timezone.now() + timedelta(minutes=5)),
    )
    assert later.outcome == "refused"


def test_forget_a_source_by_api(user, api):
    only = claim(user, "Alice keeps a sourdough starter called Brutus", "chat:import", status="accepted").fact
    shared = claim(user, "Alice cycles to the harbour office", "wearable:bee", status="accepted").fact
    services.add_evidence(owner=user, fact=shared, evidence=EvidenceInFactory(source_label="chat:import"))
    sources = {s["label"]: s for s in api.get("/ledger/sources").json()}
    assert sources["chat:import"]["facts"] == 2
    resp = api.post(f"/ledger/sources/{sources['chat:import']['id']}/forget", {})
    assert resp.status_code == 200, resp.content
    assert resp.json()["verify_ok"] and resp.json()["facts"] == 1
    _forget_commit_is_content_free(user)
    assert not Fact.objects.filter(pk=only.pk).exists()
    assert Fact.objects.filter(pk=shared.pk).exists()
    assert not Evidence.objects.filter(owner=user, source_label="chat:import").exists()
    assert claim(user, "Alice keeps a sourdough starter called Brutus", "chat:import").outcome == "refused"
    assert api.post("/ledger/sources/0123456789abcdef/forget", {}).status_code == 404


def test_forget_a_person_by_api_is_owner_scoped_and_content_free(user, api, other_api):
    claim(user, "Henrike Maas teaches Alice to sail", "agent:mcp", subject="third_party", person="Henrike Maas")
    ent = Entity.objects.get(owner=user)
    assert other_api.post(f"/ledger/entities/{ent.public_id}/forget", {}).status_code == 404
    resp = api.post(f"/ledger/entities/{ent.public_id}/forget", {})
    assert resp.status_code == 200 and resp.json()["verify_ok"] and resp.json()["entities"] == 1
    _forget_commit_is_content_free(user)
    assert not Entity.objects.filter(owner=user).exists()
    assert Refusal.objects.filter(owner=user, kind="forgotten_entity").exists()
    again = claim(
        user, "Henrike Maas bought a new dinghy", "wearable:limitless", subject="third_party", person="Henrike Maas"
    )
    assert again.outcome == "refused"
    assert not Entity.objects.filter(owner=user).exists()


def test_the_fact_page_shows_the_earlier_rejection_beside_a_claim_that_came_back(user, auth_client):
    first = claim(user, "Alice drinks her coffee black", "wearable:omi").fact
    services.decide(owner=user, fact=first, status="rejected")
    back = services.propose_fact(
        owner=user,
        content="Alice switched to drinking her coffee black",
        source_label="agent:mcp",
        evidence=EvidenceInFactory(source_label="agent:mcp", quote="I switched to black coffee"),
    )
    assert back.previously_rejected
    page = auth_client.get(f"/memory/facts/{back.fact.public_id}/").content.decode()
    assert 'id="fact-previous-rejection"' in page and str(first.public_id) in page
