"""Recall API at /api/v1/memory/: the context block for agents, search, and a consolidation trigger."""

from __future__ import annotations

from ninja import Query, Router

from accounts.schemas import ErrorOut
from ledger.recall import consolidation, services
from ledger.recall.schemas import ConsolidationOut, RecallIn, RecallOut, SearchFilter, SearchOut
from ledger.recall.search import search_memory

router = Router(tags=["recall"])


@router.post("/recall", response={200: RecallOut, 422: ErrorOut})
def recall(request, payload: RecallIn):
    """The context block an agent should read before answering ``query`` (identity + the gate's section)."""
    result = services.recall_context(
        owner=request.auth, query=payload.query, budget_tokens=payload.budget_tokens, scope=payload.scope
    )
    return result.as_dict()


@router.get("/search", response={200: SearchOut, 422: ErrorOut})
def search(request, filters: Query[SearchFilter]):
    """Hybrid search in one layer or all of them (owner-scoped, policy-filtered)."""
    items = search_memory(request.auth, filters.scope, filters.q, filters.limit)
    return {"query": filters.q, "scope": filters.scope, "items": [i.as_dict() for i in items]}


@router.post("/consolidate", response={200: ConsolidationOut})
def consolidate(request):
    """Run consolidation now for the calling user (the daily schedule does the same)."""
    run = consolidation.consolidate(owner=request.auth, trigger="manual")
    return {
        "status": run.status,
        "counts": run.counts,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }
