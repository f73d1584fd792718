"""Memory services: the memory pass over a day transcript, re-scoring on late evidence, native memory import
and the daily digest episode. Every memory write is a ledger commit through ``ledger.services``.

Tags on every memory: ``wearable``, ``wearable:<source kind>``, ``wearable-day:<date>``; source label
``wearable:<source kind>``; evidence ``source_type="transcript"`` (or ``native_memory``) with a source_ref that
links to the transcript moment.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction

from ledger import services as ledger
from ledger.models import Fact
from ledger.services import EvidenceIn
from wearables.memories import pipeline, trust
from wearables.memories.extraction.base import Candidate, ConversationIn, DayInput, UtteranceIn, content_hash
from wearables.memories.extraction.deterministic import _classify, clean
from wearables.memories.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection
from wearables.models import DayTranscript, Source, SyncRun, Utterance

log = logging.getLogger(__name__)

PROMOTED = "promoted-by-corroboration"
DEMOTED = "demoted-by-rejection"
NATIVE_CONFIDENCE = 0.85  # a provider's own summarised fact: fairly clean text, but still machine-made


@dataclass
class PassReport:
    """What one memory pass did (returned to callers, logged; warnings go to the source's latest sync run)."""

    transcript_id: int | None = None
    written: dict[str, int] = field(default_factory=dict)  # accepted / pending_review counts of new memories
    dropped: int = 0
    duplicates: int = 0
    unchanged: int = 0  # already stored from an earlier run of this pass (re-scored only)
    refused: int = 0
    promoted: int = 0
    superseded: int = 0
    demoted: int = 0
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    siblings_rescored: list[int] = field(default_factory=list)

    @property
    def wrote_anything(self) -> bool:
        return bool(sum(self.written.values()) or self.promoted or self.demoted)


def day_tags(kind: str, local_date) -> list[str]:
    return ["wearable", f"wearable:{kind}", f"wearable-day:{local_date.isoformat()}"]


def source_label(kind: str) -> str:
    return f"wearable:{kind}"


def transcript_url(kind: str, local_date, index: int) -> str:
    return f"/transcripts/?date={local_date.isoformat()}&source={kind}#u-{index}"


def _wearer_name(owner) -> str:
    from memory_site.services import get_settings

    return get_settings(owner).display_name or owner.get_username()


def _wearer_confidence(conversation) -> float:
    """How sure the transcript pipeline is about who the wearer is; 1.0 when it did not say (no method)."""
    if not conversation.wearer_method or conversation.wearer_method == "none":
        return 1.0
    return float(conversation.wearer_confidence or 0.0)


def _day_input(transcript: DayTranscript, wearer: str) -> DayInput:
    convs = []
    utterances = (
        Utterance.objects.owned_by(transcript.owner)
        .filter(transcript=transcript)
        .select_related("conversation", "person")
        .order_by("index")
    )
    by_conv: dict[int, ConversationIn] = {}
    for utt in utterances:
        conv = by_conv.get(utt.conversation_id)
        if conv is None:
            conv = ConversationIn(
                started_at=utt.conversation.started_at,
                utterances=[],
                external_id=utt.conversation.external_id,
                title=utt.conversation.title,
                wearer_confidence=_wearer_confidence(utt.conversation),
            )
            by_conv[utt.conversation_id] = conv
            convs.append(conv)
        name = utt.person.name if utt.person_id and not utt.is_wearer else (utt.speaker_name or utt.speaker_label)
        conv.utterances.append(
            UtteranceIn(
                index=utt.index,
                speaker_name=name or "",
                is_wearer=utt.is_wearer,
                text=utt.text,
                started_at=utt.started_at,
            )
        )
    return DayInput(wearer_name=wearer, conversations=convs, source_kind=transcript.source.kind)


def _siblings(transcript: DayTranscript) -> tuple[list[pipeline.SiblingUtterance], list[DayTranscript]]:
    others = list(
        DayTranscript.objects.owned_by(transcript.owner)
        .filter(local_date=transcript.local_date)
        .exclude(pk=transcript.pk)
        .select_related("source")
    )
    sibs = [
        pipeline.SiblingUtterance(t.source.kind, u.text, u.is_wearer, u.started_at)
        for t in others
        for u in Utterance.objects.owned_by(transcript.owner).filter(transcript=t).order_by("index")
    ]
    return sibs, others


def _active_memories(owner) -> list[pipeline.ActiveMemory]:
    facts = Fact.objects.owned_by(owner).filter(status="accepted").select_related("subject_entity")[:5000]
    out = []
    for f in facts:
        subject = (
            "user"
            if f.subject_kind == "user"
            else (f"person:{f.subject_entity.name}" if f.subject_entity_id else "unknown")
        )
        out.append(pipeline.ActiveMemory(str(f.public_id), subject, f.content))
    return out


def _source_day_facts(owner, kind: str, local_date) -> dict[str, Fact]:
    """This source's memories for the day (any status), by content hash: what a re-run must not write again."""
    tag = f"wearable-day:{local_date.isoformat()}"
    facts = Fact.objects.owned_by(owner).filter(tags__contains=[tag, f"wearable:{kind}"])
    return {content_hash(f.content): f for f in facts}


def _day_facts(owner, local_date) -> dict[str, Fact]:
    """Every source's memories for the day, by content hash (for corroborating evidence)."""
    tag = f"wearable-day:{local_date.isoformat()}"
    return {content_hash(f.content): f for f in Fact.objects.owned_by(owner).filter(tags__contains=[tag])}


def _record_warnings(source: Source, warnings: list[str]) -> None:
    """Append this pass's warnings to the source's latest sync run, so they show with the sync's own."""
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


def _evidence(scored: trust.Scored, *, transcript: DayTranscript, extractor: str, warnings: list[str]) -> EvidenceIn:
    cand = scored.candidate
    kind, day = transcript.source.kind, transcript.local_date
    first = cand.evidence.first_index if cand.evidence else 0
    last = cand.evidence.last_index if cand.evidence else first
    details = scored.evidence_payload() | {
        "attribution": cand.attribution,
        "person": cand.person,
        "kind": cand.kind,
        "flags": cand.flags,
        "extraction_confidence": cand.extraction_confidence,
        "proposition_key": cand.proposition_key,
        "content_hash": cand.content_hash,
        "warnings": warnings,
    }
    return EvidenceIn(
        source_type="transcript",
        source_ref={
            "source_id": transcript.source_id,
            "source": kind,
            "date": day.isoformat(),
            "transcript_id": transcript.pk,
            "utterances": [first, last],
            "url": transcript_url(kind, day, first),
        },
        quote=cand.evidence.quote if cand.evidence else "",
        extractor_id=cand.extractor or extractor,
        extractor_version=cand.extractor_version,
        capture_confidence=cand.capture_confidence,
        observed_at=cand.valid_from,
        source_label=source_label(kind),
        details=details,
    )


def _propose(owner, scored: trust.Scored, *, evidence: EvidenceIn, tags: list[str], label: str):
    cand = scored.candidate
    return ledger.propose_fact(
        owner=owner,
        content=cand.content,
        evidence=[evidence],
        predicate=cand.predicate[:100],
        # Without slot values the claim's words identify it; {"kind": ...} alone would make every
        # argument-less claim of a kind "the same claim" (merged as corroboration, refused together).
        arguments={"args": cand.args, "kind": cand.kind} if cand.args else None,
        subject=cand.attribution,
        person=cand.person if cand.attribution == "third_party" and cand.person else None,
        capture_confidence=max(0.0, min(cand.capture_confidence, 1.0)),
        veracity=max(0.0, min(scored.score, 1.0)),
        importance=cand.importance,
        tags=tags,
        source_label=label,
        valid_from=cand.valid_from,
        status=scored.decision,
        reason=scored.reason,
        author="extractor",
        author_label=f"{cand.extractor}@{cand.extractor_version}",
        on_duplicate="corroborate",
    )


def _corroborate(owner, scored: trust.Scored, fact: Fact | None, evidence_for, label: str) -> None:
    """Another device's memory says the same thing: add this device's evidence to it (once per source)."""
    if fact is None or fact.status not in ("accepted", "pending_review"):
        return
    if fact.evidence.filter(source_label=label).exists():
        return
    ledger.add_evidence(
        owner=owner,
        fact=fact,
        evidence=evidence_for(scored),
        author="extractor",
        author_label=f"{scored.candidate.extractor}@{scored.candidate.extractor_version}",
    )


def _write(owner, scored_items, *, existing, report: PassReport, evidence_for, tags, label, same_day=None) -> None:
    for scored in scored_items:
        cand = scored.candidate
        stored = existing.get(cand.content_hash)
        if stored is not None:
            report.unchanged += 1
            _rescore(owner, stored, scored, report)
            continue
        if scored.decision not in (trust.ACCEPTED, trust.PENDING):
            if scored.reason == "duplicate":
                report.duplicates += 1
                _corroborate(owner, scored, same_day.get(cand.content_hash) if same_day else None, evidence_for, label)
            else:
                report.dropped += 1
            continue
        result = _propose(owner, scored, evidence=evidence_for(scored), tags=tags, label=label)
        if result.outcome == "refused":
            report.refused += 1
            log.info("memory refused by a lasting refusal (decision %s)", result.refusal.decision_commit_id[:12])
            continue
        if result.outcome in ("duplicate", "corroborated"):
            report.duplicates += 1
            continue
        report.written[scored.decision] = report.written.get(scored.decision, 0) + 1
        existing[cand.content_hash] = result.fact
        report.superseded += _supersede_older(owner, result.fact, cand, tags)


CHANGE_MARKERS = re.compile(
    r"\b(now|anymore|any more|no longer|instead|moved (?:it|the \w+|to)|changed?|changing|switch(?:ed|ing)?|"
    r"cancel(?:l?ed|ling)?|again|not \w+ anymore|pushed|rescheduled|postponed|actually)\b",
    re.IGNORECASE,
)


def _supersede_older(owner, fact: Fact, cand: Candidate, tags: list[str]) -> int:
    """A memory that states a change ("now", "moved it to", "cancelled", "anymore") replaces an earlier-day memory
    about the same subject and topic. An accepted memory replaces accepted or pending ones; a pending one
    only replaces pending ones (weak evidence must not retire a trusted memory)."""
    quote = cand.evidence.quote if cand.evidence else cand.content
    if fact is None or not CHANGE_MARKERS.search(quote):
        return 0
    day_tag = next(t for t in tags if t.startswith("wearable-day:"))
    older = (
        Fact.objects.owned_by(owner)
        .filter(tags__contains=["wearable"], subject_kind=fact.subject_kind, subject_entity=fact.subject_entity)
        .filter(status__in=["accepted", "pending_review"] if fact.status == "accepted" else ["pending_review"])
        .exclude(tags__contains=[day_tag])
        .exclude(pk=fact.pk)
    )
    drop = {w.lower() for w in (cand.person or "").split()} | {(fact.content.split() or [""])[0].lower().strip("'s")}
    drop = {trust._stem(w) for w in drop if w}
    mine = {t for t in trust.claim_tokens(cand.content, drop=drop) if not t.isdigit()}
    count = 0
    for old in older:
        theirs = {t for t in trust.claim_tokens(old.content, drop=drop) if not t.isdigit()}
        shared = mine & theirs
        if len(shared) >= 2 and len(shared) / max(min(len(mine), len(theirs)), 1) >= 0.4:
            ledger.supersede(
                owner=owner,
                old=old,
                new=fact,
                kind="update",
                valid_from=fact.valid_from,
                author="system",
                author_label="wearables.memories",
            )
            count += 1
    return count


def _rescore(owner, fact: Fact, scored: trust.Scored, report: PassReport) -> None:
    """Late evidence: promote a pending memory that now clears auto-approve; demote one on an explicit judge
    reject. Accepted memories are never demoted, and missing corroboration never demotes anything."""
    if fact.status != "pending_review":
        return
    if scored.judge_verdict == "reject":
        ledger.decide(
            owner=owner,
            fact=fact,
            status="rejected",
            reason=DEMOTED,
            author="system",
            author_label="wearables.memories",
        )
        report.demoted += 1
    elif scored.scored_decision == trust.ACCEPTED and scored.reason == "score above auto-approve":
        ledger.decide(
            owner=owner,
            fact=fact,
            status="accepted",
            reason=PROMOTED,
            veracity=min(scored.score, 1.0),
            author="system",
            author_label="wearables.memories",
        )
        report.promoted += 1


def run_memory_pass(*, transcript: DayTranscript, rescore_siblings: bool = True) -> PassReport:
    """Extract, score and gate memories for one day transcript and write them to the ledger.

    Idempotent: memories already written for this source and day are matched by content hash and only
    re-scored (promotion / demotion), never written twice. When ``rescore_siblings`` is set, the other
    sources' passes for the same day re-run afterwards (their candidates may now be corroborated).
    """
    owner, source = transcript.owner, transcript.source
    report = PassReport(transcript_id=transcript.pk)
    policy = trust.Policy.from_source(source)
    if policy.mode == "off":
        report.warnings.append("memory mode off: transcript only")
        return report
    day = _day_input(transcript, _wearer_name(owner))
    siblings, sibling_transcripts = _siblings(transcript)
    existing = _source_day_facts(owner, source.kind, transcript.local_date)
    all_hashes = {
        content_hash(c)
        for c in Fact.objects.owned_by(owner)
        .active()
        .filter(tags__contains=["wearable"])
        .values_list("content", flat=True)
    }
    new_hashes = all_hashes - set(existing)
    today = sum(1 for f in existing.values() if f.status in ("accepted", "pending_review"))
    out = pipeline.run(
        pipeline.PassInput(
            day=day,
            policy=policy,
            siblings=siblings,
            active=_active_memories(owner),
            existing_hashes=new_hashes,
            existing_today=today,
        )
    )
    report.warnings, report.extractor = out.warnings, out.extractor
    tags = day_tags(source.kind, transcript.local_date)
    with transaction.atomic():
        _write(
            owner,
            out.scored,
            existing=existing,
            report=report,
            evidence_for=lambda s: _evidence(s, transcript=transcript, extractor=out.extractor, warnings=out.warnings),
            tags=tags,
            label=source_label(source.kind),
            same_day=_day_facts(owner, transcript.local_date),
        )
        upsert_digest(transcript=transcript, policy=policy)
    _record_warnings(source, report.warnings)
    log.info("memory pass %s %s: %s", source.kind, transcript.local_date, report)
    if rescore_siblings:
        for other in sibling_transcripts:
            run_memory_pass(transcript=other, rescore_siblings=False)
            report.siblings_rescored.append(other.pk)
    return report


def upsert_digest(*, transcript: DayTranscript, policy: trust.Policy | None = None):
    """A daily digest episode per synced day ("3 recorded conversations: …"), following the source's mode."""
    policy = policy or trust.Policy.from_source(transcript.source)
    if policy.mode == "off":
        return None
    convs = list(transcript.conversations.order_by("started_at"))
    if not convs:
        return None
    try:
        tz = ZoneInfo(transcript.timezone or "UTC")
    except (ValueError, ZoneInfoNotFoundError):
        tz = ZoneInfo("UTC")
    titles = []
    for conv in convs:
        title = conv.title.strip()
        if not title:
            first = conv.utterances.order_by("index").values_list("text", flat=True).first() or ""
            title = clean(first)[:60]
        titles.append(f"{conv.started_at.astimezone(tz):%H:%M} {title}".strip())
    n = len(convs)
    summary = f"{n} recorded conversation{'s' if n != 1 else ''}: " + "; ".join(titles)
    kind, day = transcript.source.kind, transcript.local_date
    return ledger.upsert_episode(
        owner=transcript.owner,
        key=f"wearable:{kind}:{day.isoformat()}",
        summary=summary,
        title=f"{transcript.source.get_kind_display()} · {day.isoformat()}",
        kind="day",
        started_at=convs[0].started_at,
        ended_at=convs[-1].ended_at or convs[-1].started_at,
        source_label=source_label(kind),
        source_type="transcript",
        source_ref={
            "source_id": transcript.source_id,
            "date": day.isoformat(),
            "transcript_id": transcript.pk,
            "url": f"/transcripts/?date={day.isoformat()}&source={kind}",
        },
        status="pending_review" if policy.mode == "review" else "accepted",
    )


def import_native_memories(source_id: int, memories) -> PassReport:
    """Import a provider's own memories (Bee facts, Omi memories) through the trust pipeline.

    ``memories``: objects with ``text``, ``external_id`` and ``created_at`` or ``occurred_at`` (the connector's
    ``NativeMemory`` or stored ``NativeMemoryImport`` rows). Prior = source_trust × 0.9; mode =
    ``import_native_memories`` (smart | review | off). Idempotent by content hash.
    """
    source = Source.objects.select_related("owner").get(pk=source_id)
    owner = source.owner
    report = PassReport()
    policy = trust.Policy.from_source(source, native=True)
    if policy.mode == "off":
        report.warnings.append("native memory import off")
        return report
    label = source_label(source.kind)
    facts = Fact.objects.owned_by(owner).filter(tags__contains=[f"wearable-native:{source.kind}"])
    existing = {content_hash(f.content): f for f in facts}
    all_hashes = {
        content_hash(c)
        for c in Fact.objects.owned_by(owner)
        .active()
        .filter(tags__contains=["wearable"])
        .values_list("content", flat=True)
    }
    candidates = []
    for mem in memories:
        text = clean(getattr(mem, "text", "") or "")
        if len(text.split()) < 3:
            continue
        kind, _, importance = _classify(text)
        when = getattr(mem, "created_at", None) or getattr(mem, "occurred_at", None)
        cand = Candidate(
            subject="user",
            predicate=f"{kind or 'other'}:native",
            args=[],
            content=text,
            kind=kind or "other",
            importance=importance if kind else "normal",
            extraction_confidence=NATIVE_CONFIDENCE,
            capture_confidence=0.9,
            attribution="user",
            valid_from=when,
            extractor=f"native:{source.kind}",
            extractor_version="1",
        )
        cand.evidence = None
        if looks_like_injection(text):
            cand.capture_confidence = INJECTION_CAPTURE_CONFIDENCE
            cand.flags.append("instruction-like text")
        candidates.append((cand, getattr(mem, "external_id", "")))
    from wearables.memories.judge import judge

    verdicts, warnings = judge([c for c, _ in candidates]) if policy.mode == "smart" else ({}, [])
    report.warnings += warnings
    scored_items, ext_ids = [], {}
    for cand, ext_id in candidates:
        scored = trust.score(cand, source_trust=policy.source_trust, judge_verdict=verdicts.get(cand.proposition_key))
        scored_items.append(trust.decide(scored, policy))
        ext_ids[id(scored_items[-1])] = ext_id
    trust.apply_gates(scored_items, policy, existing_hashes=all_hashes - set(existing))

    def evidence_for(scored: trust.Scored) -> EvidenceIn:
        cand = scored.candidate
        return EvidenceIn(
            source_type="native_memory",
            source_ref={"source_id": source.pk, "source": source.kind, "external_id": ext_ids.get(id(scored), "")},
            quote=cand.content,
            extractor_id=cand.extractor,
            extractor_version=cand.extractor_version,
            capture_confidence=cand.capture_confidence,
            observed_at=cand.valid_from,
            source_label=label,
            details=scored.evidence_payload() | {"native": True, "flags": cand.flags},
        )

    tags = ["wearable", f"wearable:{source.kind}", f"wearable-native:{source.kind}"]
    with transaction.atomic():
        _write(owner, scored_items, existing=existing, report=report, evidence_for=evidence_for, tags=tags, label=label)
    _record_warnings(source, report.warnings)
    return report


def rescore_day(*, owner, local_date) -> list[PassReport]:
    """Re-run every source's pass for one day (e.g. after settings changed)."""
    return [
        run_memory_pass(transcript=t, rescore_siblings=False)
        for t in DayTranscript.objects.owned_by(owner).filter(local_date=local_date).select_related("source", "owner")
    ]
