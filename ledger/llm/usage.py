"""The daily call cap and the per-call-type figures, counted in the database per owner and owner-local day."""

from __future__ import annotations

import logging
from datetime import date

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.timestamps import zone_or_utc
from ledger.llm.config import CallType, daily_cap
from ledger.llm.models import CallStat, DailyBudget

log = logging.getLogger("ledger.llm")


def owner_id_of(owner) -> int | None:
    """Accept a user, a user id or its string form (``DayInput.owner_key``); None when there is no owner."""
    if owner is None or owner == "":
        return None
    if hasattr(owner, "pk"):
        return owner.pk
    try:
        return int(owner)
    except (TypeError, ValueError):
        return None


def local_day(owner_id: int | None) -> date:
    """Today in the owner's time zone (their settings; UTC without one)."""
    from accounts.models import UserSettings

    name = "UTC"
    if owner_id is not None:
        name = UserSettings.objects.filter(user_id=owner_id).values_list("timezone", flat=True).first() or "UTC"
    return timezone.now().astimezone(zone_or_utc(name)).date()


def take_call(owner, call: CallType) -> bool:
    """Count one model call against the owner's cap for their local day; False (and nothing sent) past the cap.

    Two workers may take the last call at once: the conditional UPDATE lets exactly one of them through, because
    PostgreSQL re-checks ``calls < cap`` on the row it locks for the update. The counter has its own short
    transaction (the client refuses to call inside another), so the row lock ends before the model is asked."""
    oid = owner_id_of(owner)
    day = local_day(oid)
    with transaction.atomic():
        DailyBudget.objects.bulk_create([DailyBudget(owner_id=oid, day=day)], ignore_conflicts=True)
        rows = DailyBudget.objects.filter(owner_id=oid, day=day)
        if rows.filter(calls__lt=daily_cap()).update(calls=F("calls") + 1) == 1:
            return True
        rows.update(refused=F("refused") + 1)
    return False


def calls_today(owner) -> int:
    oid = owner_id_of(owner)
    return DailyBudget.objects.filter(owner_id=oid, day=local_day(oid)).values_list("calls", flat=True).first() or 0


def _bump(owner, call: CallType, **deltas: int) -> None:
    oid = owner_id_of(owner)
    day = local_day(oid)
    CallStat.objects.bulk_create([CallStat(owner_id=oid, day=day, call_type=call)], ignore_conflicts=True)
    CallStat.objects.filter(owner_id=oid, day=day, call_type=call).update(
        **{name: F(name) + value for name, value in deltas.items()}
    )


def record_call(owner, call: CallType, *, valid: bool, latency_ms: int, tokens: int) -> None:
    _bump(owner, call, calls=1, valid=int(valid), latency_ms=max(0, latency_ms), tokens=max(0, tokens))


def record_fallback(owner, call: CallType, reason: str) -> None:
    """The deterministic path ran instead of (or after) the model: counted, and logged as a WARNING."""
    log.warning("LLM %s fell back to the deterministic path: %s", CallType(call).label, reason)
    _bump(owner, call, fallbacks=1)


def today_stats(owner) -> list[CallStat]:
    """One row per call type for the owner's local day (zeros where nothing happened), in CallType order."""
    oid = owner_id_of(owner)
    day = local_day(oid)
    found = {s.call_type: s for s in CallStat.objects.filter(owner_id=oid, day=day)}
    return [found.get(c.value) or CallStat(owner_id=oid, day=day, call_type=c.value) for c in CallType]
