"""Forgetting a fact also removes recall's vectors, usage counts and any cached context block quoting it."""

from __future__ import annotations

import pytest
from django.db import connection

from ledger import services as ledger_services
from ledger.forget import services as forget_services
from ledger.recall import services
from ledger.recall.models import Embedding, Usage
from ledger.recall.providers import providers_for
from ledger.services import layers
from tests.factories import FactFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_recall")]


def test_forget_removes_vectors_usage_and_cached_blocks(user, run_queued_usage):
    ledger_services.ensure_entity(owner=user, name="Ravi")
    fact = FactFactory(owner=user, content="Ravi keeps a boat called Seaglass", status="accepted")
    pinned = layers.pin_fact(owner=user, fact=fact)
    for provider in providers_for("all"):
        services.embed_pending(owner=user, provider=provider)
    result = services.recall_context(owner=user, query="What is Ravi's boat called?")
    assert "Seaglass" in result.block
    assert Embedding.objects.owned_by(user).filter(kind__in=["fact", "pinned"]).count() == 2
    assert run_queued_usage() == 1
    assert Usage.objects.owned_by(user).exists()

    forget_services.forget(owner=user, fact=fact)

    assert not Embedding.objects.owned_by(user).filter(kind__in=["fact", "pinned"]).exists()
    assert not Usage.objects.owned_by(user).filter(ref_id__in=[fact.pk, pinned.pk]).exists()
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM almanac_cache WHERE cache_key LIKE %s", ["%recall:%"])
        assert cur.fetchone()[0] == 0
    assert "Seaglass" not in services.recall_context(owner=user, query="What is Ravi's boat called?").block
