"""The Refusals and People pages: server-rendered views and headless Chromium."""

from __future__ import annotations

import pytest

from ledger import services
from ledger.models import Entity, Fact, Refusal
from tests.factories import EvidenceInFactory


def _rejected(user, content="Alice collects antique barometers"):
    fact = services.propose_fact(
        owner=user,
        content=content,
        source_label="wearable:omi",
        evidence=EvidenceInFactory(source_label="wearable:omi"),
    ).fact
    services.decide(owner=user, fact=fact, status="rejected")
    return fact


@pytest.mark.django_db
def test_refusals_page_lists_a_refusal_with_its_counter_and_lifts_it(auth_client, user):
    fact = _rejected(user)
    services.propose_fact(owner=user, content="Alice collects antique barometers", source_label="agent:mcp")
    resp = auth_client.get("/memory/refusals/")
    assert resp.status_code == 200
    body = resp.content.decode()
    assert "1</strong> re-extraction refused" in body and str(fact.public_id) in body
    assert "barometer" not in body.lower()  # the page shows hashes' metadata, never the refused text
    refusal = Refusal.objects.get(owner=user)
    resp = auth_client.post(
        f"/memory/refusals/{refusal.public_id}/lift/", {"reason": "true after all"}, HTTP_HX_REQUEST="true"
    )
    assert resp.status_code == 200 and "Refusal lifted" in resp.content.decode()
    assert Refusal.objects.get(pk=refusal.pk).lifted_at is not None
    again = auth_client.post(f"/memory/refusals/{refusal.public_id}/lift/", {}, HTTP_HX_REQUEST="true")
    assert again.status_code == 422


@pytest.mark.django_db
def test_lifting_needs_the_owner(auth_client, other_user):
    fact = _rejected(other_user)
    refusal = Refusal.objects.get(owner=other_user, fact_public_id=fact.public_id)
    assert auth_client.post(f"/memory/refusals/{refusal.public_id}/lift/", {}).status_code == 404


@pytest.mark.django_db
def test_forgetting_a_person_needs_the_confirmation(auth_client, user):
    ent = services.ensure_entity(owner=user, name="Bertil Ekdahl")
    resp = auth_client.post(f"/memory/people/{ent.public_id}/forget/", {}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 422 and "Tick the box" in resp.content.decode()
    assert Entity.objects.filter(pk=ent.pk).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_people_page_forgets_a_person_after_confirmation(logged_in_page, user):
    services.propose_fact(
        owner=user,
        content="Bertil Ekdahl restores sailing boats",
        subject="third_party",
        person="Bertil Ekdahl",
        status="accepted",
        source_label="agent:mcp",
        evidence=EvidenceInFactory(source_label="agent:mcp"),
    )
    page = logged_in_page
    page.goto("/memory/")
    page.click("#memory-links >> text=People")
    page.wait_for_selector("#people-table >> text=Bertil Ekdahl")
    page.once("dialog", lambda d: d.accept())
    page.check("#people-table input[name=confirm]")
    page.click("#people-table button:has-text('Forget')")
    page.wait_for_selector("#forget-report")
    assert "Bertil" not in page.inner_text("#people-table")
    assert not Fact.objects.filter(owner=user).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_refusals_page_lifts_a_refusal_in_the_browser(logged_in_page, user):
    _rejected(user)
    page = logged_in_page
    page.goto("/memory/")
    page.click("#memory-links >> text=Refusals")
    page.wait_for_selector("#refusal-table >> text=Rejected")
    page.once("dialog", lambda d: d.accept())
    page.click("#refusal-table button:has-text('Lift')")
    page.wait_for_selector("text=Refusal lifted")
    assert Refusal.objects.get(owner=user).lifted_at is not None
