"""``/api/v1/screen/``: the source, events of a local day, one event in full, corrections, signal stats, collect."""

from __future__ import annotations

from uuid import UUID

from django.urls import reverse
from ninja import Router

from accounts.owned import get_owned_or_404
from accounts.schemas import ErrorOut
from screen import queries, services
from screen.collector.client import ScreenPipeError
from screen.models import ScreenEvent, ScreenSource
from screen.schemas import (
    CollectOut,
    CorrectIn,
    EventDetailOut,
    EventOut,
    ScreenSourceIn,
    ScreenSourceOut,
    SignalStatsOut,
)
from screen.services import curate
from screen.services.collect import ALREADY_RUNNING, CollectBusy

router = Router(tags=["screen"])


def _source_out(source: ScreenSource) -> dict:
    return {
        "enabled": source.enabled,
        "base_url": source.base_url,
        "effective_url": services.source_url(source),
        "backfill_days": source.backfill_days,
        "frame_budget": source.frame_budget,
        "cursor_at": source.cursor_at,
        "last_collect_at": source.last_collect_at,
        "last_error": source.last_error,
        "gaps": source.gaps,
        "missing_frames": source.missing_frames,
        "restarts": source.restarts,
        "preferences": source.preferences,
    }


def event_out(e: ScreenEvent) -> dict:
    return {
        "id": e.public_id,
        "type": e.event_type,
        "title": e.title,
        "summary": e.summary,
        "outcome": e.outcome,
        "family": (e.attributes or {}).get("family") or e.event_type,
        "polarity": (e.attributes or {}).get("polarity", ""),
        "outcome_subject": (e.attributes or {}).get("outcome_subject", ""),
        "status": e.status,
        "started_at": e.started_at,
        "ended_at": e.ended_at,
        "local_date": e.local_date.isoformat(),
        "entities": e.entities,
        "attributes": e.attributes,
        "user_actions": e.user_actions,
        "confidence": e.confidence,
        "sensitivity": e.sensitivity,
        "durability": e.durability,
        "important": e.important,
        "revision": e.revision,
        "related_events": e.related_events,
        "related_conversations": e.related_conversations,
        "proposer": e.proposer,
        "created_at": e.created_at,
        "revised_at": e.revised_at,
    }


def _detail(e: ScreenEvent) -> dict:
    out = event_out(e)
    out["assertions"] = [
        {"text": a.text, "confidence": a.confidence, "content_role": a.content_role, "evidence": a.evidence}
        for a in e.assertions.all()
    ]
    out["evidence"] = [
        {
            "role": ev.role,
            "occurred_at": ev.occurred_at,
            "frame_id": ev.frame_id,
            "excerpt": ev.excerpt,
            "app_name": ev.app_name,
            "window_name": ev.window_name,
            "image_url": reverse("screen:frame", args=[ev.image_id]) if ev.image_id else None,
        }
        for ev in e.evidence.all()
    ]
    out["revisions"] = [
        {
            "number": r.number,
            "status": r.status,
            "reason": r.reason,
            "author": r.author,
            "created_at": r.created_at,
            "snapshot": r.snapshot,
        }
        for r in e.revisions.order_by("number")
    ]
    return out


@router.get("/source", response=ScreenSourceOut)
def get_source(request):
    return _source_out(services.peek_source(request.auth))


@router.put("/source", response={200: ScreenSourceOut, 422: ErrorOut})
def put_source(request, payload: ScreenSourceIn):
    source = services.update_source(
        owner=request.auth,
        enabled=payload.enabled,
        base_url=payload.base_url,
        backfill_days=payload.backfill_days,
        frame_budget=payload.frame_budget,
    )
    if payload.preferences is not None:
        source = services.set_preferences(owner=request.auth, texts=payload.preferences)
    return _source_out(source)


@router.get("/events", response={200: list[EventOut], 422: ErrorOut})
def list_events(request, date: str = "", type: str = "", status: str = ""):  # noqa: A002 - API names
    local_date = queries.parse_date(date, request.auth)
    return [event_out(e) for e in queries.events_for_day(request.auth, local_date, event_type=type, status=status)]


@router.get("/events/{event_id}", response={200: EventDetailOut, 404: ErrorOut})
def get_event(request, event_id: UUID):
    return _detail(get_owned_or_404(ScreenEvent, request.auth, public_id=event_id))


@router.post("/events/{event_id}/correct", response={200: EventDetailOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut})
def correct_event(request, event_id: UUID, payload: CorrectIn):
    event = get_owned_or_404(ScreenEvent, request.auth, public_id=event_id)
    event = services.correct_event(
        owner=request.auth, event=event, correction=services.Correction(payload.action, payload.title)
    )
    return _detail(event)


@router.get("/signals/stats", response=SignalStatsOut)
def signal_stats(request):
    return queries.signal_stats(request.auth)


@router.post("/collect", response={200: CollectOut, 409: ErrorOut, 502: ErrorOut})
def collect(request):
    run = services.run_collect(owner=request.auth, trigger="api")
    if run.error == ALREADY_RUNNING:  # the schedule or another node is collecting: a conflict, not a bad upstream
        raise CollectBusy(f"{ALREADY_RUNNING}; try again when it has finished")
    if run.status == run.Status.FAILED:
        raise ScreenPipeError(run.error or "collect failed")
    curated = [r for r in curate.curate_pending(owner=request.auth) if r.outcome == "curated"]
    return {
        "status": run.status,
        "items": run.items,
        "signals": run.signals,
        "events_created": run.events_created,
        "events_revised": run.events_revised,
        "frames_fetched": run.frames_fetched,
        "gaps": run.gaps,
        "error": run.error,
        "curated": len(curated),
    }
