"""Curation: a separate, later decision per event revision - ignore, append to the day's note, update an entity's
note, or create a durable memory through ``distill`` with the event as evidence.

Claiming: a run reads the event's ``revision`` n and claims it with ``UPDATE ... SET curating_revision = n
WHERE revision = n AND curated_revision < n AND (curating_revision IS NULL OR the claim is stale)``. Two
concurrent runs: one claims and curates; the other's claim matches no row, so it waits and retries, then finds
revision n already curated and stops. A revision made during curation is curated by the next run (the claim
is on a stable revision; the result row is unique per (event, revision)).

Beliefs: only a user-authored assertion or the owner's own observed actions can become a memory about the user.
App/system output is app state, assistant output and media are never beliefs about the owner; OCR without a
reliable author speaks for nobody in particular.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.services import get_settings, owner_name
from screen.models import Assertion, Curation, DayNote, EntityNote, EventEvidence, ScreenEvent, ScreenFrame
from screen.preferences import EXCLUDE, TRACK, matching

log = logging.getLogger(__name__)

SOURCE_KEY = "screen"
CLAIM_STALE = timedelta(minutes=10)
RETRIES = 50
RETRY_SLEEP = 0.05
MEMORY_CONFIDENCE = 0.8


@dataclass
class CurationResult:
    outcome: str  # curated | already_curated | not_ready | busy
    decision: str = ""
    retried: bool = False
    curation: Curation | None = None


def decide(event: ScreenEvent, preferences: list[dict]) -> tuple[str | None, str]:
    """(decision, reason); decision None means "not ready yet" (a provisional event may still change)."""
    if event.status == ScreenEvent.Status.REJECTED:
        return Curation.Decision.IGNORE, "rejected by you"
    if event.status == ScreenEvent.Status.WITHDRAWN:
        return Curation.Decision.IGNORE, "withdrawn: no outcome after all"
    pref = matching(preferences, event)
    if pref and pref.action == EXCLUDE:
        return Curation.Decision.IGNORE, f"preference: {pref.text}"
    if event.important is False:
        return Curation.Decision.IGNORE, "marked unimportant"
    if event.status == ScreenEvent.Status.PROVISIONAL:
        return None, "provisional"
    if (pref and pref.action == TRACK) or event.important is True:
        return Curation.Decision.MEMORY, f"preference: {pref.text}" if pref else "marked important"
    if event.outcome == "resolved" and event.entities:
        return Curation.Decision.ENTITY_NOTE, "a resolved problem belongs to what it was about"
    return Curation.Decision.DAY_NOTE, "part of the day"


def _claim(event_id: int) -> tuple[ScreenEvent | None, int]:
    event = ScreenEvent.objects.get(pk=event_id)
    rev = event.revision
    now = timezone.now()
    claimed = ScreenEvent.objects.filter(
        Q(curating_revision__isnull=True) | Q(curating_since__lt=now - CLAIM_STALE),
        pk=event_id,
        revision=rev,
        curated_revision__lt=rev,
    ).update(curating_revision=rev, curating_since=now)
    return (event if claimed else None), rev


def curate_event(*, event_id: int) -> CurationResult:
    """Curate the event's current revision once. Safe to run concurrently (see the module docstring)."""
    retried = False
    for _ in range(RETRIES):
        current = ScreenEvent.objects.filter(pk=event_id).first()
        if current is None:
            return CurationResult("gone")
        if current.curated_revision >= current.revision:
            return CurationResult("already_curated", retried=retried)
        event, rev = _claim(event_id)
        if event is None:
            retried = True
            time.sleep(RETRY_SLEEP)
            continue
        try:
            return _curate_claimed(event, rev, retried)
        finally:
            ScreenEvent.objects.filter(pk=event_id, curating_revision=rev).update(
                curating_revision=None, curating_since=None
            )
    return CurationResult("busy", retried=True)


def _curate_claimed(event: ScreenEvent, rev: int, retried: bool) -> CurationResult:
    preferences = event.owner.screen_screensource_set.values_list("preferences", flat=True).first() or []
    decision, reason = decide(event, preferences)
    if decision is None:
        return CurationResult("not_ready", retried=retried)
    result: dict = {}
    if decision == Curation.Decision.MEMORY:
        result = _to_memory(event)
    with transaction.atomic():
        if decision == Curation.Decision.DAY_NOTE:
            _append_day_note(event)
        elif decision == Curation.Decision.ENTITY_NOTE:
            result = {"entity": _append_entity_note(event)}
        elif decision == Curation.Decision.IGNORE and reason.startswith("preference"):
            _drop_content(event)
        curation, _ = Curation.objects.get_or_create(
            event=event,
            revision=rev,
            defaults={"owner": event.owner, "decision": decision, "reason": reason[:200], "result": result},
        )
        ScreenEvent.objects.filter(pk=event.pk, curated_revision__lt=rev).update(curated_revision=rev)
    return CurationResult("curated", decision=decision, retried=retried, curation=curation)


