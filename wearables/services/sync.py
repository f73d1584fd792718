"""Sync: fetch days from a provider, run the pipeline, store changed days, log a SyncRun.

Nothing from a provider is written, logged or queued before it has been through the pipeline (redaction
included). Warnings and errors stored on the SyncRun are redacted too and never contain credentials.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone
from django_q.tasks import async_task

from accounts.database import DISK_FULL, LOST, database_trouble
from accounts.services import user_timezone
from ledger.forget.hooks import forgotten_names
from wearables.connectors import ProviderError
from wearables.models import Conversation, DayTranscript, NativeMemoryImport, Source, SyncRun, Utterance
from wearables.pipeline import STEPS, Convo, Turn, from_raw, redact_text, run_pipeline
from wearables.services.config import build_config, redaction_patterns
from wearables.services.errors import WearablesError
from wearables.services.sources import connector_for, get_source, get_wearables_settings
from wearables.services.transcripts import NATIVE_MEMORIES_TASK, export_markdown, spans_from_json, write_day

logger = logging.getLogger(__name__)

MAX_DAYS = 366
INTERRUPTED_AFTER = timedelta(hours=1)  # the deep sync task's timeout is 30 minutes
# A running sync holds a session advisory lock (this class, the run's pk): the server drops it when the process
# dies or the database restarts, so the next sync knows at once that a run still marked "running" is dead.
RUN_LOCK_CLASS = 0x5759_4E43  # "WYNC"
# A sync someone waits for (POST /api/v1/wearables/sync): a provider that does not answer costs two short tries,
# not the background's four of 30 s a page; a request running past gunicorn's timeout (120 s) gets its worker
# killed, and every other request that worker holds with it.
INTERACTIVE = {"timeout": 10.0, "max_retries": 1}
UNANSWERED = "the provider did not answer; the next sync tries again"
DB_LOST = "database unavailable (connection lost or server restarting); nothing of this day was written"
DB_DISK_FULL = "the database's disk is full; nothing of this day was written (free space, then sync again)"
# Bee has no wearer flag and aligns against the others, so it goes last.
SYNC_ORDER = {"limitless": 0, "omi": 1, "bee": 2}


def recent_dates(owner, days: int, *, end: date | None = None) -> list[date]:
    """The last ``days`` local days of the user, oldest first, ending today (user's timezone)."""
    if days < 1 or days > MAX_DAYS:
        raise WearablesError(f"days must be between 1 and {MAX_DAYS}")
    end = end or timezone.now().astimezone(user_timezone(owner)).date()
    return [end - timedelta(days=n) for n in range(days - 1, -1, -1)]


def _dedupe(convos: list[Convo]) -> list[Convo]:
    seen: dict[str, Convo] = {}
    for c in convos:
        seen.setdefault(c.external_id, c)  # a cycling cursor can return the same conversation twice
    return list(seen.values())


def process_day(owner, source: Source, local_date: date, raw_conversations, *, tz) -> list[Convo]:
    """Pure part of a day's sync: raw provider conversations → processed conversations of that local day."""
    convos = [from_raw(r) for r in raw_conversations]
    convos = [c for c in _dedupe(convos) if c.started_at.astimezone(tz).date() == local_date]
    return run_pipeline(convos, build_config(owner, source, local_date))


def sync(
    *,
    owner,
    source: Source | str,
    dates: list[date] | None = None,
    force_memories: bool = False,
    trigger: str = "manual",
    progress: Callable[[str], None] | None = None,
    interactive: bool = False,
) -> SyncRun:
    """Fetch, clean and store ``dates`` (default: yesterday and today, local) for one source. ``interactive``:
    someone waits for the answer, so a silent provider is given up on quickly (``INTERACTIVE``).

    Side effects: DayTranscript/Conversation/Utterance rows for days whose content changed, a memory pass queued
    (after commit) for each changed day (every day with ``force_memories``), provider-native memories imported,
    optional markdown export, one SyncRun. Provider failures are recorded on the SyncRun, not raised; a
    disabled source raises WearablesError.
    """
    source, dates = _checked(owner, source, dates)
    tz = user_timezone(owner)
    export = get_wearables_settings(owner).export_markdown
    patterns = redaction_patterns(owner)
    close_interrupted_runs(source)
    run = SyncRun.objects.create(
        owner=owner, source=source, window_start=dates[0], window_end=dates[-1], trigger=trigger
    )
    _run_lock(run.pk, "pg_advisory_lock")
    connector = connector_for(source, **(INTERACTIVE if interactive else {}))
    ctx = _DaySync(owner, source, run, connector, tz, patterns, export, force_memories, progress)
    started = time.monotonic()
    errors: list[str] = []
    succeeded, outcome = _sync_days(ctx, dates, errors)
    if succeeded and outcome != "database gone":
        try:
            ctx.warnings += _import_native_memories(owner, source, ctx.connector, patterns)
        except ProviderError as exc:
            ctx.warnings.append(f"native memories: {redact_text(exc.message, patterns)}")
    _finish_run(
        run, ctx.warnings, errors, succeeded=succeeded, started=started, database_gone=outcome == "database gone"
    )
    _run_lock(run.pk, "pg_advisory_unlock")
    return run


def _checked(owner, source: Source | str, dates: list[date] | None) -> tuple[Source, list[date]]:
    """The owner's enabled source and the sorted days to sync (default: yesterday and today, local)."""
    if isinstance(source, str):
        source = get_source(owner, source)
    if source.owner_id != owner.pk:
        raise WearablesError("Unknown source")
    if not source.enabled:
        raise WearablesError(f"{source.get_kind_display()} is disabled: enable it on the Sources page first")
    dates = sorted(set(dates or recent_dates(owner, 2)))
    if len(dates) > MAX_DAYS:
        raise WearablesError(f"At most {MAX_DAYS} days per sync")
    return source, dates


def _sync_days(ctx: _DaySync, dates: list[date], errors: list[str]) -> tuple[int, str]:
    """Each day in turn; a refusing or silent provider, or a database that does not come back, stops the run."""
    succeeded, outcome = 0, "ok"
    for n, day in enumerate(dates, 1):
        outcome = _sync_day_with_retry(ctx, day, errors)
        succeeded += int(outcome == "ok")
        if outcome == "refused":
            errors.append(f"stopped after {n} of {len(dates)} days: the provider refused the request")
            break
        if outcome == "unanswered" and n < len(dates):  # the next day would wait just as long for nothing
            errors.append(f"stopped after {n} of {len(dates)} days: {UNANSWERED}")
            break
        if outcome == "database gone":
            errors.append(f"stopped after {n} of {len(dates)} days: the database did not come back")
            break
    return succeeded, outcome


def _finish_run(run: SyncRun, warnings, errors, *, succeeded: int, started: float, database_gone: bool) -> None:
    run.warnings = warnings
    run.errors = errors
    run.duration_ms = int((time.monotonic() - started) * 1000)
    run.finished_at = timezone.now()
    if not errors:
        run.status = SyncRun.Status.OK
    elif succeeded == 0:
        run.status = SyncRun.Status.FAILED
    else:
        run.status = SyncRun.Status.PARTIAL
    try:
        run.save()
    except (OperationalError, InterfaceError):
        if database_gone or not await_database(run):
            raise  # the run stays "running" without its lock: the next sync closes it as interrupted
        run.save()


@dataclass
class _DaySync:
    owner: object
    source: Source
    run: SyncRun
    connector: object
    tz: object
    patterns: list
    export: bool
    force_memories: bool
    progress: Callable[[str], None] | None
    warnings: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        if self.progress:
            self.progress(f"{self.source.kind} {text}")


def _sync_day_with_retry(ctx: _DaySync, day: date, errors: list[str]) -> str:
    """One day, recorded on the run: "ok", "failed", "refused" (the provider refused for good), "unanswered"
    (no answer at all: unreachable or timed out) or "database gone" (the connection was lost and the database did not answer again in time: no point in going on).

    A day whose database connection was lost (a restart, a failover) is rolled back whole; once the database
    answers again (``ALMANAC_DB_RECONNECT_SECONDS``) it is written once more, so a short restart costs nothing.
    """
    for attempt in (1, 2):
        try:
            _sync_day(ctx, day)
            return "ok"
        except ProviderError as exc:
            message = redact_text(exc.message, ctx.patterns)
            errors.append(f"{day}: {message}")
            ctx.say(f"{day}: failed: {message}")
            return "refused" if exc.permanent else "unanswered" if exc.unanswered else "failed"
        except (OperationalError, InterfaceError) as exc:
            trouble = database_trouble(exc)
            if trouble == DISK_FULL:
                logger.error("wearables sync of %s %s: %s", ctx.source.kind, day, DB_DISK_FULL)
                errors.append(f"{day}: {DB_DISK_FULL}")
                ctx.say(f"{day}: failed: {DB_DISK_FULL}")
                return "failed"
            if trouble == LOST:
                logger.error("wearables sync of %s %s: %s", ctx.source.kind, day, DB_LOST)
                if attempt == 1 and await_database(ctx.run):
                    ctx.warnings.append(f"{day}: {DB_LOST}; written again once the database was back")
                    continue
                errors.append(f"{day}: {DB_LOST}")
                ctx.say(f"{day}: failed: {DB_LOST}")
                return "database gone"
            logger.error("wearables sync of %s %s failed: %s", ctx.source.kind, day, exc.__class__.__name__)
            errors.append(f"{day}: internal error ({exc.__class__.__name__})")
        except Exception as exc:  # noqa: BLE001 - one bad day must not lose the others; type only (no text)
            logger.error("wearables sync of %s %s failed: %s", ctx.source.kind, day, exc.__class__.__name__)
            errors.append(f"{day}: internal error ({exc.__class__.__name__})")
        return "failed"
    return "failed"


def _sync_day(ctx: _DaySync, day: date) -> None:
    """Fetch, clean and store one day (its own transaction in ``write_day``); counts go on the run."""
    source, run = ctx.source, ctx.run
    result = ctx.connector.fetch_day(day, ctx.tz)
    run.pages += result.pages
    ctx.warnings += [f"{day}: {redact_text(w, ctx.patterns)}" for w in result.warnings]
    if not result.complete and _would_lose_stored(source, day, result.conversations):
        ctx.warnings.append(f"{day}: the provider's listing was cut short; kept the stored day as it was")
        return
    convos = process_day(ctx.owner, source, day, result.conversations, tz=ctx.tz)
    transcript, changed = write_day(
        owner=ctx.owner,
        source=source,
        local_date=day,
        tz_name=str(ctx.tz.key),
        convos=convos,
        force_memories=ctx.force_memories,
    )
    if changed and ctx.export:
        ctx.warnings += _export(transcript)
    run.conversations += len(convos)
    run.utterances += sum(len(c.turns) for c in convos)
    run.days_changed += int(changed)
    if changed:
        # Other devices' stored days may depend on this one: a device without a wearer flag (Bee) finds the
        # wearer by aligning against it, and another device may have kept a stretch this one elided as off the
        # record. Re-label them now, so the result does not depend on which source synced first and an
        # unchanged re-sync of theirs later writes nothing.
        around = [day - timedelta(days=1), day, day + timedelta(days=1)]
        reprocess_stored_days(owner=ctx.owner, dates=around if any(c.elided for c in convos) else [day], exclude=source)
    ctx.say(f"{day}: {len(convos)} conversations, {'changed' if changed else 'unchanged'}")


def await_database(run: SyncRun | None = None) -> bool:
    """After a lost connection: drop it and reconnect until the database answers or
    ``ALMANAC_DB_RECONNECT_SECONDS`` pass. On success the run's liveness lock is taken again (it went with
    the old session). False when the database stayed away, or inside a transaction (the caller's to undo)."""
    if connection.in_atomic_block:
        return False
    deadline = time.monotonic() + settings.ALMANAC_DB_RECONNECT_SECONDS
    while True:
        connection.close()
        try:
            connection.ensure_connection()
            if run is not None:
                _run_lock(run.pk, "pg_advisory_lock")
            return True
        except (OperationalError, InterfaceError):
            if time.monotonic() >= deadline:
                connection.close()
                return False
            time.sleep(0.5)


def _run_lock(run_pk: int, function: str) -> bool:
    """``pg_advisory_lock`` / ``pg_try_advisory_lock`` / ``pg_advisory_unlock`` on a run's liveness lock."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [RUN_LOCK_CLASS, run_pk & 0x7FFFFFFF])
        return bool(cursor.fetchone()[0])


def _run_is_alive(run_pk: int) -> bool:
    """Whether some session still holds the run's lock (its sync is still going, in this or another process)."""
    if _run_lock(run_pk, "pg_try_advisory_lock"):
        _run_lock(run_pk, "pg_advisory_unlock")
        return False
    return True


def close_interrupted_runs(source: Source, *, now=None) -> int:
    """Mark runs left "running" by a killed worker or a lost database connection as failed; returns how many.

    A run is dead when no session holds its liveness lock any more (the process died, or the database restarted
    under it), or when it is still open after ``INTERRUPTED_AFTER`` (longer than the longest sync task's timeout).
    Its days were each written whole or not at all, so nothing is undone: the next sync re-fetches the window.
    """
    cutoff = (now or timezone.now()) - INTERRUPTED_AFTER
    running = SyncRun.objects.filter(source=source, status=SyncRun.Status.RUNNING)
    dead = [pk for pk, started in running.values_list("pk", "started_at") if started < cutoff or not _run_is_alive(pk)]
    return running.filter(pk__in=dead).update(
        status=SyncRun.Status.FAILED,
        finished_at=now or timezone.now(),
        errors=["interrupted: the sync stopped before finishing (worker or database restart); nothing half-written"],
    )


def _would_lose_stored(source: Source, day: date, raw_conversations) -> bool:
    """Whether an incomplete fetch lacks a conversation already stored for the day (then it must not replace it)."""
    fetched = {str(r.external_id)[:200] for r in raw_conversations}
    stored = Conversation.objects.filter(transcript__source=source, transcript__local_date=day)
    return any(external_id not in fetched for external_id in stored.values_list("external_id", flat=True))


def _export(transcript: DayTranscript) -> list[str]:
    """Write the day's markdown export; a failure (disk full, no permission) is a warning, never a half file."""
    try:
        export_markdown(transcript)
    except OSError as exc:
        logger.error("markdown export of %s failed: %s", transcript.local_date, exc.strerror or type(exc).__name__)
        return [
            f"{transcript.local_date}: markdown export failed ({exc.strerror or type(exc).__name__}); "
            "the day is stored, the export file was left as it was"
        ]
    return []


def _import_native_memories(owner, source: Source, connector, patterns) -> list[str]:
    """Store the provider's own memories (redacted) once per id; queue new or changed ones for the trust area."""
    from distill.models import NativeMode
    from wearables.services.sources import gate_policy

    if gate_policy(source).native_mode == NativeMode.OFF:
        return []
    fresh: list[int] = []
    forgotten = forgotten_names(owner)
    with transaction.atomic():
        for m in connector.fetch_native_memories():
            text = redact_text((m.text or "").strip(), patterns)
            if not text or forgotten.spans(text):
                continue  # a provider's memory of a forgotten person is not brought back
            digest = hashlib.sha256(text.encode()).hexdigest()  # of what the provider says: a re-sync matches it
            external_id = str(m.external_id)[:200]
            row = NativeMemoryImport.objects.filter(source=source, external_id=external_id).first()
            if row is not None and row.content_hash == digest:
                continue
            row, _ = NativeMemoryImport.objects.update_or_create(
                source=source,
                external_id=external_id,
                defaults={
                    "owner": owner,
                    "text": text,
                    "content_hash": digest,
                    "occurred_at": m.created_at,
                },
            )
            fresh.append(row.pk)
        if fresh:
            transaction.on_commit(
                lambda: async_task(NATIVE_MEMORIES_TASK, source.pk, fresh, group="wearables-native-memories")
            )
    return []


def sync_enabled_sources(
    *,
    owner,
    dates: list[date] | None = None,
    force_memories: bool = False,
    trigger: str = "manual",
    progress=None,
    interactive: bool = False,
) -> list[SyncRun]:
    """Sync every enabled source of ``owner`` (Bee last: it aligns against the devices that flag the wearer)."""
    sources = sorted(Source.objects.owned_by(owner).enabled(), key=lambda s: SYNC_ORDER.get(s.kind, 9))
    options = {"force_memories": force_memories, "trigger": trigger, "progress": progress, "interactive": interactive}
    return [sync(owner=owner, source=s, dates=dates, **options) for s in sources]


# --- Re-processing stored days (after a speaker, correction or redaction-rule change) ---------------------
LOCAL_STEPS = {"cross_device_off_record", "corrections", "final_redaction", "speakers", "forget"}


def _stored_convos(transcript: DayTranscript) -> list[Convo]:
    convos = []
    utterances = Utterance.objects.filter(transcript=transcript).order_by("index")
    by_conv: dict[int, list[Turn]] = {}
    for u in utterances:
        by_conv.setdefault(u.conversation_id, []).append(
            Turn(
                text=u.text,
                speaker_label=u.speaker_label,
                speaker_name=u.provider_speaker_name,
                is_wearer=u.provider_is_wearer,
                person_id=u.provider_person_id or None,
                started_at=u.started_at,
                ended_at=u.ended_at,
                provider_is_wearer=u.provider_is_wearer,
                provider_speaker_name=u.provider_speaker_name,
            )
        )
    for c in transcript.conversations.all():
        convos.append(
            Convo(
                source=transcript.source.kind,
                external_id=c.external_id,
                started_at=c.started_at,
                ended_at=c.ended_at,
                title=c.title,
                turns=by_conv.get(c.pk, []),
                elided=spans_from_json(c.elided_spans),  # the markers are gone from stored text: keep the spans
            )
        )
    return convos


def reprocess_stored_days(
    *, owner, source: Source | None = None, dates: list[date] | None = None, exclude: Source | None = None
) -> int:
    """Re-apply corrections, redaction and speaker labeling to stored days without fetching; returns days changed.

    Days whose content changes get a new hash and a memory pass, exactly like a sync.
    """
    qs = DayTranscript.objects.owned_by(owner).select_related("source").order_by("local_date")
    if source is not None:
        qs = qs.filter(source=source)
    if dates is not None:
        qs = qs.filter(local_date__in=dates)
    if exclude is not None:
        qs = qs.exclude(source=exclude)
    changed = 0
    export = get_wearables_settings(owner).export_markdown
    # Flagging devices first, so Bee can align against their (possibly relabeled) days.
    for transcript in sorted(qs, key=lambda t: (t.local_date, SYNC_ORDER.get(t.source.kind, 9))):
        cfg = build_config(owner, transcript.source, transcript.local_date)
        convos = _stored_convos(transcript)
        for step in STEPS:
            if step.NAME in LOCAL_STEPS and step.able_to_run(cfg):
                convos = step.run(convos, cfg)
        convos = [c for c in convos if c.turns]
        _, did_change = write_day(
            owner=owner,
            source=transcript.source,
            local_date=transcript.local_date,
            tz_name=transcript.timezone,
            convos=convos,
            export=export,
        )
        changed += int(did_change)
    return changed
