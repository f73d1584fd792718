"""Reads of what the gate wrote: memories by source (key or family) and day, with their trust evidence.

Selection goes through ``Claim`` (explicit source and day keys), never through ledger tags.
"""

from __future__ import annotations

from datetime import date as date_type

from django.db.models import Prefetch, QuerySet

from distill.models import Claim
from ledger.choices import Status
from ledger.models import Evidence, Fact

# Every status a reader may want to see, dropped included (with its reason: the gate's decisions are visible).
MEMORY_STATUSES = (Status.ACCEPTED, Status.PENDING_REVIEW, Status.PENDING, Status.REJECTED, Status.DROPPED, Status.CONTRADICTED, Status.SUPERSEDED)


def memory_facts(
    owner, *, family: str = "", source_key: str = "", day: date_type | str | None = None
) -> QuerySet[Fact]:
    """Owner-scoped memories the gate wrote, oldest first, evidence prefetched. ``family`` ("wearable") matches
    every "wearable:<kind>" source; ``source_key`` one source; ``day`` the owner-local day."""
    claims = Claim.objects.owned_by(owner)
    if family:
        claims = claims.from_family(family)
    if source_key:
        claims = claims.from_source(source_key)
    if day:
        claims = claims.for_day(day if isinstance(day, str) else day.isoformat())
    qs = Fact.objects.owned_by(owner).filter(pk__in=claims.values("fact_id"), status__in=MEMORY_STATUSES)
    return (
        qs.select_related("subject_entity")
        .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.order_by("recorded_at")))
        .order_by("valid_from", "recorded_at")
    )


def _short(label: str) -> str:
    """ "wearable:omi" → "omi": the source as people name it."""
    return label.split(":", 1)[1] if ":" in label else label


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
        "source": ref.get("source") or _short(fact.source_label),
        "date": ref.get("date"),
        "evidence": {
            "quote": first.quote if first else "",
            "url": first.source_url if first else "",
            "turns": ref.get("turns") or [],  # the pass's own first..last turn, whatever the source calls them
            "extractor": f"{first.extractor_id}@{first.extractor_version}" if first else "",
        },
        "valid_from": fact.valid_from.isoformat() if fact.valid_from else None,
    }


def _agreeing_sources(fact: Fact, evidence: list, details: dict) -> list[str]:
    """Sources that agreed: recorded at scoring time, plus other sources whose evidence was added later."""
    agreed = set(details.get("corroborating_sources") or [])
    own = fact.source_label
    agreed |= {_short(e.source_label) for e in evidence if e.source_label and e.source_label != own}
    return sorted(agreed)


def bar_segments(view: dict) -> list[dict]:
    """Score components as bar segments (percent of the 0..1 scale) for a Memories page."""
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


def memories(owner, *, family: str = "", source_key: str = "", day=None, limit: int = 50) -> list[dict]:
    """Memories of one day (pending_review included) as dicts, at most ``limit`` (1..500)."""
    limit = max(1, min(int(limit or 50), 500))
    return [memory_view(f) for f in memory_facts(owner, family=family, source_key=source_key, day=day)[:limit]]
