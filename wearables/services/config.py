"""Load everything user-specific a pipeline run needs (once per sync, never per utterance)."""

from __future__ import annotations

from datetime import date, timedelta

from django.db.models import Q

from accounts.services import get_settings
from ledger.forget.hooks import forgotten_names
from wearables.models import (
    Conversation,
    Correction,
    Person,
    RedactionRule,
    Source,
    SpeakerAssignment,
    SpeakerIdentity,
    Utterance,
)
from wearables.pipeline import Convo, KnownPerson, PipelineConfig, Turn
from wearables.services.sources import get_wearables_settings

# Methods trustworthy enough for another device to align against.
REFERENCE_METHODS = {"provider", "user", "registry"}


def _known(person: Person) -> KnownPerson:
    return KnownPerson(pk=person.pk, name=person.name, is_self=person.is_self)


def redaction_patterns(owner) -> list:
    patterns = []
    for rule in RedactionRule.objects.owned_by(owner):
        try:
            patterns.append(rule.compiled())
        except Exception:  # noqa: BLE001 - validated at save time; a bad legacy row must not stop ingest
            continue
    return patterns


def reference_conversations(owner, source: Source, local_date: date) -> list[Convo]:
    """Other devices' conversations of the same local day whose wearer a device or the user decided."""
    convs = list(
        Conversation.objects.owned_by(owner)
        .filter(transcript__local_date=local_date, wearer_method__in=REFERENCE_METHODS)
        .exclude(transcript__source=source)
        .select_related("transcript__source")
    )
    if not convs:
        return []
    turns: dict[int, list[Turn]] = {c.pk: [] for c in convs}
    for u in Utterance.objects.owned_by(owner).filter(conversation__in=convs).order_by("index"):
        turns[u.conversation_id].append(
            Turn(text=u.text, speaker_label=u.speaker_label, is_wearer=u.is_wearer, started_at=u.started_at)
        )
    return [
        Convo(
            source=c.transcript.source.kind,
            external_id=c.external_id,
            started_at=c.started_at,
            ended_at=c.ended_at,
            turns=turns[c.pk],
        )
        for c in convs
    ]


def elided_elsewhere(owner, source: Source, local_date: date) -> list[tuple]:
    """Off-the-record stretches other devices elided around this day (a span can cross midnight)."""
    from wearables.services.transcripts import spans_from_json

    rows = (
        Conversation.objects.owned_by(owner)
        .filter(transcript__local_date__range=(local_date - timedelta(days=1), local_date + timedelta(days=1)))
        .exclude(transcript__source=source)
        .exclude(elided_spans=[])
        .values_list("elided_spans", flat=True)
    )
    return [span for spans in rows for span in spans_from_json(spans)]


def build_config(owner, source: Source, local_date: date | None = None) -> PipelineConfig:
    site = get_settings(owner)
    ws = get_wearables_settings(owner)
    persons = {p.pk: p for p in Person.objects.owned_by(owner)}
    me = next((p for p in persons.values() if p.is_self), None)
    user_name = (site.display_name or owner.get_username()).strip()
    identities = {
        (i.identity_kind, i.key.lower()): _known(persons[i.person_id])
        for i in SpeakerIdentity.objects.owned_by(owner).filter(source=source)
    }
    assignments = {
        (a.conversation_external_id, a.speaker_label): _known(persons[a.person_id])
        for a in SpeakerAssignment.objects.owned_by(owner).filter(source=source)
    }
    corrections = [
        (c.wrong, c.right)
        for c in Correction.objects.owned_by(owner)
        .filter(Q(source__isnull=True) | Q(source=source))
        .order_by("-source", "wrong")
    ]
    return PipelineConfig(
        source=source.kind,
        user_name=user_name,
        self_names=[me.name] if me else [],
        off_the_record=ws.off_the_record,
        off_phrases=list(ws.off_phrases or []),
        on_phrases=list(ws.on_phrases or []),
        redaction_patterns=redaction_patterns(owner),
        corrections=corrections,
        identities=identities,
        assignments=assignments,
        self_person=_known(me) if me else None,
        reference=reference_conversations(owner, source, local_date) if local_date else [],
        elided_elsewhere=elided_elsewhere(owner, source, local_date) if local_date else [],
        forgotten=forgotten_names(owner),
    )
