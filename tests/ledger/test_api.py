"""/api/v1/ledger/: facts with the policy applied, detail, commits (409), verify, identity, owner isolation."""

from __future__ import annotations

import pytest

from ledger import services
from ledger.models import Commit, Fact
from ledger.services import layers
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db


def test_facts_list_returns_permitted_uses_and_disclaimers(api, user):
    FactFactory(owner=user, content="Drinks oat milk")
    FactFactory(owner=user, content="Might own a kayak", pending=True)
    r = api.get("/ledger/facts")
    assert r.status_code == 200
    items = {i["content"]: i for i in r.json()["items"]}
    assert items["Drinks oat milk"]["permitted_uses"] == ["answers", "actions"]
    assert items["Might own a kayak"]["permitted_uses"] == ["answers_with_disclaimer"]
    assert items["Might own a kayak"]["disclaimers"]


def test_facts_without_permitted_uses_come_back_without_content(api, user):
    fact = FactFactory(owner=user, content="Secretly hates cilantro")
    services.retract(owner=user, fact=fact)
    [item] = api.get("/ledger/facts").json()["items"]
    assert item["status"] == "retracted" and item["content"] == "" and item["permitted_uses"] == []
    detail = api.get(f"/ledger/facts/{fact.public_id}").json()
    assert detail["content"] == "" and all(e["quote"] == "" for e in detail["evidence"])


def test_use_filter_returns_only_licensed_facts(api, user):
    FactFactory(owner=user, content="Accepted one")
    FactFactory(owner=user, content="Pending one", pending=True)
    answers = api.get("/ledger/facts", {"use": "answers"}).json()["items"]
    assert [i["content"] for i in answers] == ["Accepted one"]


def test_facts_filters(api, user):
    FactFactory(owner=user, content="Tagged", tags=["trip"], source_label="wearable:7")
    FactFactory(owner=user, content="About Maya", subject="third_party", person="Maya")
    FactFactory(owner=user, content="Rejected", status="rejected")
    assert [i["content"] for i in api.get("/ledger/facts", {"tag": "trip"}).json()["items"]] == ["Tagged"]
    assert [i["content"] for i in api.get("/ledger/facts", {"source": "wearable:7"}).json()["items"]] == ["Tagged"]
    assert [i["content"] for i in api.get("/ledger/facts", {"subject": "third_party"}).json()["items"]] == [
        "About Maya"
    ]
    assert api.get("/ledger/facts", {"status": "rejected"}).json()["count"] == 1
    assert api.get("/ledger/facts", {"status": "bogus"}).status_code == 400
    assert api.get("/ledger/facts", {"valid_at": "not a date"}).status_code == 422


def test_facts_known_at_answers_as_of(api, user):
    FactFactory(owner=user, content="Known now")
    assert api.get("/ledger/facts", {"known_at": "2000-01-01T00:00:00Z"}).json()["count"] == 0
    assert api.get("/ledger/facts", {"known_at": "2100-01-01T00:00:00Z"}).json()["count"] == 1


def test_fact_detail_has_evidence_and_history(api, user):
    fact = FactFactory(owner=user, content="Plays bass", evidence=[EvidenceInFactory(quote="I play bass")])
    services.decide(owner=user, fact=fact, status="pending_review", reason="double-check")
    body = api.get(f"/ledger/facts/{fact.public_id}").json()
    assert body["evidence"][0]["quote"] == "I play bass"
    assert [h["mutation_types"] for h in body["history"]] == [["add_fact", "add_evidence"], ["set_status"]]


def test_decision_endpoint(api, user):
    fact = FactFactory(owner=user, content="Plays bass", pending=True)
    r = api.post(f"/ledger/facts/{fact.public_id}/decision", {"status": "accepted", "reason": "looks right"})
    assert r.status_code == 200 and r.json()["status"] == "accepted"
    assert api.post(f"/ledger/facts/{fact.public_id}/decision", {"status": "maybe"}).status_code == 400


