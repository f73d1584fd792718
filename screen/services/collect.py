"""The collect service: reconcile the cursor, pull ScreenPipe window by window, derive signals, propose events.

Credential-free, model-free and policy-free. The first collect backfills ``ScreenSource.backfill_days``; later
ones continue from the saved cursor. Each window commits its signals, the deriver's state and the new cursor in
one transaction (nothing half-written), then the proposal pass runs, so an event still unfolding is revised by
the next window or the next collect instead of being created again. Memory stays flat: one window at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.exceptions import DomainError
from screen.collector.client import Item, ScreenPipeClient, ScreenPipeError, parse_ts
from screen.collector.signals import SignalDeriver, SignalDraft
from screen.models import CollectRun, ScreenSource, Signal
from screen.services.propose import close_stale, propose
from screen.services.rollup import refresh_rollups

log = logging.getLogger(__name__)

WINDOW = timedelta(minutes=30)
CAPTURE_LAG = timedelta(minutes=1)  # ScreenPipe writes a frame a little after it captured it
LOCK_NAMESPACE = 0x5C12  # advisory-lock key space of screen collects (second key: the source id)
ALREADY_RUNNING = "another collect of this source is running"


class CollectBusy(DomainError):
    """A collect was asked for while another collect of the same source runs (the schedule, another node)."""

    status_code = 409


def _cursor_tuple(source: ScreenSource) -> tuple | None:
    if source.cursor_at is None or not source.cursor_key:
        return None
    kind, _, ident = source.cursor_key.partition(":")
    return (source.cursor_at, kind, int(ident or 0))


def _signal_row(owner, draft: SignalDraft) -> Signal:
    return Signal(
        owner=owner,
        kind=draft.kind,
        key=draft.key[:120],
        occurred_at=draft.occurred_at,
        app_name=draft.app_name[:200],
        window_name=draft.window_name[:300],
        url=draft.url[:500],
        before_frame=draft.before_frame,
        before_at=draft.before_at,
        after_frame=draft.after_frame,
        after_at=draft.after_at,
        fingerprint=draft.fingerprint,
        data=draft.data,
    )


def reconcile(*, source: ScreenSource, client: ScreenPipeClient, run: CollectRun) -> None:
    """On (re)start: is the item the cursor points at still there? A missing predecessor is counted and becomes a
    source-gap signal; a source whose newest frame is older than the cursor was reset (a restart)."""
    cursor = _cursor_tuple(source)
    if cursor is None or cursor[1] != "OCR":
        return
    at, _, frame_id = cursor
    found = any(i.id == frame_id for i in client.iter_search(content_type="ocr", start=at, end=at, max_items=20))
    if found:
        return
    health = client.health()
    last = health.get("last_frame_timestamp")
    restarted = bool(last) and parse_ts(last) < at
    kind = Signal.Kind.SOURCE_RESTART if restarted else Signal.Kind.SOURCE_GAP
    with transaction.atomic():
        Signal.objects.bulk_create(
            [
                Signal(
                    owner=source.owner,
                    kind=kind,
                    key=f"reconcile:{kind}:{frame_id}:{at:%Y%m%dT%H%M%S.%f}",
                    occurred_at=at,
                    before_frame=frame_id,
                    before_at=at,
                    data={"reason": "cursor item missing at restart"},
                )
            ],
            ignore_conflicts=True,
        )
        ScreenSource.objects.filter(pk=source.pk).update(
            missing_frames=F("missing_frames") + 1,
            gaps=F("gaps") + (0 if restarted else 1),
            restarts=F("restarts") + (1 if restarted else 0),
        )
        if restarted:
            # ScreenPipe's ids start again: the deriver must not read the new ids as "going backwards" again.
            state = dict(source.state)
            state.pop("last", None)
            ScreenSource.objects.filter(pk=source.pk).update(state=state)
            source.state = state
    run.gaps += 0 if restarted else 1


def _window_items(client: ScreenPipeClient, start: datetime, end: datetime, cursor: tuple | None) -> list[Item]:
    items = sorted(client.iter_search(content_type="all", start=start, end=end), key=lambda i: i.sort_key)
    if cursor is None:
        return items
    return [i for i in items if (i.at, i.kind, i.id) > cursor]


def _commit_window(source: ScreenSource, deriver: SignalDeriver, drafts: list[SignalDraft], last: Item) -> int:
    rows = [_signal_row(source.owner, d) for d in drafts]
    with transaction.atomic():
        created = Signal.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
        ScreenSource.objects.filter(pk=source.pk).update(
            cursor_at=last.at,
            cursor_key=last.cursor_key,
            state=deriver.state,
            gaps=F("gaps") + deriver.gaps,
            missing_frames=F("missing_frames") + deriver.missing,
            restarts=F("restarts") + deriver.restarts,
        )
    source.cursor_at, source.cursor_key = last.at, last.cursor_key
    return len(created)


def _settle(source: ScreenSource, client: ScreenPipeClient, now: datetime, run: CollectRun) -> None:
    """End the spans nothing was captured for since well before ``now`` (the screen went idle): their events
    are final now, not whenever a next frame happens to arrive."""
    deriver = SignalDeriver(source.state)
    drafts = deriver.settle(now - CAPTURE_LAG)
    if not drafts:
        return
    rows = [_signal_row(source.owner, d) for d in drafts]
    with transaction.atomic():
        run.signals += len(Signal.objects.bulk_create(rows, ignore_conflicts=True))
        ScreenSource.objects.filter(pk=source.pk).update(state=deriver.state)
    report = propose(owner=source.owner, source=source, client=client, open_spans=deriver.open_spans())
    run.events_created += len(report.created)
    run.events_revised += len(report.revised)
    if report.dates:
        refresh_rollups(owner=source.owner, dates=report.dates)


def collect(
    *,
    source: ScreenSource,
    client: ScreenPipeClient,
    now: datetime | None = None,
    trigger: str = "manual",
    stop_after_windows: int | None = None,
) -> CollectRun:
    """Collect everything new up to ``now`` for ``source``. Returns the ``CollectRun`` (ok or failed).

    One collect per source at a time (a PostgreSQL advisory lock): the schedule and a "Collect now" click would
    otherwise derive the same window twice from the same cursor. The loser returns a failed run saying so.
    ``stop_after_windows`` ends the run early.
    """
    now = now or timezone.now()
    with _source_lock(source.pk) as locked:
        if not locked:
            return CollectRun.objects.create(
                owner=source.owner,
                trigger=trigger,
                status=CollectRun.Status.FAILED,
                finished_at=timezone.now(),
                error=ALREADY_RUNNING,
            )
        # Re-read under the lock: a collect that just finished moved the cursor and the deriver's state.
        source = ScreenSource.objects.select_related("owner").get(pk=source.pk)
        return _collect_locked(source, client, now, trigger, stop_after_windows)


@contextmanager
def _source_lock(source_id: int) -> Iterator[bool]:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_NAMESPACE, source_id])
        locked = bool(cur.fetchone()[0])
    try:
        yield locked
    finally:
        if locked:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, source_id])


def _collect_locked(
    source: ScreenSource, client: ScreenPipeClient, now: datetime, trigger: str, stop_after_windows: int | None
) -> CollectRun:
    owner = source.owner
    start = source.cursor_at or now - timedelta(days=source.backfill_days)
    run = CollectRun.objects.create(owner=owner, trigger=trigger, window_start=start, window_end=now)
    requests_before = client.requests
    try:
        reconcile(source=source, client=client, run=run)
        windows = 0
        while start < now:
            end = min(now, start + WINDOW)
            items = _window_items(client, start, end, _cursor_tuple(source))
            if items:
                deriver = SignalDeriver(source.state)
                drafts = [d for item in items for d in deriver.feed(item)]
                run.signals += _commit_window(source, deriver, drafts, items[-1])
                run.items += len(items)
                run.gaps += deriver.gaps
                report = propose(owner=owner, source=source, client=client, open_spans=deriver.open_spans())
                run.events_created += len(report.created)
                run.events_revised += len(report.revised)
                if report.dates:
                    refresh_rollups(owner=owner, dates=report.dates)
            start = end
            windows += 1
            if stop_after_windows is not None and windows >= stop_after_windows:
                break
        else:
            _settle(source, client, now, run)
        run.events_revised += len(close_stale(owner=owner, now=now))
        run.status = CollectRun.Status.OK
        ScreenSource.objects.filter(pk=source.pk).update(last_collect_at=timezone.now(), last_error="")
    except ScreenPipeError as exc:
        run.status, run.error = CollectRun.Status.FAILED, exc.message[:300]
        ScreenSource.objects.filter(pk=source.pk).update(last_error=exc.message[:300])
        log.warning("screen collect for %s failed: %s", owner, exc.message)
    except Exception as exc:
        # Committed windows stay committed (their signals wait as unprocessed); the run says it failed.
        run.status, run.error, run.finished_at = CollectRun.Status.FAILED, type(exc).__name__, timezone.now()
        run.save()
        raise
    run.finished_at = timezone.now()
    run.frames_fetched = sum(
        1 for _ in source.owner.screen_screenframe_set.filter(created_at__gte=run.started_at).values_list("pk")
    )
    log.info(
        "screen collect: %s items, %s signals, %s requests", run.items, run.signals, client.requests - requests_before
    )
    run.save()
    return run
