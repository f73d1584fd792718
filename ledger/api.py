"""Ledger API at /api/v1/ledger/: facts (policy applied), entities, commits, verify, identity overrides."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, Q
from django.http import Http404
from django.utils import timezone
from ninja import Query, Router, Status

from accounts.owned import get_owned_or_404
from accounts.schemas import ErrorOut, IsoDateTime, Offset, limit_type
from ledger import chain, permitted_uses, queries, services
from ledger.exceptions import HeadConflict, InvalidMutation
from ledger.forget import services as forget_services
from ledger.models import Entity, Fact, IdentityOverride, Refusal
from ledger.schemas import (
    CommitIn,
    CommitResultOut,
    DecisionIn,
    EntityOut,
    FactDetailOut,
    FactListOut,
    ForgetOut,
    HeadConflictOut,
    HeadOut,
    IdentityIn,
    IdentityOut,
    LedgerSourceOut,
    LiftIn,
    RefusalEventOut,
    RefusalListOut,
    RefusalOut,
    VerifyOut,
)
from ledger.services import layers

router = Router(tags=["ledger"])
ERRORS = {400: ErrorOut, 404: ErrorOut, 422: ErrorOut}


def _commit_out(c) -> dict:
    return {
        "commit_id": c.commit_id,
        "parent_commit_id": c.parent_commit_id,
        "seq": c.seq,
        "author": c.author,
        "author_label": c.author_label,
        "committed_at": c.committed_at,
        "mutation_types": c.mutation_types,
    }


def _evidence_out(ev, visible: bool) -> dict:
    return {
        "id": str(ev.public_id),
        "source_type": ev.source_type,
        "source_ref": ev.source_ref if visible else {},
        "source_label": ev.source_label,
        "quote": ev.quote if visible else "",
        "extractor_id": ev.extractor_id,
        "extractor_version": ev.extractor_version,
        "capture_confidence": ev.capture_confidence,
        "observed_at": ev.observed_at,
        "details": ev.details if visible else {},
        "recorded_at": ev.recorded_at,
        "tombstoned_at": ev.tombstoned_at,
        "tombstone_reason": ev.tombstone_reason,
    }


@router.get("/facts", response={200: FactListOut, **ERRORS})
def list_facts(
    request,
    status: str | None = None,
    subject: str | None = None,
    source: str | None = None,
    tag: str | None = None,
    valid_at: IsoDateTime | None = None,
    known_at: IsoDateTime | None = None,
    use: str | None = None,
    limit: limit_type(500) = 50,
    offset: Offset = 0,
):
    """Facts with their permitted uses and disclaimers. ``known_at`` answers "as known then" (bitemporal)."""
    if status and status not in permitted_uses.STATUSES:
        raise InvalidMutation(f"status must be one of {', '.join(permitted_uses.STATUSES)}")
    if use and use not in permitted_uses.USES:
        raise InvalidMutation(f"use must be one of {', '.join(permitted_uses.USES)}")
    if known_at is not None:
        views = queries.as_of(
            owner=request.auth, known_at=known_at, valid_at=valid_at, use=use or permitted_uses.ANSWERS_WITH_DISCLAIMER
        )
        if status:
            views = [v for v in views if v["status"] == status]
        if subject:
            views = [v for v in views if subject in (v["subject"], v["subject_entity"])]
        if tag:
            views = [v for v in views if tag in v["tags"]]
        if source:
            views = [v for v in views if v["source_label"] == source]
        return {"count": len(views), "items": views[offset : offset + limit]}
    qs = queries.facts(
        owner=request.auth, status=status, subject=subject, source=source, tag=tag, valid_at=valid_at, use=use
    )
    now = timezone.now()
    return {"count": qs.count(), "items": queries.fact_views(qs[offset : offset + limit], use=use, now=now)}


@router.get("/facts/{fact_id}", response={200: FactDetailOut, **ERRORS})
def fact_detail(request, fact_id: str):
    fact = get_owned_or_404(Fact.objects.select_related("subject_entity"), request.auth, public_id=fact_id)
    view = queries.fact_view(fact)
    visible = bool(view["permitted_uses"])
    view["evidence"] = [_evidence_out(ev, visible) for ev in fact.evidence.all()]
    view["history"] = [_commit_out(c) for c in queries.fact_history(fact)]
    return view


@router.post("/facts/{fact_id}/decision", response={200: FactDetailOut, **ERRORS})
def fact_decision(request, fact_id: str, payload: DecisionIn):
    fact = get_owned_or_404(Fact, request.auth, public_id=fact_id)
    services.decide(owner=request.auth, fact=fact, status=payload.status, reason=payload.reason, author="user")
    return fact_detail(request, fact_id)


@router.get("/entities", response=list[EntityOut])
def list_entities(request, include_merged: bool = False):
    qs = queries.entities(owner=request.auth, include_merged=include_merged).annotate(
        n=Count("facts_as_subject", filter=Q(facts_as_subject__owner=request.auth))
    )
    return [
        {
            "id": str(e.public_id),
            "kind": e.kind,
            "name": e.name,
            "aliases": e.aliases,
            "merged_into": str(e.merged_into) if e.merged_into else None,
            "fact_count": e.n,
        }
        for e in qs
    ]


@router.get("/head", response=HeadOut)
def get_head(request):
    h = chain.head(request.auth)
    return {"head": h.head_commit_id, "length": h.length}


@router.post("/commits", response={201: CommitResultOut, 200: CommitResultOut, 409: HeadConflictOut, **ERRORS})
def post_commit(request, payload: CommitIn):
    """Append mutations. Send ``expected_head`` (from GET /head) for optimistic concurrency: 409 when the
    chain moved; re-sending a commit that was already applied answers 200 with ``applied: false``."""
    try:
        result = services.commit(
            owner=request.auth,
            mutations=payload.mutations,
            expected_head=payload.expected_head,
            author=payload.author,
            author_label=payload.author_label,
        )
    except HeadConflict as exc:
        return Status(409, {"detail": exc.message, "expected": exc.expected, "current": exc.current})
    body = {
        "commit_id": result.commit_id,
        "seq": result.seq,
        "applied": result.applied,
        "created_ids": result.created_ids,
    }
    return Status(201 if result.applied else 200, body)


@router.get("/verify", response=VerifyOut)
def verify(request):
    report = chain.verify(request.auth)
    return {
        "ok": report.ok,
        "length": report.length,
        "head": report.head_commit_id,
        "first_bad_seq": report.first_bad_seq,
        "first_bad_commit_id": report.first_bad_commit_id,
        "problem": report.problem,
    }


@router.get("/identity", response=list[IdentityOut])
def list_identity(request):
    return list(IdentityOverride.objects.owned_by(request.auth))


@router.put("/identity", response={200: IdentityOut, **ERRORS})
def put_identity(request, payload: IdentityIn):
    return layers.set_identity_override(owner=request.auth, key=payload.key, value=payload.value)


@router.delete("/identity/{path:key}", response={204: None, **ERRORS})
def delete_identity(request, key: str):
    get_owned_or_404(IdentityOverride, request.auth, key=key)
    layers.delete_identity_override(owner=request.auth, key=key)
    return Status(204, None)


# --- Refusals and forgetting ------------------------------------------------------------------------------
def _refusal_out(r) -> dict:
    return {
        "id": str(r.public_id),
        "kind": r.kind,
        "decision_commit_id": r.decision_commit_id,
        "fact_id": str(r.fact_public_id) if r.fact_public_id else None,
        "recorded_at": r.recorded_at,
        "lifted_at": r.lifted_at,
        "hit_count": getattr(r, "hit_count", 0),
        "url": queries.refusal_url(r),
    }


@router.get("/refusals", response={200: RefusalListOut, **ERRORS})
def list_refusals(
    request,
    include_lifted: bool = False,
    since: IsoDateTime | None = None,
    limit: limit_type(500) = 100,
    offset: Offset = 0,
):
    """Lasting refusals (hashes only: the refused text is never kept), with how often each refused a claim."""
    qs = queries.refusals(owner=request.auth, include_lifted=include_lifted)
    since = since or timezone.now() - timedelta(days=7)
    return {
        "count": qs.count(),
        "refused_since": queries.refusal_event_count(owner=request.auth, since=since),
        "items": [_refusal_out(r) for r in qs[offset : offset + limit]],
    }


@router.get("/refusals/events", response={200: list[RefusalEventOut], **ERRORS})
def refusal_events(request, since: IsoDateTime | None = None, limit: int = Query(100, ge=1, le=500)):
    """Claims a refusal kept out (from any source), newest first; default: the last 7 days."""
    since = since or timezone.now() - timedelta(days=7)
    return [e.__dict__ for e in queries.refusal_events(owner=request.auth, since=since, limit=limit)]


@router.post("/refusals/{refusal_id}/lift", response={200: RefusalOut, **ERRORS})
def lift_refusal(request, refusal_id: str, payload: LiftIn | None = None):
    """Take a refusal back (a commit): the claim may be proposed again and then waits for review."""
    refusal = get_owned_or_404(Refusal, request.auth, public_id=refusal_id)
    refusal = services.lift_refusal(owner=request.auth, refusal=refusal, reason=(payload.reason if payload else ""))
    return _refusal_out(queries.refusals(owner=request.auth, include_lifted=True).get(pk=refusal.pk))


def _forget_out(owner, report) -> dict:
    return {
        "commit_id": report.commit_id,
        "facts": report.facts,
        "evidence": report.evidence,
        "entities": report.entities,
        "episodes": report.episodes,
        "copies": report.copies,
        "verify_ok": chain.verify(owner).ok,
    }


@router.post("/entities/{entity_id}/forget", response={200: ForgetOut, **ERRORS})
def forget_entity(request, entity_id: str):
    """Forget a person for good: facts, evidence, entity, episodes, recall copies, their turns and name in
    stored transcripts/chats/screen events; a lasting refusal keeps re-syncs and other sources out."""
    entity = get_owned_or_404(Entity, request.auth, public_id=entity_id)
    return _forget_out(request.auth, forget_services.forget_entity(owner=request.auth, entity=entity))


@router.get("/sources", response=list[LedgerSourceOut])
def list_sources(request):
    return forget_services.sources(owner=request.auth)


@router.post("/sources/{source_id}/forget", response={200: ForgetOut, **ERRORS})
def forget_source(request, source_id: str):
    """Forget everything one source contributed (id from GET /sources)."""
    found = next((s for s in forget_services.sources(owner=request.auth) if s["id"] == source_id), None)
    if found is None:
        raise Http404("source not found")
    return _forget_out(
        request.auth, forget_services.forget_source_label(owner=request.auth, source_label=found["label"])
    )


@router.post("/facts/{fact_id}/forget", response={200: ForgetOut, **ERRORS})
def forget_fact(request, fact_id: str):
    fact = get_owned_or_404(Fact, request.auth, public_id=fact_id)
    cid = forget_services.forget(owner=request.auth, fact=fact)
    return {"commit_id": cid, "facts": 1, "verify_ok": chain.verify(request.auth).ok}
