"""Memory reads: memories derived from wearable transcripts, per day, with their trust evidence."""

from __future__ import annotations

from datetime import date as date_type

from django.db.models import Prefetch, QuerySet

from ledger.models import Evidence, Fact

MEMORY_STATUSES = ("accepted", "pending_review", "pending", "rejected", "contradicted", "superseded")


def _source_kind(source) -> str | None:
    if source is None or source == "":
        return None
    if hasattr(source, "kind"):
        return source.kind
    if isinstance(source, int) or (isinstance(source, str) and source.isdigit()):
        from wearables.models import Source

        found = Source.objects.filter(pk=int(source)).values_list("kind", flat=True).first()
        return found or "__none__"
    return str(source)


def memory_facts(owner, source=None, date: date_type | str | None = None) -> QuerySet[Fact]:
    """Owner-scoped facts tagged as wearable memories, newest first, evidence prefetched."""
    qs = Fact.objects.owned_by(owner).filter(tags__contains=["wearable"], status__in=MEMORY_STATUSES)
    kind = _source_kind(source)
    if kind:
        qs = qs.filter(tags__contains=[f"wearable:{kind}"])
    if date:
        day = date if isinstance(date, str) else date.isoformat()
        qs = qs.filter(tags__contains=[f"wearable-day:{day}"])
    return (
        qs.select_related("subject_entity")
        .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.order_by("recorded_at")))
        .order_by("valid_from", "recorded_at")
    )


def memory_view(fact: Fact) -> dict:
    evidence = list(fact.evidence.all())
    first = evidence[0] if evidence else None
    details = (first.details if first else {}) or {}
    ref = (first.source_ref if first else {}) or {}
    components = details.get("components") or {}
    return {
        "id": str(fact.public_id),
        "content": fact.content,
        "subject": fact.subject_kind,
        "person": fact.subject_entity.name if fact.subject_entity_id else None,
        "status": fact.status,
        "status_reason": fact.status_reason,
        "importance": fact.importance,
        "kind": details.get("kind", ""),
        "trust_score": details.get("trust_score", fact.veracity),
        "components": components,
        "decision": details.get("decision", ""),
        "decision_reason": details.get("reason", ""),
        "judge_verdict": details.get("judge_verdict"),
        "corroborating_sources": _agreeing_sources(fact, evidence, details),
        "supporting_memory_id": details.get("supporting_memory_id"),
        "flags": details.get("flags") or [],
        "source": ref.get("source") or fact.source_label.removeprefix("wearable:"),
        "date": ref.get("date"),
        "evidence": {
            "quote": first.quote if first else "",
            "url": first.source_url if first else "",
            "utterances": ref.get("utterances") or [],
            "transcript_id": ref.get("transcript_id"),
            "extractor": f"{first.extractor_id}@{first.extractor_version}" if first else "",
        },
        "valid_from": fact.valid_from.isoformat() if fact.valid_from else None,
    }


def _agreeing_sources(fact: Fact, evidence: list, details: dict) -> list[str]:
    """Sources that agreed: recorded at scoring time, plus other devices whose evidence was added later."""
    agreed = set(details.get("corroborating_sources") or [])
    own = fact.source_label
    agreed |= {e.source_label.removeprefix("wearable:") for e in evidence if e.source_label and e.source_label != own}
    return sorted(agreed)


def bar_segments(view: dict) -> list[dict]:
    """Score components as bar segments (percent of the 0..1 scale) for the Memories page."""
    c = view.get("components") or {}
    parts = [
        ("base", "confidence × prior"),
        ("judge", "judge"),
        ("corroboration", "other device"),
        ("support", "supported"),
    ]
    return [
        {"name": name, "label": label, "value": c.get(name, 0.0), "pct": round(min(c.get(name, 0.0), 1.0) * 100, 1)}
        for name, label in parts
        if c.get(name)
    ]


def memories_for_day(owner, source=None, date=None, limit: int = 50) -> list[dict]:
    """Every memory derived from wearable transcripts for ``date`` (pending_review included), as dicts."""
    limit = max(1, min(int(limit or 50), 500))
    return [memory_view(f) for f in memory_facts(owner, source, date)[:limit]]
