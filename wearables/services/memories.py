"""Wearables' side of the memory pass: turn a day transcript into neutral conversations, hand them to the trust
gate (``distill``), and supply what only wearables knows (other devices' transcripts of the same day). No trust
logic lives here.

Keys: source_key "wearable:<kind>", scope_key "wearable:<kind>:<date>", day_key = the transcript's local date;
evidence source_ref links to the transcript moment (/transcripts/?date=…&source=…#u-<index>).
"""

from __future__ import annotations

import logging

from accounts.services import owner_name
from distill import services as distill
from distill.conversation import Conversation, Medium, NativeMemory, Sighting, Speaker, Turn
from distill.services import DigestItem, PassReport
from wearables.models import DayTranscript, Source, SyncRun, Utterance

log = logging.getLogger(__name__)


def source_key(kind: str) -> str:
    return f"wearable:{kind}"


def scope_key(kind: str, local_date) -> str:
    return f"wearable:{kind}:{local_date.isoformat()}"


def transcript_url(kind: str, local_date, index: int) -> str:
    return f"/transcripts/?date={local_date.isoformat()}&source={kind}#u-{index}"


def _owner_confidence(conversation) -> float:
    """How sure the transcript pipeline is about who the wearer is; 1.0 when it did not say (no method)."""
    if not conversation.wearer_method or conversation.wearer_method == "none":
        return 1.0
    return float(conversation.wearer_confidence or 0.0)


def conversations_for(transcript: DayTranscript, owner_name: str) -> list[Conversation]:
    """The day's conversations as the gate reads them: the wearer is the owner (with the pipeline's confidence),
    everyone else a person by their resolved name, each turn pointing at its transcript moment."""
    kind, day = transcript.source.kind, transcript.local_date
    base_ref = {
        "source_id": transcript.source_id,
        "source": kind,
        "date": day.isoformat(),
        "transcript_id": transcript.pk,
    }
    utterances = (
        Utterance.objects.owned_by(transcript.owner)
        .filter(transcript=transcript)
        .select_related("conversation", "person")
        .order_by("index")
    )
    convs: dict[int, Conversation] = {}
    confidence: dict[int, float] = {}
    for utt in utterances:
        conv = convs.get(utt.conversation_id)
        if conv is None:
            conv = convs[utt.conversation_id] = Conversation(
                source_key=source_key(kind),
                source_type="transcript",
                medium=Medium.SPEECH,
                scope_key=scope_key(kind, day),
                day_key=day.isoformat(),
                turns=[],
                external_id=utt.conversation.external_id,
                title=utt.conversation.title,
                started_at=utt.conversation.started_at,
                source_ref=base_ref,
            )
            confidence[utt.conversation_id] = _owner_confidence(utt.conversation)
        sure = confidence[utt.conversation_id]
        if utt.is_wearer:
            speaker = Speaker(owner_name, is_owner=True, owner_confidence=sure)
        else:
            name = utt.person.name if utt.person_id else (utt.speaker_name or utt.speaker_label)
            speaker = Speaker(name or "", owner_confidence=sure)
        conv.turns.append(
            Turn(
                index=utt.index,
                speaker=speaker,
                text=utt.text,
                at=utt.started_at,
                ref={"utterances": [utt.index, utt.index], "url": transcript_url(kind, day, utt.index)},
            )
        )
    return list(convs.values())


def sightings(*, owner, source_key: str, day_key: str, scope_key: str) -> list[Sighting]:
    """The corroboration hook: what the owner's other devices recorded on the same local day."""
    kind = source_key.removeprefix("wearable:")
    rows = (
        Utterance.objects.owned_by(owner)
        .filter(transcript__local_date=day_key)
        .exclude(transcript__source__kind=kind)
        .select_related("transcript__source")
        .order_by("transcript_id", "index")
    )
    return [Sighting(u.transcript.source.kind, u.text, u.is_wearer, u.started_at) for u in rows]


