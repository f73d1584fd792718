"""Background work: thin wrappers that take ids, reload rows and call one service."""

from __future__ import annotations

import logging

from django.utils import timezone
from django_q.tasks import async_task

from accounts.services import user_timezone
from wearables import services
from wearables.models import Source
from wearables.services.sync import SYNC_ORDER

logger = logging.getLogger(__name__)

DEEP_PASS_LOCAL_HOUR = 3  # the daily 7-day pass runs in the user's 03:00 hour


def sync_source(source_id: int, days: int = 2, trigger: str = "schedule") -> str:
    """Sync the last ``days`` local days of one source; quietly skips a source that is gone or disabled."""
    source = Source.objects.select_related("owner").filter(pk=source_id, enabled=True).first()
    if source is None:
        return "skipped"
    dates = services.recent_dates(source.owner, days)
    run = services.sync(owner=source.owner, source=source, dates=dates, trigger=trigger)
    return run.status


def _due_sources():
    # Bee last: it aligns its speakers against the devices that flag the wearer.
    sources = (
        Source.objects.enabled().filter(owner__wearables_wearablessettings_set__enabled=True).select_related("owner")
    )
    return sorted(sources, key=lambda s: SYNC_ORDER.get(s.kind, 9))


def sync_recent() -> int:
    """Every 15 minutes: re-sync the last 2 local days of every enabled source (feature switched on)."""
    count = 0
    for source in _due_sources():
        async_task(sync_source, source.pk, 2, "schedule", group="wearables-sync", timeout=600)
        count += 1
    return count


def deep_sync_due() -> int:
    """Hourly: for users whose local time is in the 03:00 hour, re-sync the last 7 local days once."""
    count = 0
    now = timezone.now()
    for source in _due_sources():
        if now.astimezone(user_timezone(source.owner)).hour == DEEP_PASS_LOCAL_HOUR:
            async_task(sync_source, source.pk, 7, "deep", group="wearables-sync", timeout=1800)
            count += 1
    return count


def sync_now(source_id: int, days: int = 2, force_memories: bool = False) -> str:
    """A user's "Sync now" (page/API), run in the worker so the request returns at once."""
    source = Source.objects.select_related("owner").filter(pk=source_id).first()
    if source is None or not source.enabled:
        return "skipped"
    run = services.sync(
        owner=source.owner,
        source=source,
        dates=services.recent_dates(source.owner, days),
        force_memories=force_memories,
        trigger="manual",
    )
    return run.status


def run_memory_pass(transcript_id: int) -> None:
    """Enqueued by sync after a day transcript is written or changed: the day through the trust gate."""
    from wearables.models import DayTranscript
    from wearables.services.memories import run_memory_pass as memory_pass

    transcript = DayTranscript.objects.select_related("source", "owner").filter(pk=transcript_id).first()
    if transcript is not None:
        memory_pass(transcript=transcript)


def import_native_memories(source_id: int, memory_ids: list[int]) -> None:
    """Stored ``NativeMemoryImport`` rows of one source through the gate's native import."""
    from wearables.models import NativeMemoryImport
    from wearables.services.memories import import_native_memories as native_import

    rows = list(NativeMemoryImport.objects.filter(source_id=source_id, pk__in=memory_ids))
    if rows:
        native_import(source_id, rows)