def curate_pending(*, owner) -> list[CurationResult]:
    """Curate every event of ``owner`` whose current revision has not been curated."""
    ids = ScreenEvent.objects.owned_by(owner).filter(curated_revision__lt=F("revision")).values_list("pk", flat=True)
    return [curate_event(event_id=pk) for pk in list(ids)]


# --- decisions ------------------------------------------------------------------------------------------
def _line(event: ScreenEvent) -> str:
    local = event.started_at.astimezone(get_settings(event.owner).zoneinfo)
    extra = f" ({event.attributes['score']})" if (event.attributes or {}).get("score") else ""
    return f"{local:%H:%M} {event.title}{extra}"


def _append_day_note(event: ScreenEvent) -> None:
    note, _ = DayNote.objects.select_for_update().get_or_create(owner=event.owner, local_date=event.local_date)
    lines = [entry for entry in note.lines if entry.get("event") != str(event.public_id)]
    lines.append({"event": str(event.public_id), "text": _line(event)})
    note.lines = sorted(lines, key=lambda e: e["text"])
    note.save(update_fields=["lines", "updated_at"])


def _append_entity_note(event: ScreenEvent) -> str:
    name = str(event.entities[0])[:200]
    note, _ = EntityNote.objects.select_for_update().get_or_create(owner=event.owner, name=name)
    lines = [entry for entry in note.lines if entry.get("event") != str(event.public_id)]
    lines.append({"event": str(event.public_id), "text": f"{event.local_date}: {event.title}"})
    note.lines = lines
    note.save(update_fields=["lines", "updated_at"])
    return name


def _drop_content(event: ScreenEvent) -> None:
    """A "do not retain" preference: the event stays (what happened), its screen text and images go."""
    frames = list(event.evidence.exclude(image=None).values_list("image_id", flat=True))
    EventEvidence.objects.filter(event=event).update(excerpt="", image=None)
    ScreenFrame.objects.filter(pk__in=frames).delete()
    Assertion.objects.filter(event=event).update(evidence=[])


def _speaker_for(role: str, owner_name: str, app: str, confidence: float, name: str = ""):
    from distill.conversation import Role, Speaker

    if role == Assertion.ContentRole.USER_AUTHORED:
        return Speaker(owner_name, is_owner=True, owner_confidence=confidence, role=Role.PERSON)
    if role == Assertion.ContentRole.OTHER_PERSON:
        # Named when ScreenPipe named the speaker (a colleague on a call), never the owner.
        return Speaker(name or "another person", role=Role.PERSON, owner_confidence=0.0)
    if role == Assertion.ContentRole.ASSISTANT_OUTPUT:
        return Speaker("assistant", role=Role.ASSISTANT)
    if role == Assertion.ContentRole.OCR_UNATTRIBUTED:
        return Speaker("screen text", role=Role.UNKNOWN, owner_confidence=0.0)
    return Speaker(app or "app", role=Role.SYSTEM)  # system/app output and media: app state, never a belief


def conversation_for(event: ScreenEvent):
    """The event as a neutral ``distill`` conversation: observed user actions and user-authored text as the
    owner's turns; every other assertion with the role that keeps it from becoming a belief about the owner."""
    from distill.conversation import Conversation, Role, Speaker, Turn

    me_name = owner_name(event.owner)
    me = Speaker(me_name, is_owner=True, owner_confidence=event.confidence, role=Role.PERSON)
    turns = [
        Turn(i, me, f"I {action}.", event.started_at, {"kind": "user_action"})
        for i, action in enumerate(event.user_actions or [])
    ]
    for a in event.assertions.all():
        named = next((e.get("speaker", "") for e in (a.evidence or []) if isinstance(e, dict)), "")
        speaker = _speaker_for(a.content_role, me_name, event.app_name, a.confidence, named)
        turns.append(Turn(len(turns), speaker, a.text, event.started_at, {"assertion": a.position}))
    return Conversation(
        source_key=SOURCE_KEY,
        source_type="screen_event",
        scope_key=f"screen:event:{event.public_id}",
        day_key=event.local_date.isoformat(),
        turns=turns,
        external_id=str(event.public_id),
        title=event.title,
        started_at=event.started_at,
        source_ref={"screen_event": str(event.public_id), "revision": event.revision, "type": event.event_type},
    )


def _to_memory(event: ScreenEvent) -> dict:
    from distill.services import distill

    conv = conversation_for(event)
    report = distill(owner=event.owner, conversations=[conv], scope_key=conv.scope_key, source_key=SOURCE_KEY)
    return {"facts": list(report.facts), "written": dict(report.written), "warnings": report.warnings[:5]}


def forget_memories(*, owner, fact_ids=(), fact_public_ids=(), episode_ids=()) -> None:
    """Ledger forget hook: a forgotten memory's id is removed from the curation results that point at it."""
    wanted = {str(x) for x in fact_public_ids}
    if not wanted:
        return
    for curation in Curation.objects.filter(owner=owner, decision=Curation.Decision.MEMORY):
        facts = list((curation.result or {}).get("facts") or [])
        kept = [f for f in facts if f not in wanted]
        if kept != facts:
            curation.result = {**curation.result, "facts": kept, "forgotten": len(facts) - len(kept)}
            curation.save(update_fields=["result"])
