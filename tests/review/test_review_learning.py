"""Every review decision teaches the gate: a labelled example per decision, refit on demand from the page and
the API, and the Review page says what the gate has learned."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from distill import learning
from distill.models import OwnerAdjustment, ReviewExample

from .conftest import make_pending

pytestmark = pytest.mark.django_db

GATE = {"p_shipped": 0.58, "family": "work:tend_lighthouse", "subject_type": "owner", "accept_line": 0.7}


def gate_item(owner, content, **gate):
    """A queued memory as the gate writes it: its evidence carries the model's p and the learning key."""
    components = {"extraction_confidence": 0.8, "source_trust": 0.8, **GATE, **gate}
    return make_pending(owner, content, trust=components["p_shipped"], details={"components": components})


def test_every_decision_becomes_a_labelled_example(user, api):
    items = {
        "accept": gate_item(user, "Alice tends the lighthouse at Skerryvore."),
        "reject": gate_item(user, "Alice owns a submarine."),
        "edit": gate_item(user, "Alice tends the lighthouse on Fair Isle."),
        "not_about_me": gate_item(user, "Alice breeds Shetland ponies."),
        "snooze": gate_item(user, "Alice will paint the foghorn red."),
    }
    extra = {
        "edit": {"edit": "Alice tends the lighthouse on Fair Isle in winter."},
        "not_about_me": {"subject": "Ingrid"},
    }
    extra["snooze"] = {"snooze_until": "2099-01-01"}
    for action, fact in items.items():
        answer = api.post("/review/decide", {"item": str(fact.public_id), "action": action, **extra.get(action, {})})
        assert answer.status_code == 200, answer.json()
    examples = {e.decision: e for e in ReviewExample.objects.filter(owner=user)}
    assert len(examples) == 5
    assert {d: e.label for d, e in examples.items()} == {
        "accept": 1,
        "reject": 0,
        "edit": 1,
        "not_about_me": 0,
        "snooze": None,
    }
    accepted = examples["accept"]
    assert accepted.family == "work:tend_lighthouse" and accepted.subject_type == "owner"
    assert accepted.p_model == pytest.approx(0.58) and accepted.fact_public_id == items["accept"].public_id
    assert accepted.pattern == "I tend lighthouse …"


def test_a_decision_on_a_claim_a_rule_capped_is_recorded_as_capped(user, api):
    """The guard must know that no line ever accepts such a claim (a quote, an uncertain speaker)."""
    capped = gate_item(user, "Alice said the foghorn is haunted.", p_shipped=0.93, capped=True)
    plain = gate_item(user, "Alice tends the lighthouse at Skerryvore.")
    for fact in (capped, plain):
        assert api.post("/review/decide", {"item": str(fact.public_id), "action": "reject"}).status_code == 200
    recorded = {e.fact_public_id: e.capped for e in ReviewExample.objects.filter(owner=user)}
    assert recorded == {capped.public_id: True, plain.public_id: False}


def test_undo_withdraws_the_example(user, api):
    fact = gate_item(user, "Alice tends the lighthouse at Skerryvore.")
    api.post("/review/decide", {"item": str(fact.public_id), "action": "accept"})
    assert api.post("/review/undo").status_code == 200
    example = ReviewExample.objects.get(owner=user)
    assert example.undone_at is not None and learning.labelled(user) == []


def test_rescue_from_the_dropped_band_is_recorded_without_a_verdict(user, api):
    fact = gate_item(user, "Alice restores lighthouse lenses.")
    from ledger import services as ledger_services

    ledger_services.decide(owner=user, fact=fact, status="dropped", reason="over daily review budget: rank 21")
    assert api.post("/review/decide", {"item": str(fact.public_id), "action": "rescue"}).status_code == 200
    assert ReviewExample.objects.get(owner=user).label is None


def decide_many(api, owner, n, action="accept"):
    for i in range(n):
        fact = gate_item(owner, f"Alice tends lighthouse number {i} on the northern isles.")
        assert api.post("/review/decide", {"item": str(fact.public_id), "action": action}).status_code == 200


def test_refit_waits_for_the_floor_then_says_what_it_learned(user, api):
    decide_many(api, user, learning.FLOOR - 1)
    early = api.post("/review/learning/refit").json()
    assert early["status"] == "learning" and early["examples"] == learning.FLOOR - 1 and early["rules"] == []
    decide_many(api, user, 1)
    assert api.get("/review/learning").json()["decided_since_refit"] == 1
    found = api.post("/review/learning/refit").json()
    assert found["status"] == "active" and found["examples"] == learning.FLOOR
    sentences = [r["sentence"] for r in found["rules"]]
    assert f"accepts 'I tend lighthouse …' from you without asking since {learning.FLOOR} decisions" in sentences


def test_learning_is_private_to_its_owner(user, api, other_api):
    decide_many(api, user, learning.FLOOR)
    api.post("/review/learning/refit")
    theirs = other_api.get("/review/learning").json()
    assert theirs["status"] == "learning" and theirs["examples"] == 0 and theirs["rules"] == []


def test_learning_api_needs_a_token(client):
    assert client.get("/api/v1/review/learning").status_code == 401
    assert client.post("/api/v1/review/learning/refit").status_code == 401


def test_review_page_refit_button_answers_with_the_learned_panel(auth_client, user, api):
    decide_many(api, user, learning.FLOOR)
    page = auth_client.get("/review/")
    assert b"What the gate has learned from you" in page.content and b"Still learning" in page.content
    answer = auth_client.post("/review/learning/refit/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 200 and b'id="review-learned"' in answer.content
    assert f"without asking since {learning.FLOOR} decisions".encode() in answer.content
    assert auth_client.get("/review/learning/refit/").status_code == 405
    assert OwnerAdjustment.objects.get(owner=user).is_active


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_review_page_shows_what_the_gate_learned(logged_in_page, user):
    from review import services

    for i in range(learning.FLOOR):
        fact = gate_item(user, f"Alice tends lighthouse number {i} on the northern isles.")
        services.act(owner=user, fact=fact, action="accept")
    page = logged_in_page
    page.goto("/review/")
    panel = page.locator("#review-learned")
    expect(panel).to_contain_text("Still learning")
    panel.get_by_role("button", name="Refit now").click()
    expect(page.locator("#review-learned")).to_contain_text(
        f"accepts 'I tend lighthouse …' from you without asking since {learning.FLOOR} decisions"
    )
    page.reload()
    expect(page.locator("#review-learned")).to_contain_text(f"without asking since {learning.FLOOR} decisions")


def test_admin_lists_examples_and_refits_an_adjustment(client, user, api):
    from tests.factories import UserFactory

    decide_many(api, user, learning.FLOOR)
    learning.refit(owner=user)
    OwnerAdjustment.objects.filter(owner=user).update(status=OwnerAdjustment.Status.LEARNING)
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    assert b"work:tend_lighthouse" in client.get("/admin/distill/reviewexample/").content
    adj = OwnerAdjustment.objects.get(owner=user)
    answer = client.post("/admin/distill/owneradjustment/", {"action": "refit", "_selected_action": [adj.pk]})
    assert answer.status_code == 302
    assert OwnerAdjustment.objects.get(owner=user).is_active
