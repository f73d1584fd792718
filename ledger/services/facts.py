"""Changing a held fact: evidence, decisions, supersede, refine, retract, merge, subject, refusals, timeouts."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from ledger import hashing, permitted_uses
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.models import (
    Evidence,
    Fact,
    Refusal,
    Status,
)
from ledger.services.commits import EvidenceIn, aware, commit, evidence_mutation, fact_by_id, person_ref
from ledger.validation import check_choice, check_owner, clamp01

logger = logging.getLogger(__name__)


@dataclass
class TimeoutReport:
    decided: int = 0
    accepted: int = 0
    dropped: int = 0
    owners: int = 0


def add_evidence(
    *, owner, fact: Fact, evidence: EvidenceIn, author: str = "extractor", author_label: str = ""
) -> Evidence:
    """Corroborate ``fact`` with one more piece of evidence (raises veracity when from another source)."""
    check_owner(fact, owner, "Fact")
    result = commit(
        owner=owner,
        mutations=[evidence_mutation(evidence, str(fact.public_id))],
        author=author,
        author_label=author_label,
    )
    return Evidence.objects.get(owner=owner, public_id=result.created_ids[0])


def decide(
    *,
    owner,
    fact: Fact,
    status: str,
    reason: str = "",
    veracity: float | None = None,
    author: str = "reviewer",
    author_label: str = "",
) -> Fact:
    """Set a fact's epistemic status (review decisions, promotions, demotions). Rejection records a refusal."""
    check_owner(fact, owner, "Fact")
    check_choice(status, permitted_uses.STATUSES, "status")
    m = {"type": M.SET_STATUS, "fact_id": str(fact.public_id), "status": status, "payload": {"reason": reason[:200]}}
    if veracity is not None:
        m["veracity"] = clamp01(veracity, "veracity")
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return fact_by_id(owner, fact.public_id)


set_status = decide


def supersede(
    *,
    owner,
    old: Fact,
    new: Fact,
    kind: str = "update",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    author: str = "system",
    author_label: str = "",
) -> Fact:
    """``new`` replaces ``old``: kind "update" (the world changed; old holds until new's valid_from) or
    "contradict" (old was wrong: it becomes contradicted). Returns the refreshed old fact."""
    check_owner(old, owner, "Fact")
    check_owner(new, owner, "Fact")
    check_choice(kind, M.SUPERSEDE_KINDS, "kind")
    m = {"type": M.SUPERSEDE_FACT, "old_fact_id": str(old.public_id), "new_fact_id": str(new.public_id), "kind": kind}
    valid_from, valid_to = aware(valid_from, "valid_from"), aware(valid_to, "valid_to")
    if valid_from:
        m["valid_from"] = hashing.iso(valid_from)
    if valid_to:
        m["valid_to"] = hashing.iso(valid_to)
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return fact_by_id(owner, old.public_id)


def refine(
    *,
    owner,
    fact: Fact,
    content: str,
    arguments: dict | None = None,
    predicate: str | None = None,
    author="user",
    status: str | None = None,
    reason: str = "",
) -> Fact:
    """Restate a fact more precisely (same fact, new version). With ``status`` the same commit also decides it
    (a reviewer's edit-then-accept is one commit)."""
    check_owner(fact, owner, "Fact")
    if status is not None:
        check_choice(status, permitted_uses.STATUSES, "status")
    content = (content or "").strip()
    if not content:
        raise InvalidMutation("content must not be empty")
    skey = hashing.subject_key(fact.subject_kind, str(fact.subject_entity.public_id) if fact.subject_entity else None)
    pred = predicate or fact.predicate
    args = arguments if arguments is not None else fact.arguments
    payload = {"content": content}
    if predicate:
        payload["predicate"] = predicate
    if arguments is not None:
        payload["arguments"] = arguments
    names = [fact.subject_entity.name, *fact.subject_entity.aliases] if fact.subject_entity else []
    m = {
        "type": M.REFINE_FACT,
        "fact_id": str(fact.public_id),
        "proposition_key": hashing.proposition_key(skey, pred, args, content),
        "token_hashes": hashing.token_signature(content, names),
        "payload": payload,
    }
    muts = [m]
    if status is not None:
        fid = str(fact.public_id)
        muts.append({"type": M.SET_STATUS, "fact_id": fid, "status": status, "payload": {"reason": reason[:200]}})
    commit(owner=owner, mutations=muts, author=author)
    return fact_by_id(owner, fact.public_id)


def retract(*, owner, fact: Fact, reason: str = "", author: str = "user", author_label: str = "") -> Fact:
    """Withdraw a fact as untrue. A lasting refusal keeps re-extractions from bringing it back."""
    check_owner(fact, owner, "Fact")
    m = {"type": M.RETRACT_FACT, "fact_id": str(fact.public_id), "payload": {"reason": reason[:200]}}
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return fact_by_id(owner, fact.public_id)


def remove_evidence(*, owner, evidence: Evidence, author: str = "user") -> None:
    """Delete one piece of evidence (e.g. attached by mistake). The fact keeps its other evidence."""
    check_owner(evidence, owner, "Evidence")
    commit(owner=owner, mutations=[{"type": M.REMOVE_EVIDENCE, "evidence_id": str(evidence.public_id)}], author=author)


