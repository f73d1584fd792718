"""Memory page: access, HTMX partials, decisions, forget, identity editor, query-count guard."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ledger import services
from ledger.models import Fact, IdentityOverride
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def test_memory_requires_login(client):
    r = client.get(reverse("ledger:memory"))
    assert r.status_code == 302 and "/login" in r["Location"]


def test_memory_lists_facts_with_status_and_confidence_badges(auth_client, user):
    FactFactory(owner=user, content="Drinks oat milk", veracity=0.8, capture_confidence=0.45)
    body = auth_client.get(reverse("ledger:memory")).content.decode()
    assert "Drinks oat milk" in body
    assert 'class="badge accepted"' in body and "high" in body and 'class="badge bad"' in body
    assert "Identity" in body


def test_memory_list_partial_for_htmx(auth_client, user):
    FactFactory(owner=user, content="Pending thing", pending=True)
    r = auth_client.get(reverse("ledger:memory"), {"tab": "pending"}, HTTP_HX_TARGET="ledger-facts", **HX)
    body = r.content.decode()
    assert "Pending thing" in body and "<html" not in body


def test_rejected_facts_are_listed_without_their_content_where_no_use_is_permitted(auth_client, user):
    fact = FactFactory(owner=user, content="Secret words")
    services.retract(owner=user, fact=fact)
    body = auth_client.get(reverse("ledger:memory"), {"tab": "rejected"}).content.decode()
    assert "Secret words" not in body and "content withheld" in body


def test_memory_list_query_count_does_not_grow_with_facts(auth_client, user, django_assert_max_num_queries):
    for i in range(12):
        FactFactory(owner=user, content=f"fact {i}", subject="third_party", person=f"Person {i % 3}")
    with django_assert_max_num_queries(12):
        auth_client.get(reverse("ledger:memory"))


def test_fact_detail_shows_evidence_linking_to_source_and_timeline(auth_client, user):
    ev = EvidenceInFactory(quote="I started at Initech", source_ref={"url": "/transcripts/?date=2026-06-01#u-3"})
    fact = FactFactory(owner=user, content="Works at Initech", evidence=[ev])
    url = reverse("ledger:fact", args=[fact.public_id])
    partial = auth_client.get(url, **HX).content.decode()
    assert 'href="/transcripts/?date=2026-06-01#u-3"' in partial and "I started at Initech" in partial
    assert "Validity timeline" in partial and "<html" not in partial
    assert "<html" in auth_client.get(url).content.decode()


def test_fact_detail_of_another_user_is_404(auth_client, other_user):
    theirs = FactFactory(owner=other_user, content="Bob's")
    assert auth_client.get(reverse("ledger:fact", args=[theirs.public_id])).status_code == 404
    assert (
        auth_client.post(reverse("ledger:fact-decision", args=[theirs.public_id]), {"action": "rejected"}).status_code
        == 404
    )
    assert auth_client.post(reverse("ledger:fact-forget", args=[theirs.public_id])).status_code == 404
    assert Fact.objects.filter(pk=theirs.pk, status="accepted").exists()


def test_decision_buttons(auth_client, user):
    fact = FactFactory(owner=user, content="Plays bass", pending=True)
    url = reverse("ledger:fact-decision", args=[fact.public_id])
    r = auth_client.post(url, {"action": "accepted"}, **HX)
    assert r.status_code == 200 and 'id="fact-status">accepted' in r.content.decode()
    r = auth_client.post(url, {"action": "retract"}, **HX)
    assert Fact.objects.get(pk=fact.pk).status == "retracted"
    r = auth_client.post(url, {"action": "explode"}, **HX)
    assert r.status_code == 422 and "Choose accept" in r.content.decode()


def test_decision_requires_post(auth_client, user):
    fact = FactFactory(owner=user, content="Plays bass")
    assert auth_client.get(reverse("ledger:fact-decision", args=[fact.public_id])).status_code == 405


def test_forget_button_removes_the_fact(auth_client, user):
    fact = FactFactory(owner=user, content="Forget me")
    r = auth_client.post(reverse("ledger:fact-forget", args=[fact.public_id]), **HX)
    assert r.status_code == 200 and r["HX-Redirect"] == "/memory/"
    assert not Fact.objects.filter(pk=fact.pk).exists()


def test_identity_editor(auth_client, user):
    r = auth_client.post(reverse("ledger:identity-save"), {"key": "pronouns", "value": "she/her"}, **HX)
    assert r.status_code == 200 and "she/her" in r.content.decode()
    r = auth_client.post(reverse("ledger:identity-save"), {"key": "", "value": ""}, **HX)
    assert r.status_code == 422 and "required" in r.content.decode()
    r = auth_client.post(reverse("ledger:identity-delete", args=["pronouns"]), **HX)
    assert r.status_code == 200 and not IdentityOverride.objects.filter(owner=user).exists()


def test_memory_search_filters_the_list(auth_client, user):
    FactFactory(owner=user, content="Plays the cello")
    FactFactory(owner=user, content="Drinks oat milk")
    r = auth_client.get(reverse("ledger:memory"), {"q": "cello"}, HTTP_HX_TARGET="ledger-facts", **HX)
    body = r.content.decode()
    assert "Plays the cello" in body and "oat milk" not in body


def test_identity_narrative_is_derived_from_accepted_facts_about_the_user(auth_client, user):
    FactFactory(owner=user, content="Lives in Denver", importance="high")
    FactFactory(owner=user, content="Maybe owns a boat", pending=True)
    FactFactory(owner=user, content="Maya likes tea", subject="third_party", person="Maya")
    r = auth_client.post(reverse("ledger:identity-narrative"), **HX)
    body = r.content.decode()
    assert r.status_code == 200 and "Lives in Denver." in body
    assert "boat" not in body and "Maya" not in body
