"""The owner's screen source: its settings and preferences, and running a collect."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from accounts.exceptions import DomainError
from screen import preferences
from screen.collector.client import ScreenPipeClient
from screen.models import CollectRun, ScreenSource
from screen.services.collect import collect


class SourceError(DomainError):
    status_code = 422


def get_source(owner) -> ScreenSource:
    source, _ = ScreenSource.objects.get_or_create(owner=owner)
    return source


def peek_source(owner) -> ScreenSource:
    """The owner's source for reading: an unsaved default when none exists yet (GETs never write)."""
    return ScreenSource.objects.filter(owner=owner).first() or ScreenSource(owner=owner)


def source_url(source: ScreenSource) -> str:
    """The source's own URL, else ``ALMANAC_SCREENPIPE_URL``, else ScreenPipe's default port."""
    return source.base_url or getattr(settings, "ALMANAC_SCREENPIPE_URL", "") or "http://127.0.0.1:3030"


def update_source(
    *,
    owner,
    enabled: bool | None = None,
    base_url: str | None = None,
    backfill_days: int | None = None,
    frame_budget: int | None = None,
) -> ScreenSource:
    source = get_source(owner)
    if base_url is not None:
        base_url = base_url.strip()
        if not base_url.isprintable():
            raise SourceError("base_url must be an http(s) URL such as http://127.0.0.1:3030")
        try:
            parts = urlsplit(base_url)
            valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0
        except ValueError:  # e.g. an unclosed IPv6 bracket or a port out of range
            valid = False
        if base_url and not valid:
            raise SourceError("base_url must be an http(s) URL such as http://127.0.0.1:3030")
        source.base_url = base_url.rstrip("/")
    if backfill_days is not None:
        if not 0 <= backfill_days <= 30:
            raise SourceError("backfill_days must be between 0 and 30")
        source.backfill_days = backfill_days
    if frame_budget is not None:
        if not 0 <= frame_budget <= 500:
            raise SourceError("frame_budget must be between 0 and 500")
        source.frame_budget = frame_budget
    if enabled is not None:
        source.enabled = enabled
    source.save()
    return source


def add_preference(*, owner, text: str) -> ScreenSource:
    """Store a preference phrase as policy (idempotent on the parsed action and subject)."""
    pref = preferences.parse(text)
    with transaction.atomic():
        source = ScreenSource.objects.select_for_update().get(pk=get_source(owner).pk)
        kept = [p for p in source.preferences if (p.get("action"), p.get("subject")) != (pref.action, pref.subject)]
        source.preferences = kept + [pref.as_dict()]
        source.save(update_fields=["preferences", "updated_at"])
    return source


def set_preferences(*, owner, texts: list[str]) -> ScreenSource:
    """Replace all preferences with ``texts`` (each parsed; one bad phrase changes nothing)."""
    parsed = [preferences.parse(t).as_dict() for t in texts]
    with transaction.atomic():
        source = ScreenSource.objects.select_for_update().get(pk=get_source(owner).pk)
        source.preferences = parsed
        source.save(update_fields=["preferences", "updated_at"])
    return source


def remove_preference(*, owner, index: int) -> ScreenSource:
    with transaction.atomic():
        source = ScreenSource.objects.select_for_update().get(pk=get_source(owner).pk)
        if not 0 <= index < len(source.preferences):
            raise SourceError("no such preference")
        source.preferences = source.preferences[:index] + source.preferences[index + 1 :]
        source.save(update_fields=["preferences", "updated_at"])
    return source


def run_collect(
    *, owner, now: datetime | None = None, trigger: str = "manual", client: ScreenPipeClient | None = None
) -> CollectRun:
    """Collect for ``owner`` now (the source need not be enabled for a manual collect)."""
    source = get_source(owner)
    own_client = client is None
    client = client or ScreenPipeClient(source_url(source))
    try:
        return collect(source=source, client=client, now=now, trigger=trigger)
    finally:
        if own_client:
            client.close()


def collect_enabled(*, now: datetime | None = None) -> list[CollectRun]:
    """The schedule's entry: collect every enabled source."""
    runs = []
    for source in ScreenSource.objects.filter(enabled=True).select_related("owner"):
        runs.append(run_collect(owner=source.owner, now=now, trigger="schedule"))
    return runs
