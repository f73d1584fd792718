"""The write path of a pass: new memories through ``ledger.services``, their ``Claim`` keys, corroborating
evidence for another source's memory of the same day, re-scoring of stored memories on late evidence
(promote / demote) and supersession of earlier memories a change replaces."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import IntegrityError, connection, transaction

from distill import trust
from distill.extraction.base import Candidate
from distill.models import Claim
from ledger import services as ledger
from ledger.choices import Status
from ledger.models import Fact
from ledger.services import EvidenceIn

log = logging.getLogger(__name__)

AUTHOR_LABEL = "distill"
PROMOTED = "promoted-by-corroboration"
DEMOTED = "demoted-by-rejection"
REPROPOSED = "re-proposed-by-new-evidence"
ACTIVE = ("accepted", "pending_review")


@dataclass
class PassReport:
    """What one pass did (returned to callers and logged)."""

    scope_key: str = ""
    written: dict[str, int] = field(default_factory=dict)  # accepted / pending_review counts of new memories
    dropped: int = 0
    duplicates: int = 0
    unchanged: int = 0  # already stored by an earlier run of this scope (re-scored only)
    refused: int = 0
    promoted: int = 0
    superseded: int = 0
    demoted: int = 0
    merged: int = 0  # candidates that became evidence on an item saying the same (``distill.queue``)
    over_budget: int = 0  # pending candidates the day's review budget had no place for (kept as dropped)
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    facts: list[str] = field(default_factory=list)  # public ids of the memories this run wrote
    siblings_rescored: list[int] = field(default_factory=list)  # other captures of the same day re-scored after it
    reused_extraction: bool = False  # the talk was unchanged since its last pass: re-scored, not parsed again

    @property
    def wrote_anything(self) -> bool:
        return bool(sum(self.written.values()) or self.promoted or self.demoted)


@dataclass
class WriteContext:
    """Where this pass's memories go: explicit keys (no tags are read back), labels and the evidence builder."""

    owner: object
    source_key: str
    scope_key: str
    day_key: str
    origin: str
    tags: list[str]
    evidence_for: Callable[[trust.Scored], EvidenceIn]
    existing: dict[str, Fact] = field(default_factory=dict)  # this source's memories of the day, by claim hash
    same_day: dict[str, Fact] = field(default_factory=dict)  # other sources' memories of the day, by claim hash
    # id(scored) -> the item it adds evidence to: a stored memory (``queue.Known``) or this pass's first candidate
    # saying the same (``trust.Scored``); planned by ``distill.queue.plan_merges``.
    merges: dict[int, object] = field(default_factory=dict)
    written: dict[int, Fact] = field(default_factory=dict)  # id(scored) -> the memory this pass wrote for it


