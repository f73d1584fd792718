"""A device's memory settings live in the trust gate's policy (distill.GatePolicy "wearable:<kind>")."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from distill.models import GatePolicy
from distill.policies import get_policy


@pytest.mark.django_db
def test_the_sources_api_reads_and_writes_the_gate_policy_under_the_same_names(api, user):
    r = api.put(
        "/wearables/sources/bee", {"memory_mode": "review", "source_trust": 0.55, "import_native_memories": "off"}
    )
    assert r.status_code == 200
    body = r.json()
    assert (body["memory_mode"], body["source_trust"], body["import_native_memories"]) == ("review", 0.55, "off")
    gate = get_policy(user, "wearable:bee")
    assert (gate.mode, gate.source_trust, gate.native_mode) == ("review", 0.55, "off")
    listed = {s["kind"]: s for s in api.get("/wearables/sources").json()}
    assert listed["bee"]["memory_mode"] == "review" and listed["omi"]["memory_mode"] == "smart"


@pytest.mark.django_db
def test_a_refused_policy_change_saves_nothing(api, user):
    r = api.put("/wearables/sources/omi", {"enabled": True, "review_trust": 0.9, "auto_approve_trust": 0.5})
    assert r.status_code == 422 and "review_trust must not be above" in r.json()["detail"]
    assert get_policy(user, "wearable:omi").review_trust == 0.45


@pytest.mark.django_db(transaction=True)
def test_migrating_copies_each_sources_trust_settings_into_its_policy(django_user_model):
    user = django_user_model.objects.create_user(username="dora", password="x")
    executor = MigrationExecutor(connection)
    before = [("wearables", "0003_conversation_elided_spans")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("wearables", "Source")
    old.objects.create(
        owner_id=user.pk, kind="omi", memory_mode="review", source_trust=0.65, import_native_memories="off"
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    gate = GatePolicy.objects.get(owner=user, source_key="wearable:omi")
    assert (gate.mode, gate.source_trust, gate.native_mode, gate.review_trust) == ("review", 0.65, "off", 0.45)
