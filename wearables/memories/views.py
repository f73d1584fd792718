"""The per-day Memories page: each memory with its trust bar, decision badge and a link to the transcript moment."""

from __future__ import annotations

from datetime import date as date_type

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from wearables.memories import queries
from wearables.models import DayTranscript, SourceKind


def _parse_date(value: str | None) -> date_type | None:
    try:
        return date_type.fromisoformat(value) if value else None
    except ValueError:
        return None


@require_GET
@login_required
@vary_on_headers("HX-Request")
def memories_page(request):
    days = list(
        DayTranscript.objects.owned_by(request.user)
        .order_by("-local_date")
        .values_list("local_date", flat=True)
        .distinct()[:60]
    )
    day = _parse_date(request.GET.get("date")) or (days[0] if days else None)
    source = request.GET.get("source") or ""
    if source not in SourceKind.values:
        source = ""
    items = queries.memories_for_day(request.user, source or None, day, 500) if day else []
    for item in items:
        item["segments"] = queries.bar_segments(item)
        item["score_pct"] = round(min(float(item["trust_score"] or 0), 1.0) * 100)
        item["status_label"] = item["status"].replace("_", " ")
    context = {
        "day": day,
        "days": days,
        "source": source,
        "sources": SourceKind.choices,
        "items": items,
        "counts": {s: sum(1 for i in items if i["status"] == s) for s in ("accepted", "pending_review", "rejected")},
    }
    template = "wearables/partials/_memories.html" if getattr(request, "htmx", False) else "wearables/memories.html"
    return render(request, template, context)