def _record_warnings(source: Source, warnings: list[str]) -> None:
    """Append a pass's warnings to the source's latest sync run, so they show with the sync's own."""
    if not warnings:
        return
    latest = SyncRun.objects.owned_by(source.owner).filter(source=source).order_by("-started_at").first()
    if latest is None:
        return
    merged = list(latest.warnings or [])
    for w in warnings:
        line = f"memories: {w}"
        if line not in merged:
            merged.append(line)
    # A plain update of one JSON column: the sync service owns the row, we only add our lines.
    SyncRun.objects.filter(pk=latest.pk).update(warnings=merged)


def upsert_digest(*, transcript: DayTranscript):
    """The day's digest episode ("3 recorded conversations: …"), through the gate's generic helper."""
    kind, day = transcript.source.kind, transcript.local_date
    items = []
    for conv in transcript.conversations.order_by("started_at"):
        title = conv.title.strip() or (conv.utterances.order_by("index").values_list("text", flat=True).first() or "")
        items.append(DigestItem(at=conv.started_at, title=title))
    last = transcript.conversations.order_by("-started_at").first()
    return distill.upsert_digest(
        owner=transcript.owner,
        source_key=source_key(kind),
        key=scope_key(kind, day),
        title=f"{transcript.source.get_kind_display()} · {day.isoformat()}",
        items=items,
        timezone_name=transcript.timezone,
        source_type="transcript",
        source_ref={
            "source_id": transcript.source_id,
            "date": day.isoformat(),
            "transcript_id": transcript.pk,
            "url": f"/transcripts/?date={day.isoformat()}&source={kind}",
        },
        ended_at=(last.ended_at or last.started_at) if last else None,
    )


def run_memory_pass(*, transcript: DayTranscript, rescore_siblings: bool = True) -> PassReport:
    """One day transcript through the gate, then the day digest. With ``rescore_siblings`` the other devices'
    passes of the same day re-run afterwards (their claims may now be corroborated)."""
    owner, source = transcript.owner, transcript.source
    kind, day = source.kind, transcript.local_date
    report = distill.distill(
        owner=owner,
        conversations=conversations_for(transcript, owner_name(owner)),
        scope_key=scope_key(kind, day),
        source_key=source_key(kind),
    )
    upsert_digest(transcript=transcript)
    _record_warnings(source, report.warnings)
    if rescore_siblings:
        for other in DayTranscript.objects.owned_by(owner).filter(local_date=day).exclude(pk=transcript.pk):
            run_memory_pass(transcript=other, rescore_siblings=False)
            report.siblings_rescored.append(other.pk)
    return report


def rescore_day(*, owner, local_date) -> list[PassReport]:
    """Re-run every source's pass for one day (e.g. after the gate policy changed)."""
    return [
        run_memory_pass(transcript=t, rescore_siblings=False)
        for t in DayTranscript.objects.owned_by(owner).filter(local_date=local_date).select_related("source", "owner")
    ]


def import_native_memories(source_id: int, memories) -> PassReport:
    """A provider's own memories (Bee facts, Omi memories; connector ``NativeMemory`` objects or stored
    ``NativeMemoryImport`` rows) through the gate's native import."""
    source = Source.objects.select_related("owner").get(pk=source_id)
    items = [
        NativeMemory(
            text=getattr(m, "text", "") or "",
            external_id=getattr(m, "external_id", "") or "",
            at=getattr(m, "created_at", None) or getattr(m, "occurred_at", None),
        )
        for m in memories
    ]
    report = distill.import_native(
        owner=source.owner,
        source_key=source_key(source.kind),
        memories=items,
        source_ref={"source_id": source.pk, "source": source.kind},
    )
    _record_warnings(source, report.warnings)
    return report


def memories_for_day(owner, source=None, date=None, limit: int = 50) -> list[dict]:
    """Memories taken from this owner's wearable transcripts (``source``: a Source row or None for all)."""
    from distill import queries

    kind = getattr(source, "kind", source) or ""
    key = source_key(kind) if kind else ""
    return queries.memories(owner, family="wearable", source_key=key, day=date, limit=limit)