def tombstone_evidence(
    *, owner, evidence: Evidence, reason: str = "", source_deleted: bool = False, author: str = "system"
) -> Evidence:
    """Withdraw one support but keep the record. A fact left without live evidence becomes
    ``source_tombstoned`` (source_deleted=True) or ``tombstoned``."""
    check_owner(evidence, owner, "Evidence")
    m = {
        "type": M.TOMBSTONE_EVIDENCE,
        "evidence_id": str(evidence.public_id),
        "source_deleted": source_deleted,
        "payload": {"reason": reason[:200] or ("source_deleted" if source_deleted else "withdrawn")},
    }
    commit(owner=owner, mutations=[m], author=author)
    return Evidence.objects.get(pk=evidence.pk)


def merge_fact_into(*, owner, fact: Fact, into: Fact, author: str = "reviewer", author_label: str = "") -> list[str]:
    """Fold ``fact`` into ``into`` (the same claim, already held), as one commit: ``fact``'s live evidence is
    copied onto ``into`` and ``fact`` becomes superseded (reason "merged-into:<id>"). Returns the copied
    evidence ids (a review undo removes them). Raises InvalidMutation for a fact merged into itself."""
    check_owner(fact, owner, "Fact")
    check_owner(into, owner, "Fact")
    if fact.pk == into.pk:
        raise InvalidMutation("a fact cannot be merged into itself")
    copies = [
        EvidenceIn(
            source_type=ev.source_type,
            source_ref=ev.source_ref,
            quote=ev.quote,
            extractor_id=ev.extractor_id,
            extractor_version=ev.extractor_version,
            capture_confidence=ev.capture_confidence,
            observed_at=ev.observed_at,
            source_label=ev.source_label,
            details=ev.details,
        )
        for ev in fact.evidence.live().order_by("recorded_at")
    ]
    muts = [evidence_mutation(ev, str(into.public_id)) for ev in copies]
    muts.append(
        {
            "type": M.SET_STATUS,
            "fact_id": str(fact.public_id),
            "status": Status.SUPERSEDED,
            "payload": {"reason": f"merged-into:{into.public_id}"},
        }
    )
    result = commit(owner=owner, mutations=muts, author=author, author_label=author_label)
    return [i for i in result.created_ids[: len(copies)] if i]


def reassign_fact_subject(*, owner, fact: Fact, subject: str, person=None, author: str = "user") -> Fact:
    """Correct whom a fact is about (user / third_party with a person / unknown)."""
    check_owner(fact, owner, "Fact")
    check_choice(subject, M.SUBJECT_KINDS, "subject")
    muts: list[dict] = []
    ref = None
    if subject == "third_party":
        if person is None:
            raise InvalidMutation("a third_party subject needs the person")
        ref = person_ref(owner, person, muts)
    m = {"type": M.REASSIGN_FACT_SUBJECT, "fact_id": str(fact.public_id), "subject_kind": subject}
    if ref:
        m["subject_entity_id"] = ref
        if not ref.startswith("$"):
            m["proposition_key"] = hashing.proposition_key(
                hashing.subject_key(subject, ref), fact.predicate, fact.arguments, fact.content
            )
    else:
        m["proposition_key"] = hashing.proposition_key(subject, fact.predicate, fact.arguments, fact.content)
    muts.append(m)
    commit(owner=owner, mutations=muts, author=author)
    return fact_by_id(owner, fact.public_id)


def lift_refusal(*, owner, refusal: Refusal, reason: str = "", author: str = "user") -> Refusal:
    """The person takes a refusal back explicitly (a commit): the claim may be proposed again (to review)."""
    check_owner(refusal, owner, "Refusal")
    if refusal.lifted_at is not None:
        raise InvalidMutation("this refusal is already lifted")
    m = {"type": M.LIFT_REFUSAL, "refusal_id": str(refusal.public_id), "payload": {"reason": reason[:200]}}
    commit(owner=owner, mutations=[m], author=author)
    return Refusal.objects.get(pk=refusal.pk)


# --- Timeouts -------------------------------------------------------------------------------------------
def decide_timeouts(*, owner=None, older_than: timedelta | None = None, now: datetime | None = None) -> TimeoutReport:
    """Decide pending items nobody reviewed within the timeout (``permitted_uses.timeout_decision``); counted."""
    now = now or timezone.now()
    older_than = older_than or timedelta(days=getattr(settings, "ALMANAC_LEDGER_PENDING_TIMEOUT_DAYS", 14))
    qs = Fact.objects.filter(status__in=permitted_uses.PENDING_STATUSES, updated_at__lt=now - older_than)
    if owner is not None:
        qs = qs.filter(owner=owner)
    report = TimeoutReport()
    owners = set()
    for fact in qs.select_related("owner").order_by("owner_id", "recorded_at").iterator():
        status, reason = permitted_uses.timeout_decision(
            status=fact.status,
            veracity=fact.veracity,
            capture_confidence=fact.capture_confidence,
            importance=fact.importance,
        )
        if status == fact.status:
            continue
        decide(owner=fact.owner, fact=fact, status=status, reason=reason, author="system", author_label="timeout")
        owners.add(fact.owner_id)
        report.decided += 1
        if status == Status.ACCEPTED:
            report.accepted += 1
        else:
            report.dropped += 1
    report.owners = len(owners)
    if report.decided:
        logger.info(
            "ledger: %d timeout decisions (%d accepted, %d dropped)", report.decided, report.accepted, report.dropped
        )
    return report