def _add(content):
    return {
        "type": "add_fact",
        "subject_kind": "user",
        "status": "accepted",
        "capture_confidence": 0.8,
        "veracity": 0.7,
        "payload": {"content": content},
    }


def test_post_commits_with_expected_head(api, user):
    head = api.get("/ledger/head").json()
    assert head == {"head": "", "length": 0}
    body = {
        "expected_head": "",
        "mutations": [
            _add("via api"),
            {
                "type": "add_evidence",
                "fact_id": "$0",
                "source_type": "manual",
                "capture_confidence": 1,
                "payload": {"quote": "typed"},
            },
        ],
    }
    r = api.post("/ledger/commits", body)
    assert r.status_code == 201 and r.json()["applied"] is True
    fact_id = r.json()["created_ids"][0]
    assert Fact.objects.get(public_id=fact_id).evidence.get().quote == "typed"
    again = api.post("/ledger/commits", body)
    assert again.status_code == 200 and again.json()["applied"] is False
    conflict = api.post("/ledger/commits", {"expected_head": "", "mutations": [_add("other")]})
    assert conflict.status_code == 409
    assert conflict.json()["current"] == r.json()["commit_id"] and conflict.json()["expected"] == ""
    assert Commit.objects.filter(owner=user).count() == 1


def test_post_commits_rejects_bad_mutations(api, user):
    r = api.post("/ledger/commits", {"mutations": [{"type": "nope"}]})
    assert r.status_code == 400 and "unknown type" in r.json()["detail"]
    assert api.post("/ledger/commits", {"mutations": "x"}).status_code == 422
    assert api.post("/ledger/commits", {"mutations": []}).status_code == 400


def test_verify_endpoint(api, user):
    FactFactory(owner=user, content="one")
    assert api.get("/ledger/verify").json()["ok"] is True
    Commit.objects.filter(owner=user).update(mutations=[{"type": "add_fact"}])
    body = api.get("/ledger/verify").json()
    assert body["ok"] is False and body["first_bad_seq"] == 1


def test_entities_endpoint(api, user):
    FactFactory(owner=user, content="Maya swims", subject="third_party", person="Maya Lopez")
    [ent] = api.get("/ledger/entities").json()
    assert ent["name"] == "Maya Lopez" and ent["fact_count"] == 1


def test_identity_endpoints(api, user):
    assert api.put("/ledger/identity", {"key": "name", "value": "Dana"}).status_code == 200
    assert api.get("/ledger/identity").json()[0]["value"] == "Dana"
    assert api.put("/ledger/identity", {"key": "", "value": "x"}).status_code == 422
    assert api.delete("/ledger/identity/name").status_code == 204
    assert api.delete("/ledger/identity/name").status_code == 404


def test_owner_isolation(api, other_api, user, other_user):
    mine = FactFactory(owner=user, content="Alice's fact", subject="third_party", person="Carol")
    layers.set_identity_override(owner=user, key="name", value="Alice")
    assert other_api.get("/ledger/facts").json()["count"] == 0
    assert other_api.get(f"/ledger/facts/{mine.public_id}").status_code == 404
    assert other_api.post(f"/ledger/facts/{mine.public_id}/decision", {"status": "rejected"}).status_code == 404
    assert other_api.get("/ledger/entities").json() == []
    assert other_api.get("/ledger/identity").json() == []
    assert other_api.get("/ledger/head").json()["length"] == 0
    assert other_api.get("/ledger/verify").json()["length"] == 0
    bad = {"type": "set_status", "fact_id": str(mine.public_id), "status": "rejected"}
    assert other_api.post("/ledger/commits", {"mutations": [bad]}).status_code == 400
    assert Fact.objects.get(pk=mine.pk).status == "accepted"


def test_requires_authentication(client):
    assert client.get("/api/v1/ledger/facts").status_code == 401
