"""``/api/v1/review/``: the queue by band, decisions (each a ledger commit by the reviewer), undo, bulk, stats."""

from __future__ import annotations

from dataclasses import asdict

from ninja import Query, Router

from accounts.exceptions import DomainError
from accounts.owned import get_owned_or_404
from accounts.schemas import ErrorOut
from distill import learning as learning_reads
from ledger import permitted_uses
from ledger.models import Fact, Status
from review import cards, queries, services
from review.schemas import (
    BulkIn,
    BulkOut,
    DecideIn,
    DecideOut,
    LearnedOut,
    QueueFilter,
    ReviewDecisionIn,
    ReviewItemOut,
    ReviewQueueOut,
    StatsOut,
    UndoOut,
)

router = Router(tags=["review"])


def _evidence(ev) -> dict:
    return {
        "quote": ev.quote,
        "source_type": ev.source_type,
        "source_label": ev.source_label,
        "url": ev.source_url,
        "observed_at": ev.observed_at.isoformat() if ev.observed_at else None,
    }


def item_out(item: cards.ReviewItem) -> dict:
    view = item.view
    held = None
    if item.held is not None:
        held = {
            "id": str(item.held.public_id),
            "content": item.held.content,
            "status": item.held.status,
            "evidence": [_evidence(ev) for ev in item.held_evidence],
        }
    return {
        "id": item.id,
        "content": item.fact.content,
        "status": item.fact.status,
        "band": item.band,
        "zone": item.zone,
        "priority": round(item.priority, 6),
        "subject": view["subject"],
        "subject_name": view["subject_name"],
        "importance": item.fact.importance,
        "veracity": item.fact.veracity,
        "capture_confidence": item.fact.capture_confidence,
        "trust_score": item.trust,
        "trust_components": item.components,
        "trust_in_words": item.trust_words,
        "why": item.why,
        "previously_rejected": item.fact.previously_rejected,
        "disclaimers": view["disclaimers"],
        "permitted_uses": view["permitted_uses"],
        "permitted_uses_if_accepted": permitted_uses.permitted_uses(Status.ACCEPTED),
        "source_label": item.fact.source_label,
        "evidence": [_evidence(ev) for ev in item.evidence],
        "conflict_with": held,
    }


def _band(value: str) -> str:
    if value not in queries.Band.ALL:
        raise services.InvalidAction(f"band must be one of: {', '.join(queries.Band.ALL)}")
    return value


@router.get("/", response={200: ReviewQueueOut, 400: ErrorOut, 422: ErrorOut})
def get_queue(request, filters: Query[QueueFilter]):
    """One page of a band (queue, conflicts, auto_accepted, dropped), best first; follow ``next_cursor``."""
    band = _band(filters.band)
    page = queries.band_page(
        request.auth,
        band,
        source=filters.source,
        subject=filters.subject,
        cursor=filters.cursor,
        limit=filters.limit,
        show_all=filters.include_held_back,
    )
    return {
        "count": page.total,
        "band": band,
        "items": [item_out(i) for i in page.items],
        "next_cursor": page.next_cursor,
    }


@router.post("/decide", response={200: DecideOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut})
def decide(request, payload: DecideIn):
    """Apply one action: accept, reject, edit (needs ``edit``), not_about_me (needs ``subject``), merge (needs
    ``merge_into``), snooze (needs ``snooze_until``), rescue. 409 when the item already left that state."""
    fact = get_owned_or_404(Fact, request.auth, public_id=payload.item)
    outcome = services.act(
        owner=request.auth,
        fact=fact,
        action=payload.action,
        edit=payload.edit,
        subject=payload.subject,
        merge_into=payload.merge_into,
        snooze_until=payload.snooze_until,
    )
    return {
        "action": outcome.action.kind,
        "action_id": str(outcome.action.public_id),
        "item": item_out(cards.card(request.auth, outcome.fact)),
    }


@router.post("/undo", response={200: UndoOut, 409: ErrorOut})
def undo(request):
    """Revert the last action (a whole bulk batch) with new reviewer commits."""
    facts = services.undo(owner=request.auth)
    return {"undone": len(facts), "items": [str(f.public_id) for f in facts]}


@router.post("/bulk", response={200: BulkOut, 409: ErrorOut, 422: ErrorOut})
def bulk(request, payload: BulkIn):
    """Accept or reject every item of a filtered band; ``expected`` is the count the person confirmed."""
    done = services.bulk(
        owner=request.auth,
        band=_band(payload.band),
        action=payload.action,
        source=payload.source,
        subject=payload.subject,
        expected=payload.expected,
    )
    return {"decided": len(done)}


@router.get("/stats", response=StatsOut)
def stats(request):
    """Queue size, what the budget held back, decisions today by person and by timeout, refusals this week."""
    return asdict(queries.stats(request.auth))


def learned_out(found) -> dict:
    return {
        "status": found.status,
        "examples": found.n_examples,
        "floor": found.floor,
        "decided_since_refit": found.pending_examples,
        "reason": found.reason,
        "version": found.version,
        "fitted_at": found.fitted_at.isoformat() if found.fitted_at else None,
        "shipped_precision": found.shipped_precision,
        "adjusted_precision": found.adjusted_precision,
        "rules": [asdict(r) for r in found.rules],
    }


@router.get("/learning", response=LearnedOut)
def learning(request):
    """What the gate has learned from your decisions: the adjustment's state and its rules in sentences."""
    return learned_out(learning_reads.learned(request.auth))


@router.post("/learning/refit", response=LearnedOut)
def refit_learning(request):
    """Refit your adjustment from your decisions now (the nightly schedule also does)."""
    return learned_out(services.refit_learning(owner=request.auth))


# --- the first API (kept: MCP clients and scripts use it) ----------------------------------------------
@router.get("/items", response={200: ReviewQueueOut, 422: ErrorOut})
def list_items(request, source: str | None = None, limit: int = 50):
    page = queries.band_page(request.auth, queries.Band.QUEUE, source=source, limit=max(1, min(limit, 200)))
    return {
        "count": page.total,
        "band": page.band,
        "items": [item_out(i) for i in page.items],
        "next_cursor": page.next_cursor,
    }


@router.post("/items/{item_id}/decision", response={200: ReviewItemOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut})
def decide_item(request, item_id: str, payload: ReviewDecisionIn):
    fact = get_owned_or_404(Fact, request.auth, public_id=item_id)
    if payload.content is not None and not payload.content.strip():
        raise DomainError("content must not be empty")
    if payload.decision == "reject" and payload.content is not None:
        raise DomainError("a rejected memory cannot be reworded")
    action = "edit" if payload.decision == "accept" and payload.content is not None else payload.decision
    outcome = services.act(owner=request.auth, fact=fact, action=action, edit=payload.content)
    return item_out(cards.card(request.auth, outcome.fact))
