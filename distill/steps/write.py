"""Write: the pass's decisions into the ledger, under the scope's lock, in one transaction.

Near-duplicates of the owner's memories become evidence on them and the day's review budget keeps the best new
questions (``distill.queue.plan_pass``); then new memories, their ``Claim`` keys, corroboration of another
source's memory of the same day, re-scoring of stored ones and supersession (``distill.writing.write``). The
source's memories of the day (and, ``with_same_day``, other sources') are read under the lock: a pass that ran
meanwhile has keyed its claims. A pure pass (``ctx.write`` None: the bench, tests) writes nothing.

No model is called here: every model call of the pass (extraction, judge) happened in the steps before, outside
any transaction.
"""

from __future__ import annotations

from django.db import transaction

from distill import queue, trust, writing
from distill.steps.context import PassContext, WriteTarget
from ledger.services import EvidenceIn

NAME = "write"


def run(ctx: PassContext) -> PassContext:
    target = ctx.write
    if target is None:
        return ctx
    if ctx.report is None:
        ctx.report = writing.PassReport(scope_key=target.scope_key)
    evidence_for = target.evidence_for or _talk_evidence(ctx, target, list(dict.fromkeys(ctx.warnings)))
    with transaction.atomic():
        writing.lock_scope(target.owner, target.scope_key)
        wctx = writing.WriteContext(
            owner=target.owner,
            source_key=target.source_key,
            scope_key=target.scope_key,
            day_key=target.day_key,
            origin=target.origin,
            tags=target.tags,
            evidence_for=evidence_for,
            existing=writing.source_day_facts(target.owner, target.source_key, target.day_key),
            same_day=writing.other_sources_day_facts(target.owner, target.source_key, target.day_key)
            if target.with_same_day
            else {},
        )
        queue.plan_pass(target.owner, wctx, ctx.scored, policy=ctx.policy, names=target.names)
        writing.write(wctx, ctx.scored, ctx.report)
    return ctx


def _talk_evidence(ctx: PassContext, target: WriteTarget, warnings: list[str]):
    """Evidence for a memory of talk: the turn's quote, and the conversation's and turn's source reference (+ the
    turns it spans), so every memory links to its moment."""

    def evidence_for(scored: trust.Scored) -> EvidenceIn:
        cand = scored.candidate
        conv, ref = ctx.turn_map.source_ref(cand)
        details = scored.evidence_payload() | {
            "attribution": cand.attribution,
            "person": cand.person,
            "kind": cand.kind,
            "flags": cand.flags,
            "extraction_confidence": cand.extraction_confidence,
            "proposition_key": cand.proposition_key,
            "content_hash": cand.content_hash,
            "warnings": warnings,
        }
        return EvidenceIn(
            source_type=conv.source_type if conv else target.source_type,
            source_ref=ref,
            quote=cand.evidence.quote if cand.evidence else "",
            extractor_id=cand.extractor or ctx.extractor,
            extractor_version=cand.extractor_version,
            capture_confidence=cand.capture_confidence,
            observed_at=cand.valid_from,
            source_label=target.source_key,
            details=details,
        )

    return evidence_for
