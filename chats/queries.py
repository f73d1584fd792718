"""Composed reads for chats: sessions by day with their episodes, lessons, reports."""

from __future__ import annotations

from collections import OrderedDict
from datetime import datetime, time, timedelta

from chats.conversation import local_day
from chats.models import ChatSession, Lesson, SleepReport
from chats.text import content_words
from ledger.models import Episode


def recent_sessions(owner, *, limit: int = 50):
    return (
        ChatSession.objects.owned_by(owner)
        .select_related("agent_project", "parent")
        .order_by("-started_at", "-id")[:limit]
    )


def sessions_by_day(owner, *, limit: int = 100) -> OrderedDict:
    """{date: [(session, [episodes])]} newest day first; episodes are the session's digest and moments."""
    sessions = list(recent_sessions(owner, limit=limit))
    prefixes = {f"chat:{s.public_id}": s for s in sessions}
    episodes: dict[str, list[Episode]] = {}
    if prefixes:
        for ep in Episode.objects.owned_by(owner).filter(source_type="chat").order_by("key"):
            sid = ep.key.split(":", 2)
            root = f"chat:{sid[1]}" if len(sid) > 1 else ep.key
            if root in prefixes:
                episodes.setdefault(root, []).append(ep)
    days: OrderedDict = OrderedDict()
    for s in sessions:
        day = local_day(owner, s.started_at) if s.started_at else None
        days.setdefault(day, []).append((s, episodes.get(f"chat:{s.public_id}", [])))
    return days


ANY_PROJECT = object()  # ``lessons(project=ANY_PROJECT)``: every lesson, whatever its project (the owner's own views)


def lessons(owner, *, query: str = "", limit: int = 50, status: str = Lesson.Status.ACTIVE,
            project=ANY_PROJECT) -> list[Lesson]:  # fmt: skip
    """The owner's lessons (with a ledger fact), best match for ``query`` first. ``project``: an ``AgentProject``
    (its lessons and those learned outside any project), None (only those outside any project) or ANY_PROJECT."""
    rows = Lesson.objects.owned_by(owner).filter(status=status).exclude(fact_public_id__isnull=True)
    if project is not ANY_PROJECT:
        rows = rows.visible_in(project)
    rows = list(rows.select_related("agent_project"))
    if query:
        words = set(content_words(query))
        scored = [(len(words & set(content_words(" ".join([r.text, *r.aliases])))), r) for r in rows]
        rows = [r for score, r in sorted(scored, key=lambda x: (-x[0], -x[1].strength)) if score > 0]
    return rows[:limit]


def latest_report(owner) -> SleepReport | None:
    return SleepReport.objects.filter(owner=owner).order_by("-day").first()


def session_out(s: ChatSession) -> dict:
    return {
        "id": str(s.public_id), "source": s.source_key, "external_id": s.external_id, "title": s.title,
        "project": s.project, "project_name": s.agent_project.name if s.agent_project_id else "",
        "status": s.status, "outcome": s.outcome, "started_at": s.started_at, "turns": s.turn_count,
        "parent_id": str(s.parent.public_id) if s.parent_id else None,
    }  # fmt: skip


def lesson_out(x: Lesson) -> dict:
    return {
        "id": str(x.public_id), "kind": x.kind, "text": x.text, "strength": round(x.strength, 3),
        "status": x.status, "seen_count": x.seen_count, "aliases": x.aliases, "project": x.project,
        "project_name": x.agent_project.name if x.agent_project_id else "", "history": x.history,
    }  # fmt: skip


def sessions_on_day(owner, day) -> list[ChatSession]:
    """Sessions that started on ``day`` in the owner's timezone."""
    from accounts.services import user_timezone

    tz = user_timezone(owner)
    start = datetime.combine(day, time.min, tzinfo=tz)
    return list(
        ChatSession.objects.owned_by(owner)
        .filter(started_at__gte=start, started_at__lt=start + timedelta(days=1))
        .order_by("started_at")
    )
