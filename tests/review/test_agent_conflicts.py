"""A claim an agent asks to remember (MCP ``remember``) that contradicts an accepted fact is a conflict everywhere
the review reads its bands: the Conflicts page and count, the API, the admin's band filter; rejecting it keeps
the fact. The browser side is in test_review_conflicts_browser.py."""

from __future__ import annotations

import pytest
from django.utils.html import escape

from ledger.models import Fact
from memory_site import mcp
from review import queries, services
from tests.factories import FactFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def disputed(user):
    """An accepted fact about a colleague's standing meeting, and an agent's claim that contradicts it."""
    held = FactFactory(owner=user, content="Wiremu's standup with the data team starts at 9am")
    out = mcp.call_tool(user, "remember", {"content": "Wiremu's standup with the data team starts at 10am"})
    assert out["outcome"] == "escalated", out
    return held, Fact.objects.get(public_id=out["id"])


def test_the_contradicting_claim_is_counted_and_listed_in_conflicts_not_in_the_queue(user, disputed):
    held, claim = disputed
    conflicts = queries.band_page(user, queries.Band.CONFLICTS)
    assert [i.fact.pk for i in conflicts.items] == [claim.pk]
    assert conflicts.items[0].held.pk == held.pk
    assert queries.band_page(user, queries.Band.QUEUE).total == 0
    assert queries.stats(user).by_band[queries.Band.CONFLICTS] == 1


def test_rejecting_the_claim_keeps_the_fact_it_contradicts(user, disputed):
    held, claim = disputed
    services.act(owner=user, fact=claim, action="reject")
    held.refresh_from_db()
    claim.refresh_from_db()
    assert (claim.status, held.status) == ("rejected", "accepted")
    assert queries.band_page(user, queries.Band.CONFLICTS).total == 0


def test_the_admin_band_filter_shows_it_under_conflicts(client, user, disputed):
    _held, claim = disputed
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    conflicts = client.get("/admin/ledger/fact/", {"band": "conflicts"}).content.decode()
    queue = client.get("/admin/ledger/fact/", {"band": "queue"}).content.decode()
    assert escape(claim.content) in conflicts and escape(claim.content) not in queue


def test_the_api_lists_it_in_the_conflicts_band(api, disputed):
    held, claim = disputed
    body = api.get("/review/", {"band": "conflicts"}).json()
    assert body["count"] == 1 and body["items"][0]["id"] == str(claim.public_id)
    assert body["items"][0]["conflict_with"]["id"] == str(held.public_id)
