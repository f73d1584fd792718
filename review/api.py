from __future__ import annotations

from ninja import Query, Router, Schema

from ledger.models import Fact
from ledger.owned import get_owned_or_404
from review import queries, services
from review.schemas import DecisionIn, ReviewItemOut, ReviewQueueOut

router = Router(tags=["review"])


class QueueFilter(Schema):
    source: str | None = None
    limit: int = 50


def item_out(item: queries.ReviewItem) -> dict:
    view = item.view
    return {
        "id": item.id,
        "content": view["content"],
        "status": view["status"],
        "subject": view["subject"],
        "subject_name": view["subject_name"],
        "importance": view["importance"],
        "veracity": view["veracity"],
        "capture_confidence": view["capture_confidence"],
        "trust_score": item.trust_score,
        "trust_components": item.components,
        "band": item.band,
        "previously_rejected": view["previously_rejected"],
        "disclaimers": view["disclaimers"],
        "permitted_uses": view["permitted_uses"],
        "source_label": view["source_label"],
        "evidence": [
            {
                "quote": ev.quote,
                "source_type": ev.source_type,
                "source_label": ev.source_label,
                "url": ev.source_url,
                "observed_at": ev.observed_at.isoformat() if ev.observed_at else None,
            }
            for ev in item.evidence
        ],
    }


@router.get("/items", response=ReviewQueueOut)
def list_items(request, filters: Query[QueueFilter]):
    limit = max(1, min(filters.limit, 500))
    items = queries.review_queue(owner=request.auth, source=filters.source, limit=limit)
    return {"count": queries.queue_size(owner=request.auth), "items": [item_out(i) for i in items]}


@router.post("/items/{item_id}/decision", response=ReviewItemOut)
def decide(request, item_id: str, payload: DecisionIn):
    fact = get_owned_or_404(Fact, request.auth, public_id=item_id)
    fact = services.decide_item(
        owner=request.auth, fact=fact, decision=payload.decision, content=payload.content, reason=payload.reason
    )
    return item_out(queries.review_item(owner=request.auth, fact=fact))
