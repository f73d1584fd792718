"""The commit chain: append, idempotent replay, head conflicts, verify, rebuild, the CLI."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ledger import chain, hashing, projection, services
from ledger.exceptions import HeadConflict, InvalidMutation
from ledger.models import ChainHead, Commit, Fact
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def _add(content: str) -> list[dict]:
    return [
        {
            "type": "add_fact",
            "subject_kind": "user",
            "status": "accepted",
            "capture_confidence": 0.8,
            "veracity": 0.8,
            "payload": {"content": content},
        }
    ]


def test_commits_link_each_to_its_parent_with_recomputable_ids(user):
    first = services.commit(owner=user, mutations=_add("one"))
    second = services.commit(owner=user, mutations=_add("two"))
    rows = list(Commit.objects.filter(owner=user).order_by("seq"))
    assert [r.seq for r in rows] == [1, 2]
    assert rows[0].parent_commit_id == "" and rows[1].parent_commit_id == first.commit_id
    assert rows[1].commit_id == second.commit_id == hashing.commit_id(first.commit_id, rows[1].mutations)
    assert ChainHead.objects.get(owner=user).head_commit_id == second.commit_id


def test_ids_are_deterministic_per_owner_and_distinct_across_owners(user, other_user):
    a = services.commit(owner=user, mutations=_add("same"), expected_head="")
    b = services.commit(owner=other_user, mutations=_add("same"), expected_head="")
    assert a.created_ids != b.created_ids
    again = services.commit(owner=user, mutations=_add("same"), expected_head="")
    assert (again.commit_id, again.created_ids) == (a.commit_id, a.created_ids)


def test_replaying_an_applied_commit_changes_nothing(user):
    first = services.commit(owner=user, mutations=_add("once"), expected_head="")
    again = services.commit(owner=user, mutations=_add("once"), expected_head="")
    assert first.applied and not again.applied
    assert again.commit_id == first.commit_id
    assert Fact.objects.filter(owner=user).count() == 1
    assert Commit.objects.filter(owner=user).count() == 1


def test_stale_expected_head_raises_head_conflict(user):
    services.commit(owner=user, mutations=_add("one"), expected_head="")
    with pytest.raises(HeadConflict) as exc:
        services.commit(owner=user, mutations=_add("two"), expected_head="")
    assert exc.value.expected == "" and exc.value.current == ChainHead.objects.get(owner=user).head_commit_id
    assert Fact.objects.filter(owner=user).count() == 1


def test_a_mutation_that_does_not_apply_writes_nothing(user):
    services.commit(owner=user, mutations=_add("kept"))
    bad = _add("new") + [
        {"type": "set_status", "fact_id": "00000000-0000-0000-0000-000000000000", "status": "accepted"}
    ]
    with pytest.raises(InvalidMutation, match="does not exist"):
        services.commit(owner=user, mutations=bad)
    assert Fact.objects.filter(owner=user).count() == 1
    assert Commit.objects.filter(owner=user).count() == 1


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        ({"type": "launch_rockets"}, "unknown type"),
        (
            {
                "type": "add_fact",
                "subject_kind": "user",
                "status": "accepted",
                "capture_confidence": 2,
                "veracity": 0.5,
                "payload": {"content": "x"},
            },
            "between 0 and 1",
        ),
        (
            {
                "type": "add_fact",
                "subject_kind": "user",
                "status": "maybe",
                "capture_confidence": 0.5,
                "veracity": 0.5,
                "payload": {"content": "x"},
            },
            "status must be one of",
        ),
        (
            {
                "type": "add_fact",
                "subject_kind": "user",
                "status": "accepted",
                "capture_confidence": 0.5,
                "veracity": 0.5,
                "payload": {},
            },
            "payload.content",
        ),
        (
            {
                "type": "add_fact",
                "subject_kind": "third_party",
                "status": "accepted",
                "capture_confidence": 0.5,
                "veracity": 0.5,
                "payload": {"content": "x"},
            },
            "person",
        ),
    ],
)
def test_rejects_malformed_mutations_with_a_readable_message(user, mutation, message):
    with pytest.raises(InvalidMutation, match=message):
        services.commit(owner=user, mutations=[mutation])


def test_verify_passes_on_an_intact_chain(user):
    for i in range(5):
        FactFactory(owner=user, content=f"fact number {i}")
    report = chain.verify(user)
    assert report.ok and report.length == 5


def test_verify_reports_the_first_tampered_commit(user):
    for i in range(4):
        FactFactory(owner=user, content=f"fact number {i}")
    victim = Commit.objects.get(owner=user, seq=2)
    victim.mutations[0]["payload"]["content"] = "something else entirely"
    Commit.objects.filter(pk=victim.pk).update(mutations=victim.mutations)
    report = chain.verify(user)
    assert not report.ok
    assert report.first_bad_seq == 2 and report.first_bad_commit_id == victim.commit_id
    assert "tampered" in report.problem


def test_verify_reports_a_missing_commit(user):
    for i in range(4):
        FactFactory(owner=user, content=f"fact number {i}")
    Commit.objects.filter(owner=user, seq=3).delete()
    report = chain.verify(user)
    assert not report.ok and report.first_bad_seq == 4
    assert "missing" in report.problem


def test_verify_reports_a_missing_newest_commit(user):
    for i in range(3):
        FactFactory(owner=user, content=f"fact number {i}")
    Commit.objects.filter(owner=user, seq=3).delete()
    report = chain.verify(user)
    assert not report.ok and "missing" in report.problem


def test_verify_reports_content_removed_without_a_forget(user):
    FactFactory(owner=user, content="quietly erased")
    c = Commit.objects.get(owner=user, seq=1)
    m = c.mutations[0]
    m["payload_hash"] = hashing.digest(m["payload"])
    m["payload"] = None
    Commit.objects.filter(pk=c.pk).update(mutations=c.mutations)
    report = chain.verify(user)
    assert not report.ok and "without a forget" in report.problem


def test_rebuild_restores_a_wiped_projection_identically(user):
    facts = [FactFactory(owner=user, content=f"fact number {i}") for i in range(3)]
    services.decide(owner=user, fact=facts[0], status="rejected", reason="wrong")
    services.add_evidence(
        owner=user, fact=facts[1], evidence=services.EvidenceIn(source_type="chat", source_label="chat")
    )
    before = projection.snapshot_db(user.pk)
    Fact.objects.filter(owner=user).delete()
    report = chain.rebuild(user)
    assert not report.identical_before and report.written
    assert projection.snapshot_db(user.pk).tables == before.tables
    assert chain.rebuild(user).identical_before


def test_rebuild_repairs_a_hand_edited_row_and_keeps_row_ids(user):
    fact = FactFactory(owner=user, content="original words")
    Fact.objects.filter(pk=fact.pk).update(content="edited by hand", status="rejected")
    chain.rebuild(user)
    fact.refresh_from_db()
    assert fact.content == "original words" and fact.status == "accepted"


def test_cli_verify_and_rebuild(user):
    FactFactory(owner=user, content="cli fact")
    out = StringIO()
    call_command("ledger", "verify", stdout=out)
    assert "alice: ok: 1 commits verified" in out.getvalue()
    out = StringIO()
    call_command("ledger", "rebuild", "--user", "alice", stdout=out)
    assert "projection identical" in out.getvalue()


def test_cli_verify_fails_with_exit_code_on_tamper(user):
    FactFactory(owner=user, content="cli fact")
    Commit.objects.filter(owner=user).update(author_label="x", mutations=[{"type": "add_fact"}])
    out = StringIO()
    with pytest.raises(CommandError, match="failed verify"):
        call_command("ledger", "verify", stdout=out)
    assert "BROKEN at commit #1" in out.getvalue()


def test_cli_rejects_an_unknown_user(user):
    with pytest.raises(CommandError, match="No user named"):
        call_command("ledger", "verify", "--user", "nobody")


def test_a_client_supplied_id_that_already_exists_is_refused(user):
    first = services.commit(owner=user, mutations=_add("one"))
    again = _add("two")
    again[0]["fact_id"] = first.created_ids[0]
    with pytest.raises(InvalidMutation, match="already exists"):
        services.commit(owner=user, mutations=again)
    assert Fact.objects.filter(owner=user).count() == 1