def lock_scope(owner, scope_key: str) -> None:
    """One pass per (owner, scope) at a time: a PostgreSQL advisory lock held until the transaction ends."""
    digest = hashlib.sha256(f"distill:{owner.pk}:{scope_key}".encode()).digest()
    key = int.from_bytes(digest[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def source_day_facts(owner, source_key: str, day_key: str) -> dict[str, Fact]:
    claims = Claim.objects.owned_by(owner).from_source(source_key).for_day(day_key).select_related("fact")
    return {c.claim_hash: c.fact for c in claims}


def other_sources_day_facts(owner, source_key: str, day_key: str) -> dict[str, Fact]:
    if not day_key:
        return {}
    claims = Claim.objects.owned_by(owner).for_day(day_key).exclude(source_key=source_key).select_related("fact")
    return {c.claim_hash: c.fact for c in claims}


def active_hashes(owner) -> set[str]:
    return set(Claim.objects.owned_by(owner).active().values_list("claim_hash", flat=True))


def propose(ctx: WriteContext, scored: trust.Scored):
    cand = scored.candidate
    return ledger.propose_fact(
        owner=ctx.owner,
        content=cand.content,
        evidence=[ctx.evidence_for(scored)],
        predicate=cand.predicate[:100],
        # Without slot values the claim's words identify it; {"kind": ...} alone would make every
        # argument-less claim of a kind "the same claim" (merged as corroboration, refused together).
        arguments={"args": cand.args, "kind": cand.kind} if cand.args else None,
        subject=cand.attribution,
        person=cand.person if cand.attribution == "third_party" and cand.person else None,
        capture_confidence=max(0.0, min(cand.capture_confidence, 1.0)),
        veracity=max(0.0, min(scored.score, 1.0)),
        importance=cand.importance,
        tags=ctx.tags,
        source_label=ctx.source_key,
        valid_from=cand.valid_from,
        status=scored.decision,
        reason=scored.reason,
        author="extractor",
        author_label=f"{cand.extractor}@{cand.extractor_version}",
        on_duplicate="corroborate",
    )


def record_claim(ctx: WriteContext, claim_hash: str, fact: Fact, *, queued: bool = False) -> None:
    try:
        with transaction.atomic():
            Claim.objects.create(
                owner=ctx.owner,
                source_key=ctx.source_key,
                scope_key=ctx.scope_key,
                day_key=ctx.day_key,
                claim_hash=claim_hash,
                origin=ctx.origin,
                fact=fact,
                queued=queued,
            )
    except IntegrityError:  # already keyed (a pass outside the scope lock, e.g. another scope of the same day)
        log.info("claim %s already recorded for %s %s", claim_hash[:12], ctx.source_key, ctx.day_key)


def _corroborate(ctx: WriteContext, scored: trust.Scored, fact: Fact | None) -> None:
    """Another source's memory of the same day says the same thing: add this source's evidence (once)."""
    if fact is None or fact.status not in ACTIVE:
        return
    if fact.evidence.filter(source_label=ctx.source_key).exists():
        return
    ledger.add_evidence(
        owner=ctx.owner,
        fact=fact,
        evidence=ctx.evidence_for(scored),
        author="extractor",
        author_label=f"{scored.candidate.extractor}@{scored.candidate.extractor_version}",
    )


def _same_evidence(fact: Fact, evidence: EvidenceIn) -> bool:
    return (
        fact.evidence.filter(tombstoned_at__isnull=True, source_label=evidence.source_label, quote=evidence.quote)
        .filter(source_ref=evidence.source_ref)
        .exists()
    )


def merge_into(ctx: WriteContext, scored: trust.Scored, report: PassReport) -> None:
    """A near-duplicate: this candidate's evidence goes onto the item that already says it (once: the same
    evidence never proposes it again). A candidate the gate would accept promotes a pending or gate-dropped
    item; anything weaker leaves the item where it is, except that a gate-dropped item said again with new
    evidence that won a place in the day's budget (``queue.plan_pass``) goes back into review."""
    target = ctx.merges[id(scored)]
    if isinstance(target, trust.Scored):
        fact = ctx.written.get(id(target))
    else:
        fact = Fact.objects.owned_by(ctx.owner).filter(pk=target.fact_id).first()
    if fact is None:
        report.duplicates += 1
        return
    evidence = ctx.evidence_for(scored)
    if _same_evidence(fact, evidence):
        report.duplicates += 1
        return
    cand = scored.candidate
    ledger.add_evidence(
        owner=ctx.owner,
        fact=fact,
        evidence=evidence,
        author="extractor",
        author_label=f"{cand.extractor}@{cand.extractor_version}",
    )
    report.merged += 1
    fact.refresh_from_db()
    gate_dropped = fact.status == Status.DROPPED and (fact.status_reason or "").startswith((*RESCUABLE, BUDGET_REASON))
    queued = False
    if scored.decision == trust.ACCEPTED and (fact.status == Status.PENDING_REVIEW or gate_dropped):
        _redecide(ctx.owner, fact, scored, Status.ACCEPTED, PROMOTED)
        report.promoted += 1
    elif scored.decision == trust.PENDING and gate_dropped:
        # Said again with new evidence, and it won a place in today's budget: back into review.
        _redecide(ctx.owner, fact, scored, Status.PENDING_REVIEW, REPROPOSED)
        queued = True
    ctx.existing[cand.content_hash] = fact
    record_claim(ctx, cand.content_hash, fact, queued=queued)


def _redecide(owner, fact, scored: trust.Scored, status: str, reason: str) -> None:
    """A system decision on a stored memory, with this pass's score as its veracity."""
    ledger.decide(
        owner=owner,
        fact=fact,
        status=status,
        reason=reason,
        veracity=min(scored.score, 1.0),
        author="system",
        author_label=AUTHOR_LABEL,
    )


def write(ctx: WriteContext, scored_items: list[trust.Scored], report: PassReport) -> None:
    for scored in scored_items:
        cand = scored.candidate
        stored = ctx.existing.get(cand.content_hash)
        if stored is not None and id(scored) not in ctx.merges:
            report.unchanged += 1
            rescore(ctx.owner, stored, scored, report)
            continue
        if id(scored) in ctx.merges:
            merge_into(ctx, scored, report)
            continue
        if scored.decision not in (trust.ACCEPTED, trust.PENDING):
            if scored.reason == "duplicate":
                report.duplicates += 1
                _corroborate(ctx, scored, ctx.same_day.get(cand.content_hash))
                continue
            report.dropped += 1
            report.over_budget += scored.reason.startswith(BUDGET_REASON)
            if not rescuable(scored):
                continue
        result = propose(ctx, scored)
        if result.outcome == "refused":
            report.refused += 1
            log.info("memory refused by a lasting refusal (decision %s)", result.refusal.decision_commit_id[:12])
            continue
        if result.outcome in ("duplicate", "corroborated"):
            report.duplicates += 1
            continue
        if scored.decision in (trust.ACCEPTED, trust.PENDING):
            report.written[scored.decision] = report.written.get(scored.decision, 0) + 1
        report.facts.append(str(result.fact.public_id))
        ctx.existing[cand.content_hash] = result.fact
        ctx.written[id(scored)] = result.fact
        queued = scored.decision == trust.PENDING and result.fact.status == Status.PENDING_REVIEW
        record_claim(ctx, cand.content_hash, result.fact, queued=queued)
        if result.fact.status in ACTIVE:
            report.superseded += supersede_older(ctx, result.fact, cand)


RESCUABLE = ("score below review", "judge rejected", "over max_memories_per_day")
# Dropped because the day's review budget was full: written (rescuable from the Review page) but, unlike the
# reasons above, never brought back by a re-run with the same evidence (``rescore``).
BUDGET_REASON = "over daily review budget"


def rescuable(scored: trust.Scored) -> bool:
    """A claim dropped only for its score, a judge's reject or the day's cap is still a claim someone may want:
    it is written as a ``dropped`` memory with its reason (the Review page's "Recently dropped" can rescue it).
    Not claims at all (figures of speech, fragments, questions), duplicates and mode off are never written."""
    return scored.decision == trust.DROPPED and scored.reason.startswith((*RESCUABLE, BUDGET_REASON))


CHANGE_MARKERS = re.compile(
    r"\b(now|anymore|any more|no longer|instead|moved (?:it|the \w+|to)|changed?|changing|switch(?:ed|ing)?|"
    r"cancel(?:l?ed|ling)?|again|not \w+ anymore|pushed|rescheduled|postponed|actually)\b",
    re.IGNORECASE,
)


def supersede_older(ctx: WriteContext, fact: Fact, cand: Candidate) -> int:
    """A memory that states a change ("now", "moved it to", "cancelled", "anymore") replaces an earlier-day memory
    the gate wrote about the same subject and topic. An accepted memory replaces accepted or pending ones; a
    pending one only replaces pending ones (weak evidence must not retire a trusted memory)."""
    quote = cand.evidence.quote if cand.evidence else cand.content
    if fact is None or not ctx.day_key or not CHANGE_MARKERS.search(quote):
        return 0
    earlier = Claim.objects.owned_by(ctx.owner).filter(day_key__lt=ctx.day_key).values("fact_id")
    older = (
        Fact.objects.owned_by(ctx.owner)
        .filter(pk__in=earlier, subject_kind=fact.subject_kind, subject_entity=fact.subject_entity)
        .filter(status__in=list(ACTIVE) if fact.status == Status.ACCEPTED else [Status.PENDING_REVIEW])
        .exclude(pk=fact.pk)
    )
    drop = {w.lower() for w in (cand.person or "").split()} | {(fact.content.split() or [""])[0].lower().strip("'s")}
    drop = {trust._stem(w) for w in drop if w}
    mine = {t for t in trust.claim_tokens(cand.content, drop=drop) if not t.isdigit()}
    count = 0
    for old in older:
        theirs = {t for t in trust.claim_tokens(old.content, drop=drop) if not t.isdigit()}
        shared = mine & theirs
        if len(shared) >= 2 and len(shared) / max(min(len(mine), len(theirs)), 1) >= 0.4:
            ledger.supersede(
                owner=ctx.owner,
                old=old,
                new=fact,
                kind="update",
                valid_from=fact.valid_from,
                author="system",
                author_label=AUTHOR_LABEL,
            )
            count += 1
    return count


def rescore(owner, fact: Fact, scored: trust.Scored, report: PassReport) -> None:
    """Late evidence: promote a pending memory that now clears auto-approve; demote one on an explicit judge
    reject. Accepted memories are never demoted, and missing corroboration never demotes anything. A memory the
    gate dropped for its score or the cap comes back when it now clears the review band."""
    if fact.status == Status.DROPPED and (fact.status_reason or "").startswith(RESCUABLE):
        if scored.decision in (trust.ACCEPTED, trust.PENDING):
            _redecide(owner, fact, scored, scored.decision, PROMOTED)
            report.promoted += 1
        return
    if fact.status != Status.PENDING_REVIEW:
        return
    if scored.judge_verdict == "reject":
        ledger.decide(
            owner=owner, fact=fact, status=Status.REJECTED, reason=DEMOTED, author="system", author_label=AUTHOR_LABEL
        )
        report.demoted += 1
    elif scored.scored_decision == trust.ACCEPTED and scored.reason == "score above auto-approve":
        _redecide(owner, fact, scored, Status.ACCEPTED, PROMOTED)
        report.promoted += 1
