"""Writes to the event ledger: create (idempotent on the anchor key), revise (compare-and-set on ``revision``),
attach evidence. Every change of an event's content is a new ``EventRevision`` with the full snapshot."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.exceptions import DomainError
from accounts.services import user_timezone
from screen.models import Assertion, EventEvidence, EventRevision, ScreenEvent, validate_event_type

SNAPSHOT_FIELDS = (
    "event_type",
    "title",
    "summary",
    "outcome",
    "status",
    "started_at",
    "ended_at",
    "entities",
    "attributes",
    "user_actions",
    "confidence",
    "sensitivity",
    "durability",
    "related_events",
    "important",
)
CAS_ATTEMPTS = 8


class RevisionConflict(DomainError):
    """The event changed under us too many times in a row; try again."""

    status_code = 409


@dataclass
class AssertionDraft:
    text: str
    content_role: str
    confidence: float = 0.5
    evidence: list[dict] = field(default_factory=list)


@dataclass
class EventDraft:
    key: str
    event_type: str
    started_at: datetime
    title: str
    ended_at: datetime | None = None
    summary: str = ""
    outcome: str = ""
    entities: list = field(default_factory=list)
    attributes: dict = field(default_factory=dict)
    user_actions: list = field(default_factory=list)
    confidence: float = 0.5
    sensitivity: str = ScreenEvent.Sensitivity.NORMAL
    durability: str = ScreenEvent.Durability.DAY
    status: str = ScreenEvent.Status.PROVISIONAL
    context_key: str = ""
    app_name: str = ""
    proposer: str = "deterministic"
    assertions: list[AssertionDraft] = field(default_factory=list)


def _value(v):
    return v.isoformat() if isinstance(v, datetime) else v


def snapshot(event: ScreenEvent) -> dict:
    return {f: _value(getattr(event, f)) for f in SNAPSHOT_FIELDS}


def local_date_of(owner, at: datetime):
    """The owner's local date of ``at``. Events crossing midnight belong to the day they *started*."""
    return at.astimezone(user_timezone(owner)).date()


def create_event(*, owner, draft: EventDraft) -> tuple[ScreenEvent, bool]:
    """Create the event for ``draft.key`` unless it exists (then return it untouched). Returns (event, created)."""
    validate_event_type(draft.event_type)
    existing = ScreenEvent.objects.filter(owner=owner, key=draft.key).first()
    if existing:
        return existing, False
    fields = {
        k: getattr(draft, k)
        for k in (
            "event_type",
            "started_at",
            "ended_at",
            "title",
            "summary",
            "outcome",
            "entities",
            "attributes",
            "user_actions",
            "confidence",
            "sensitivity",
            "durability",
            "status",
            "context_key",
            "app_name",
            "proposer",
        )
    }
    fields["title"] = fields["title"][:200]
    try:
        with transaction.atomic():
            event = ScreenEvent.objects.create(
                owner=owner, key=draft.key, local_date=local_date_of(owner, draft.started_at), **fields
            )
            Assertion.objects.bulk_create(
                [
                    Assertion(
                        owner=owner,
                        event=event,
                        position=i,
                        text=a.text[:2000],
                        confidence=a.confidence,
                        content_role=a.content_role,
                        evidence=a.evidence,
                    )
                    for i, a in enumerate(draft.assertions)
                ]
            )
            EventRevision.objects.create(
                owner=owner,
                event=event,
                number=1,
                status=event.status,
                reason="proposed",
                author=draft.proposer,
                snapshot=snapshot(event),
            )
    except IntegrityError:  # a concurrent pass created the same anchor's event first
        return ScreenEvent.objects.get(owner=owner, key=draft.key), False
    return event, True


def revise(
    *,
    event: ScreenEvent,
    changes: dict,
    reason: str,
    author: str = "proposer",
    add_assertions: list[AssertionDraft] = (),
) -> tuple[ScreenEvent, bool]:
    """Apply ``changes`` as the next revision, claimed with ``UPDATE ... WHERE revision = n``.

    Idempotent: when the changes are already the event's state, nothing is written and ``(event, False)`` is
    returned. On a lost compare-and-set the event is re-read and the change re-applied (bounded retries).
    """
    if "event_type" in changes:
        validate_event_type(changes["event_type"])
    for attempt in range(CAS_ATTEMPTS):
        current = ScreenEvent.objects.get(pk=event.pk)
        if all(getattr(current, k) == v for k, v in changes.items()) and not add_assertions:
            return current, False
        number = current.revision + 1
        with transaction.atomic():
            claimed = ScreenEvent.objects.filter(pk=current.pk, revision=current.revision).update(
                revision=number, revised_at=timezone.now(), **changes
            )
            if claimed:
                updated = ScreenEvent.objects.get(pk=current.pk)
                append_assertions(updated, add_assertions)
                EventRevision.objects.create(
                    owner=updated.owner,
                    event=updated,
                    number=number,
                    status=updated.status,
                    reason=reason[:200],
                    author=author,
                    snapshot=snapshot(updated),
                )
                return updated, True
        time.sleep(0.01 * (attempt + 1))
    raise RevisionConflict("the event kept changing; try again")


def attach_evidence(
    *,
    event: ScreenEvent,
    role: str,
    at: datetime,
    excerpt: str = "",
    frame_id: int | None = None,
    frame=None,
    app_name: str = "",
    window_name: str = "",
) -> EventEvidence:
    """Attach evidence once per (event, role, moment); a second call for the same moment updates the frame."""
    ev, created = EventEvidence.objects.get_or_create(
        event=event,
        role=role,
        occurred_at=at,
        defaults={
            "owner": event.owner,
            "excerpt": excerpt[:2000],
            "frame_id": frame_id,
            "image": frame,
            "app_name": app_name[:200],
            "window_name": window_name[:300],
        },
    )
    if not created and frame is not None and ev.image_id is None:
        ev.image = frame
        ev.save(update_fields=["image"])
    return ev


def append_assertions(event: ScreenEvent, drafts: list[AssertionDraft]) -> None:
    """Add assertions after the event's existing ones, each with the role of the text it rests on."""
    start = event.assertions.count()
    Assertion.objects.bulk_create(
        [
            Assertion(
                owner=event.owner,
                event=event,
                position=start + i,
                text=a.text[:2000],
                confidence=a.confidence,
                content_role=a.content_role,
                evidence=a.evidence,
            )
            for i, a in enumerate(drafts)
        ]
    )
