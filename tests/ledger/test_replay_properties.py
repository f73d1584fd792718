"""Hypothesis: any sequence of ledger operations, replayed from the chain, gives the live projection;
the chain verifies, and tampering with any commit is found at that commit."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.exceptions import DomainError
from ledger import chain, projection, services
from ledger.forget import services as forget_services
from ledger.models import Commit, Entity, Evidence, Fact
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

WORDS = ["Denver", "Boston", "coffee", "tea", "running", "guitar", "Acme", "Globex", "sister", "dentist"]
PEOPLE = ["Maya Lopez", "Sam Ortiz", "maya lopez", "Dr. Chen"]
SOURCES = ["wearable:1", "wearable:2", "chat"]
STATUSES = ["accepted", "pending_review", "rejected", "dropped", "contradicted"]

ops = st.one_of(
    st.tuples(
        st.just("add"),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        st.sampled_from(["user", "third_party", "unknown"]),
        st.sampled_from(PEOPLE),
        st.sampled_from(STATUSES[:2]),
        st.sampled_from(SOURCES),
        st.integers(0, 3),
    ),
    st.tuples(st.just("evidence"), st.integers(0, 9), st.sampled_from(SOURCES)),
    st.tuples(st.just("decide"), st.integers(0, 9), st.sampled_from(STATUSES)),
    st.tuples(st.just("retract"), st.integers(0, 9)),
    st.tuples(st.just("supersede"), st.integers(0, 9), st.integers(0, 9), st.sampled_from(["update", "contradict"])),
    st.tuples(st.just("tombstone"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("remove_evidence"), st.integers(0, 9)),
    st.tuples(st.just("refine"), st.integers(0, 9), st.sampled_from(WORDS)),
    st.tuples(st.just("merge"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("split"), st.integers(0, 3)),
    st.tuples(st.just("reassign"), st.integers(0, 9), st.sampled_from(PEOPLE)),
    st.tuples(st.just("forget"), st.integers(0, 9)),
    st.tuples(st.just("forget_source"), st.integers(0, 3)),
    st.tuples(st.just("forget_entity"), st.integers(0, 3)),
)


def _pick(qs, i):
    items = list(qs.order_by("id"))
    return items[i % len(items)] if items else None


def run(owner, op) -> None:
    kind = op[0]
    facts = Fact.objects.filter(owner=owner)
    if kind == "add":
        _, words, subject, person, status, source, day = op
        services.propose_fact(
            owner=owner,
            content=" ".join(words),
            subject=subject,
            person=person if subject == "third_party" else None,
            status=status,
            veracity=0.7,
            capture_confidence=0.8,
            source_label=source,
            valid_from=datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=30 * day),
            evidence=services.EvidenceIn(
                source_type="transcript", source_ref={"day": day}, quote=" ".join(words), source_label=source
            ),
        )
    elif kind == "evidence" and (f := _pick(facts, op[1])):
        services.add_evidence(
            owner=owner,
            fact=f,
            evidence=services.EvidenceIn(source_type="chat", source_ref={"day": 9}, source_label=op[2]),
        )
    elif kind == "decide" and (f := _pick(facts, op[1])):
        services.decide(owner=owner, fact=f, status=op[2], reason="hypothesis")
    elif kind == "retract" and (f := _pick(facts, op[1])):
        services.retract(owner=owner, fact=f, reason="hypothesis")
    elif kind == "supersede" and (a := _pick(facts, op[1])) and (b := _pick(facts, op[2])):
        services.supersede(owner=owner, old=a, new=b, kind=op[3])
    elif kind == "tombstone" and (e := _pick(Evidence.objects.filter(owner=owner, tombstoned_at=None), op[1])):
        services.tombstone_evidence(owner=owner, evidence=e, source_deleted=op[2])
    elif kind == "remove_evidence" and (e := _pick(Evidence.objects.filter(owner=owner), op[1])):
        services.remove_evidence(owner=owner, evidence=e)
    elif kind == "refine" and (f := _pick(facts, op[1])):
        services.refine(owner=owner, fact=f, content=f.content + " " + op[2])
    elif kind == "merge":
        ents = Entity.objects.filter(owner=owner, merged_into=None)
        a, b = _pick(ents, op[1]), _pick(ents, op[2])
        if a and b:
            services.merge_entities(owner=owner, target=a, others=[b])
    elif kind == "split" and (e := _pick(Entity.objects.filter(owner=owner, merged_into=None), op[1])):
        moved = [f.public_id for f in Fact.objects.filter(owner=owner, subject_entity=e)[:1]]
        services.split_entity(owner=owner, entity=e, name=e.name + " Jr", fact_ids=moved)
    elif kind == "reassign" and (f := _pick(facts, op[1])):
        services.reassign_fact_subject(owner=owner, fact=f, subject="third_party", person=op[2])
    elif kind == "forget" and (f := _pick(facts, op[1])):
        forget_services.forget(owner=owner, fact=f)
    elif kind == "forget_source":
        forget_services.forget_source(owner=owner, source_type="transcript", source_ref={"day": op[1]})
    elif kind == "forget_entity" and (e := _pick(Entity.objects.filter(owner=owner), op[1])):
        forget_services.forget_entity(owner=owner, entity=e)


def _run_all(owner, sequence):
    for op in sequence:
        try:
            run(owner, op)
        except DomainError:
            pass  # an operation that does not apply (e.g. retracting twice) is refused; nothing written


# Example counts are kept small for the CI budget (each example runs up to a dozen commits on PostgreSQL); the
# operation alphabet is small, so a dozen sequences still reach every mutation type.
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(ops, min_size=1, max_size=12))
def test_replaying_the_chain_gives_the_live_projection(db, sequence):
    owner = UserFactory(username=f"h-{uuid.uuid4().hex[:10]}")
    _run_all(owner, sequence)
    state, _ = chain.replay_owner(owner)
    assert projection.snapshot_memory(state).tables == projection.snapshot_db(owner.pk).tables
    assert chain.verify(owner).ok


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(ops, min_size=3, max_size=8), st.integers(0, 1000), st.sampled_from(["status", "veracity", "drop"]))
def test_tampering_with_any_commit_is_found_there(db, sequence, pick, how):
    owner = UserFactory(username=f"t-{uuid.uuid4().hex[:10]}")
    _run_all(owner, sequence)
    commits = list(Commit.objects.filter(owner=owner).order_by("seq"))
    if not commits:
        return
    victim = commits[pick % len(commits)]
    muts = victim.mutations
    m = muts[pick % len(muts)]
    if how == "status":
        m["status"] = "accepted" if m.get("status") != "accepted" else "rejected"
    elif how == "veracity":
        m["veracity"] = 0.123
    else:
        muts.pop(pick % len(muts))
        muts.append({"type": "retract_fact", "fact_id": str(uuid.uuid4()), "payload": {}})
    Commit.objects.filter(pk=victim.pk).update(mutations=muts)
    report = chain.verify(owner)
    assert not report.ok
    assert report.first_bad_seq == victim.seq


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.lists(ops, min_size=1, max_size=10))
def test_rebuild_from_scratch_reproduces_the_projection(db, sequence):
    owner = UserFactory(username=f"r-{uuid.uuid4().hex[:10]}")
    _run_all(owner, sequence)
    before = projection.snapshot_db(owner.pk)
    Fact.objects.filter(owner=owner).delete()
    Entity.objects.filter(owner=owner).delete()
    chain.rebuild(owner)
    assert projection.snapshot_db(owner.pk).tables == before.tables
