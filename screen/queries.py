"""Composed reads for the Timeline, the API and the MCP ``events_timeline`` tool. Every read is owner-scoped."""

from __future__ import annotations

from datetime import date, datetime

from django.db.models import Count, Prefetch
from django.utils import timezone

from accounts.exceptions import DomainError
from accounts.services import user_timezone
from screen.models import CollectRun, EventEvidence, EventRevision, ScreenEvent, ScreenSource, Signal
from screen.services.rollup import day_rollup, rollup_lines


class QueryError(DomainError):
    status_code = 422


def local_today(owner) -> date:
    return timezone.now().astimezone(user_timezone(owner)).date()


def opening_day(owner) -> date:
    """The day the Timeline opens on: today, or the latest earlier day with events when today has none yet."""
    today = local_today(owner)
    latest = (
        ScreenEvent.objects.owned_by(owner)
        .filter(local_date__lte=today)
        .visible()
        .order_by("-local_date")
        .values_list("local_date", flat=True)
        .first()
    )
    return latest or today


def parse_date(value: str | date | None, owner) -> date:
    if value is None or value == "":
        return local_today(owner)
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise QueryError(f"date must be YYYY-MM-DD (got {value!r})") from exc


def events_for_day(owner, local_date: date, *, event_type: str = "", status: str = ""):
    """The day's events (the owner's local day; an event crossing midnight belongs to the day it started)."""
    qs = ScreenEvent.objects.owned_by(owner).on_date(local_date)
    if event_type and (len(event_type) > 100 or not event_type.isprintable()):
        raise QueryError("type must be an event type such as 'game.match_completed' or a namespace such as 'game'")
    if event_type:
        # A namespace ("game") or a full type ("game.match_completed").
        qs = qs.filter(event_type__startswith=event_type) if "." not in event_type else qs.filter(event_type=event_type)
    if status:
        if status not in ScreenEvent.Status.values:
            raise QueryError(f"status must be one of {', '.join(ScreenEvent.Status.values)}")
        qs = qs.filter(status=status)
    else:
        qs = qs.visible()
    return qs.prefetch_related(
        Prefetch("evidence", queryset=EventEvidence.objects.order_by("occurred_at")),
        Prefetch("revisions", queryset=EventRevision.objects.order_by("number")),
        "assertions",
    ).order_by("started_at", "id")


def event_types_on(owner, local_date: date) -> list[str]:
    return list(
        ScreenEvent.objects.owned_by(owner)
        .on_date(local_date)
        .values_list("event_type", flat=True)
        .distinct()
        .order_by("event_type")
    )


def outcome_evidence(event: ScreenEvent) -> EventEvidence | None:
    rows = list(event.evidence.all())
    for role in (EventEvidence.Role.OUTCOME, EventEvidence.Role.PROBLEM):
        for ev in rows:
            if ev.role == role:
                return ev
    return rows[0] if rows else None


def decorate(events: list[ScreenEvent], owner) -> list[ScreenEvent]:
    """Set display attributes: ``outcome_evidence``, ``local_start``/``local_end`` in the owner's timezone."""
    tz = user_timezone(owner)
    for e in events:
        e.outcome_evidence = outcome_evidence(e)
        e.local_start = e.started_at.astimezone(tz)
        e.local_end = e.ended_at.astimezone(tz) if e.ended_at else None
    return events


def _local_iso(dt: datetime | None, tz) -> str | None:
    return dt.astimezone(tz).isoformat(timespec="seconds") if dt else None


def events_timeline(owner, day: str | date | None = None, *, event_type: str = "", limit: int = 100) -> dict:
    """One local day of screen events for agents (the MCP ``events_timeline`` tool): local times, outcomes,
    the outcome evidence excerpt and the day's rollup. Rejected events are left out."""
    local_date = parse_date(day, owner)
    tz = user_timezone(owner)
    events = list(events_for_day(owner, local_date, event_type=event_type)[: max(1, min(limit, 500))])
    out = []
    for e in events:
        ev = outcome_evidence(e)
        out.append(
            {
                "id": str(e.public_id),
                "type": e.event_type,
                "title": e.title,
                "outcome": e.outcome,
                "status": e.status,
                "started_at": _local_iso(e.started_at, tz),
                "ended_at": _local_iso(e.ended_at, tz),
                "summary": e.summary,
                "confidence": round(e.confidence, 2),
                "revision": e.revision,
                "evidence": (ev.excerpt[:300] if ev else ""),
            }
        )
    return {
        "date": local_date.isoformat(),
        "timezone": str(tz.key),
        "events": out,
        "rollup": rollup_lines(day_rollup(owner=owner, local_date=local_date)),
    }


def signal_stats(owner) -> dict:
    by_kind = dict(Signal.objects.owned_by(owner).values_list("kind").annotate(n=Count("id")).order_by())
    total = sum(by_kind.values())
    return {
        "total": total,
        "unprocessed": Signal.objects.owned_by(owner).unprocessed().count(),
        "by_kind": {k: by_kind.get(k, 0) for k in Signal.Kind.values},
        "events": ScreenEvent.objects.owned_by(owner).count(),
        "frames_fetched": owner.screen_screenframe_set.count(),
    }


def source_panel(owner) -> dict:
    from screen.services import peek_source, source_url

    source: ScreenSource = peek_source(owner)
    last_run = CollectRun.objects.owned_by(owner).first()
    return {"source": source, "url": source_url(source), "last_run": last_run}
