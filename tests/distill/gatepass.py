"""Drive the gate's write stage (queue planning + ``distill.writing``) with hand-made scored candidates.

The extractor and the model are other engineers' moving parts; these helpers start after them, at the step the
queue owns, so the tests say what the queue does whatever the parse produces. Sentences, names and domains here
appear in no development file.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from distill import queue, trust, writing
from distill.extraction.base import Candidate, Evidence
from distill.models import Claim
from distill.steps import decision
from distill.writing import PassReport, WriteContext
from ledger.services import EvidenceIn

ACCEPT, REVIEW = 0.7, 0.45


def scored(content, p, *, predicate="hobby:keep_bee", person="", importance="normal", quote=None, turn=0):
    """A candidate the model scored ``p``, decided by the default lines (accept ≥ 0.7, review ≥ 0.45)."""
    cand = Candidate(
        subject=f"person:{person}" if person else "user",
        predicate=predicate,
        args=[],
        content=content,
        kind=predicate.split(":")[0],
        importance=importance,
        extraction_confidence=0.8,
        capture_confidence=0.9,
        attribution="third_party" if person else "user",
        person=person,
        evidence=Evidence(turn, turn, quote or content),
        valid_from=datetime(2031, 4, 2, 9, 0, tzinfo=UTC),
        extractor="test",
        extractor_version="1",
    )
    item = trust.Scored(candidate=cand, score=p, components={"p_shipped": p, "accept_line": ACCEPT})
    if p >= ACCEPT:
        item.decision, item.reason = trust.ACCEPTED, "score above auto-approve"
    elif p >= REVIEW:
        item.decision, item.reason = trust.PENDING, "score in review band"
    else:
        item.decision, item.reason = trust.DROPPED, "score below review"
    item.scored_decision = item.decision
    return item


def run_gate(owner, items, *, source_key="chat:test", day_key="2031-04-02", scope_key=None, mode="smart"):
    """What ``distill.services.distill`` does after the pipeline: gates, queue plan, write. Returns the report."""
    scope_key = scope_key or f"{source_key}:{day_key}"
    policy = trust.Policy(mode=mode)
    existing = writing.source_day_facts(owner, source_key, day_key)
    decision.apply_gates(items, policy, existing_hashes=writing.active_hashes(owner) - set(existing))
    report = PassReport(scope_key=scope_key)

    def evidence_for(s: trust.Scored) -> EvidenceIn:
        cand = s.candidate
        return EvidenceIn(
            source_type="chat",
            source_ref={"scope": scope_key, "turn": cand.evidence.first_index},
            quote=cand.evidence.quote,
            extractor_id="test",
            extractor_version="1",
            capture_confidence=cand.capture_confidence,
            source_label=source_key,
            details=s.evidence_payload(),
        )

    with transaction.atomic():
        writing.lock_scope(owner, scope_key)
        ctx = WriteContext(
            owner=owner,
            source_key=source_key,
            scope_key=scope_key,
            day_key=day_key,
            origin=Claim.Origin.EXTRACTED,
            tags=["test"],
            evidence_for=evidence_for,
            existing=writing.source_day_facts(owner, source_key, day_key),
        )
        queue.plan_pass(owner, ctx, items, policy=policy, names=["Alice Example"])
        writing.write(ctx, items, report)
    return report
