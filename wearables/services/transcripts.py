"""Day transcripts: the only writer of DayTranscript, Conversation and Utterance rows.

A day's content hash covers everything a reader sees (text, speakers, times, wearer decisions). Writing a day
whose hash is unchanged does nothing at all: no rewrite, no new ``updated_at``, no memory pass.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import date
from zoneinfo import ZoneInfo

import yaml
from django.conf import settings
from django.db import transaction
from django_q.tasks import async_task

from wearables.models import Conversation, DayTranscript, Source, Utterance
from wearables.pipeline import Convo

logger = logging.getLogger(__name__)

MEMORY_PASS_TASK = "wearables.tasks.run_memory_pass"
NATIVE_MEMORIES_TASK = "wearables.tasks.import_native_memories"


def _iso(dt) -> str | None:
    return dt.isoformat() if dt else None


def spans_to_json(spans) -> list[list[str | None]]:
    return [[_iso(start), _iso(end)] for start, end in spans]


def spans_from_json(data) -> list[tuple]:
    from datetime import datetime

    def parse(v):
        return datetime.fromisoformat(v) if v else None

    return [(parse(a), parse(b)) for a, b in (data or []) if a]


def canonical(convos: list[Convo]) -> list[dict]:
    return [
        {
            "id": c.external_id,
            "start": _iso(c.started_at),
            "end": _iso(c.ended_at),
            "title": c.title,
            "wearer": [c.wearer_label, c.wearer_method, c.wearer_confidence],
            "elided": spans_to_json(c.elided),
            "turns": [
                [
                    t.speaker_label,
                    t.speaker_name,
                    t.is_wearer,
                    t.person_pk,
                    t.text,
                    _iso(t.started_at),
                    _iso(t.ended_at),
                ]
                for t in c.turns
            ],
        }
        for c in sorted(convos, key=lambda c: (c.started_at, c.external_id))
    ]


def content_hash(convos: list[Convo]) -> str:
    blob = json.dumps(canonical(convos), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def render_markdown(*, kind: str, local_date: date, tz_name: str, convos: list[Convo], digest: str) -> str:
    tz = ZoneInfo(tz_name)
    front = {
        "source": kind,
        "date": local_date.isoformat(),
        "timezone": tz_name,
        "conversations": len(convos),
        "utterances": sum(len(c.turns) for c in convos),
        "content_hash": digest,
    }
    lines = ["---", yaml.safe_dump(front, sort_keys=False).strip(), "---", ""]
    lines.append(f"# {kind.capitalize()} · {local_date:%A %d %B %Y}")
    for c in sorted(convos, key=lambda c: (c.started_at, c.external_id)):
        start = c.started_at.astimezone(tz)
        end = f"–{c.ended_at.astimezone(tz):%H:%M}" if c.ended_at else ""
        lines += ["", f"## {start:%H:%M}{end} · {c.title or 'Conversation'}"]
        lines.append(f"<!-- conversation {c.external_id}; wearer: {c.wearer_method} ({c.wearer_confidence:.2f}) -->")
        lines.append("")
        for t in c.turns:
            when = f" ({t.started_at.astimezone(tz):%H:%M:%S})" if t.started_at else ""
            lines.append(f"**{t.speaker_name}**{when}: {t.text}  ")
    return "\n".join(lines).rstrip() + "\n"


def export_path(transcript: DayTranscript):
    return settings.ALMANAC_HOME / "wearables" / transcript.source.kind / f"{transcript.local_date.isoformat()}.md"


def export_markdown(transcript: DayTranscript) -> None:
    path = export_path(transcript)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".md.tmp")
    try:
        tmp.write_text(transcript.markdown, encoding="utf-8")
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)  # disk full or read-only: the previous export stays whole, no half file
        raise


def enqueue_memory_pass(transcript_id: int) -> None:
    """After commit, queue the trust area's memory pass for one transcript (payload: the id only)."""
    # A dotted path rather than the function object (R13's default): the memory pass belongs to the trust area,
    # and a sync must store transcripts even while that module cannot be imported; the worker resolves it.
    transaction.on_commit(lambda: async_task(MEMORY_PASS_TASK, transcript_id, group="wearables-memory-pass"))


