"""Background work: thin wrappers that take ids, re-load rows and call one service."""

from __future__ import annotations

import logging

from django_q.tasks import async_task

from screen import services
from screen.models import ScreenSource
from screen.services import curate

logger = logging.getLogger(__name__)


def collect_source(source_id: int) -> str:
    """Collect one enabled source, then curate what changed; quietly skips a source that is gone or disabled."""
    source = ScreenSource.objects.select_related("owner").filter(pk=source_id, enabled=True).first()
    if source is None:
        return "skipped"
    run = services.run_collect(owner=source.owner, trigger="schedule")
    curate.curate_pending(owner=source.owner)
    return run.status


def collect_all() -> int:
    """The schedule's entry (every 10 minutes): one task per enabled source."""
    ids = list(ScreenSource.objects.filter(enabled=True).values_list("pk", flat=True))
    for pk in ids:
        async_task(collect_source, pk, timeout=600)
    return len(ids)
