"""Forget leaves no trace of the content in any column of any table, and the chain still verifies."""

from __future__ import annotations

import pytest
from django.db import connection

from ledger import chain, services
from ledger.forget import services as forget_services
from ledger.models import Entity, Episode, Evidence, Fact, FactVersion, PinnedFact
from ledger.services import layers
from tests.factories import EvidenceInFactory

pytestmark = pytest.mark.django_db

TEXT_TYPES = ("text", "character varying", "jsonb", "json", "ARRAY", "tsvector")


def tables_containing(marker: str) -> list[str]:
    """Every (table.column) in the database whose text rendering contains ``marker`` (case-insensitive)."""
    hits = []
    with connection.cursor() as cur:
        cur.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' AND data_type = ANY(%s)",
            [list(TEXT_TYPES)],
        )
        columns = cur.fetchall()
        for table, column, _ in columns:
            cur.execute(f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s', [f"%{marker}%"])
            if cur.fetchone()[0]:
                hits.append(f"{table}.{column}")
    return hits


def test_the_scan_finds_content_before_forgetting(user):
    services.propose_fact(owner=user, content="Zebulon collects antique barometers", status="accepted")
    assert "ledger_fact.content" in tables_containing("barometers")
    assert "ledger_commit.mutations" in tables_containing("barometers")


def test_forget_fact_leaves_no_trace_anywhere(user):
    ev = EvidenceInFactory(quote="my quokka named Bartholomew", source_label="wearable:1")
    fact = services.propose_fact(
        owner=user, content="Has a pet quokka named Bartholomew", evidence=ev, status="accepted", tags=["quokka-tag"]
    ).fact
    services.add_evidence(
        owner=user, fact=fact, evidence=EvidenceInFactory(quote="Bartholomew the quokka", source_label="chat")
    )
    services.decide(owner=user, fact=fact, status="pending_review", reason="check quokka")
    services.refine(owner=user, fact=fact, content="Has a pet quokka called Bartholomew")
    layers.pin_fact(owner=user, fact=fact, salience=0.9)
    kept = services.propose_fact(owner=user, content="Drinks oat milk", status="accepted").fact

    forget_services.forget(owner=user, fact=fact)

    for marker in ("Bartholomew", "quokka"):
        assert tables_containing(marker) == []
    assert not Fact.objects.filter(pk=fact.pk).exists()
    assert not PinnedFact.objects.filter(owner=user).exists()
    assert not FactVersion.objects.filter(fact_id=fact.pk).exists()
    assert Fact.objects.filter(pk=kept.pk, content="Drinks oat milk").exists()
    assert chain.verify(user).ok
    assert chain.rebuild(user).identical_before


def test_forgotten_fact_does_not_come_back_from_the_same_source(user):
    fact = services.propose_fact(
        owner=user, content="Owes Rick 300 dollars", source_label="wearable:1", status="accepted"
    ).fact
    forget_services.forget(owner=user, fact=fact)
    again = services.propose_fact(owner=user, content="Owes Rick 300 dollars", source_label="wearable:1")
    assert again.outcome == "refused"


def test_forget_source_removes_everything_derived_from_one_transcript_day(user):
    day = {"source_id": 1, "date": "2026-06-01"}
    only_there = services.propose_fact(
        owner=user,
        content="Plans a trip to Reykjavik",
        status="accepted",
        evidence=EvidenceInFactory(source_ref={**day, "utterances": [1, 3]}, quote="going to Reykjavik"),
    ).fact
    both = services.propose_fact(
        owner=user,
        content="Works at Initech",
        status="accepted",
        evidence=EvidenceInFactory(source_ref={**day, "utterances": [5, 6]}, quote="at Initech, ugh, Lumbergh"),
    ).fact
    services.add_evidence(
        owner=user,
        fact=both,
        evidence=EvidenceInFactory(source_ref={"source_id": 2, "date": "2026-06-02"}, quote="my job"),
    )
    layers.upsert_episode(
        owner=user,
        key="wearable:1:2026-06-01",
        summary="Talked about Reykjavik",
        source_type="transcript",
        source_ref=day,
    )

    report = forget_services.forget_source(owner=user, source_type="transcript", source_ref=day)

    assert (report.facts, report.evidence, report.episodes) == (1, 2, 1)
    assert not Fact.objects.filter(pk=only_there.pk).exists()
    assert Fact.objects.filter(pk=both.pk).exists() and Evidence.objects.filter(fact_id=both.pk).count() == 1
    assert tables_containing("Reykjavik") == [] and tables_containing("Lumbergh") == []
    assert chain.verify(user).ok and chain.rebuild(user).identical_before


def test_forget_entity_removes_every_fact_about_the_person_across_sources(user):
    a = services.propose_fact(
        owner=user,
        content="She is expecting twins",
        subject="third_party",
        person="Henrietta Quill",
        status="accepted",
        source_label="wearable:1",
    ).fact
    services.propose_fact(
        owner=user,
        content="Henrietta Quill moved to Oslo",
        subject="third_party",
        person="henrietta quill",
        status="pending_review",
        source_label="chat",
    )
    services.propose_fact(
        owner=user, content="Lunch with Henrietta Quill on Friday", status="accepted", source_label="screen"
    )
    kept = services.propose_fact(owner=user, content="Lunch with Sam on Friday", status="accepted").fact
    layers.upsert_episode(
        owner=user, key="day-1", summary="Lunch with Henrietta Quill and Sam", entities=["Henrietta Quill"]
    )

    report = forget_services.forget_entity(owner=user, entity=a.subject_entity)

    assert report.facts == 3 and report.entities == 1 and report.episodes == 1
    assert tables_containing("Henrietta") == [] and tables_containing("twins") == []
    assert not Entity.objects.filter(owner=user).exists()
    assert Fact.objects.filter(pk=kept.pk).exists() and not Episode.objects.filter(owner=user).exists()
    assert chain.verify(user).ok and chain.rebuild(user).identical_before


def test_forget_hooks_let_other_apps_drop_their_copies(user):
    from ledger.forget.hooks import register_forget_hook, unregister_forget_hook

    calls = []

    def hook(**kw):
        calls.append(kw)

    fact = services.propose_fact(owner=user, content="Collects stamps", status="accepted").fact
    ep = layers.upsert_episode(owner=user, key="k", summary="stamps", source_type="chat", source_ref={"chat": 1})
    register_forget_hook(hook)
    try:
        forget_services.forget(owner=user, fact=fact)
        forget_services.forget_source(owner=user, source_type="chat", source_ref={"chat": 1})
    finally:
        unregister_forget_hook(hook)
    assert calls[0]["fact_ids"] == [fact.pk] and calls[0]["fact_public_ids"] == [str(fact.public_id)]
    assert calls[1]["episode_ids"] == [ep.pk]


def test_a_failing_forget_hook_rolls_the_forget_back(user):
    from ledger.forget.hooks import register_forget_hook, unregister_forget_hook

    def broken(**kw):
        raise RuntimeError("vector store down")

    fact = services.propose_fact(owner=user, content="Collects stamps", status="accepted").fact
    register_forget_hook(broken)
    try:
        with pytest.raises(RuntimeError):
            forget_services.forget(owner=user, fact=fact)
    finally:
        unregister_forget_hook(broken)
    assert Fact.objects.filter(pk=fact.pk, content="Collects stamps").exists()
    assert chain.verify(user).ok
