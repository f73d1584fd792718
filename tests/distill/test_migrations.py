"""Memories written before distill existed (keyed by wearables tags) get explicit Claim keys on upgrade."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from distill.extraction.base import content_hash
from distill.models import Claim
from ledger import services as ledger


@pytest.mark.django_db(transaction=True)
def test_tagged_wearable_memories_become_claims_and_a_rerun_matches_them(django_user_model):
    user = django_user_model.objects.create_user(username="erin", password="x")
    executor = MigrationExecutor(connection)
    executor.migrate([("distill", "0001_initial")])
    day = ledger.propose_fact(
        owner=user,
        content="Erin is allergic to shellfish.",
        tags=["wearable", "wearable:omi", "wearable-day:2026-02-03"],
        source_label="wearable:omi",
        status="accepted",
    ).fact
    native = ledger.propose_fact(
        owner=user,
        content="Erin keeps bees on the roof.",
        tags=["wearable", "wearable:bee", "wearable-native:bee"],
        source_label="wearable:bee",
        status="accepted",
    ).fact
    ledger.propose_fact(owner=user, content="Erin likes rye bread.", tags=["agent"], status="accepted")
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    claims = {c.fact_id: c for c in Claim.objects.owned_by(user)}
    assert set(claims) == {day.pk, native.pk}
    c = claims[day.pk]
    assert (c.source_key, c.scope_key, c.day_key) == ("wearable:omi", "wearable:omi:2026-02-03", "2026-02-03")
    assert c.claim_hash == content_hash(day.content) and c.origin == "extracted"
    n = claims[native.pk]
    assert (n.source_key, n.day_key, n.origin) == ("wearable:bee", "", "native")