def write_day(
    *,
    owner,
    source: Source,
    local_date: date,
    tz_name: str,
    convos: list[Convo],
    force_memories: bool = False,
    export: bool = False,
) -> tuple[DayTranscript | None, bool]:
    """Store one source's processed day. Returns (transcript or None, changed).

    A day that comes back empty keeps what is stored (a provider hiccup must not erase a day). An unchanged
    day is left alone; ``force_memories`` still queues a memory pass for it.
    """
    digest = content_hash(convos)
    with transaction.atomic():
        existing = (
            DayTranscript.objects.select_for_update().filter(owner=owner, source=source, local_date=local_date).first()
        )
        if existing is not None and (existing.content_hash == digest or not convos):
            if force_memories:
                enqueue_memory_pass(existing.pk)
            return existing, False
        if existing is None and not convos:
            return None, False
        markdown = render_markdown(
            kind=source.kind, local_date=local_date, tz_name=tz_name, convos=convos, digest=digest
        )
        fields = {
            "timezone": tz_name,
            "content_hash": digest,
            "markdown": markdown,
            "utterance_count": sum(len(c.turns) for c in convos),
            "conversation_count": len(convos),
        }
        if existing is None:
            transcript = DayTranscript.objects.create(owner=owner, source=source, local_date=local_date, **fields)
        else:
            transcript = existing
            for name, value in fields.items():
                setattr(transcript, name, value)
            transcript.save()
        _store_conversations(owner, transcript, convos)
        enqueue_memory_pass(transcript.pk)
        if export:
            # robust: a failed export (disk full) is logged; the stored day, already committed, is the truth.
            transaction.on_commit(lambda: export_markdown(transcript), robust=True)
    return transcript, True


def _store_conversations(owner, transcript: DayTranscript, convos: list[Convo]) -> None:
    """Upsert conversations by provider id (their rows and public ids stay stable across rewrites, so links and
    evidence keep pointing at them), drop vanished ones, and replace the day's utterances."""
    convos = sorted(convos, key=lambda c: (c.started_at, c.external_id))
    existing = {c.external_id: c for c in transcript.conversations.all()}
    keep_ids = {c.external_id[:200] for c in convos}
    transcript.utterances.all().delete()
    transcript.conversations.exclude(external_id__in=keep_ids).delete()
    rows = []
    for c in convos:
        row = existing.get(c.external_id[:200]) or Conversation(owner=owner, transcript=transcript)
        row.external_id = c.external_id[:200]
        row.started_at = c.started_at
        row.ended_at = c.ended_at
        row.title = c.title[:300]
        row.wearer_label = c.wearer_label[:200]
        row.wearer_method = c.wearer_method
        row.wearer_confidence = c.wearer_confidence
        row.elided_spans = spans_to_json(c.elided)
        rows.append(row)
    old_rows = [r for r in rows if r.pk is not None]
    Conversation.objects.bulk_create([r for r in rows if r.pk is None])
    Conversation.objects.bulk_update(
        old_rows,
        ["started_at", "ended_at", "title", "wearer_label", "wearer_method", "wearer_confidence", "elided_spans"],
    )
    utterances, index = [], 0
    for row, c in zip(rows, convos, strict=True):
        for t in c.turns:
            utterances.append(
                Utterance(
                    owner=owner,
                    transcript=transcript,
                    conversation=row,
                    index=index,
                    speaker_label=t.speaker_label[:200],
                    speaker_name=t.speaker_name[:200],
                    is_wearer=bool(t.is_wearer),
                    person_id=t.person_pk,
                    text=t.text,
                    started_at=t.started_at,
                    ended_at=t.ended_at,
                    provider_is_wearer=t.provider_is_wearer,
                    provider_person_id=(t.person_id or "")[:200],
                    provider_speaker_name=(t.provider_speaker_name or "")[:200],
                )
            )
            index += 1
    Utterance.objects.bulk_create(utterances, batch_size=1000)
