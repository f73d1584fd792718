"""Lessons: a correction seen once, or an error/surprise seen twice, becomes a pinned ledger fact (tag "lesson")
whose evidence quotes the episodes it came from. ``Lesson`` rows carry strength, aliases and history.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from chats.episodes import Moment
from chats.models import ChatSession, Lesson
from chats.text import normalise_key
from ledger import services as ledger_services
from ledger.choices import Status
from ledger.models import Fact, PinnedFact
from ledger.services import layers

logger = logging.getLogger(__name__)

# How many sightings make a lesson, per kind (a correction is explicit: once is enough).
THRESHOLD = {"correction": 1, "error": 2, "surprise": 2, "environment": 2}
START_STRENGTH = 0.6
BUMP = 0.15


def _event(lesson: Lesson, event: str, now: datetime) -> None:
    lesson.history = [*lesson.history, {"at": now.isoformat(), "event": event, "strength": round(lesson.strength, 3)}]


def _key(moment: Moment, project: str) -> str:
    if moment.kind == "error" and moment.signature:
        # (project, the cause without its particulars): one cause is one lesson, whichever tool or file it hit.
        return hashlib.sha256(f"error\x1f{project}\x1f{moment.signature}".encode()).hexdigest()
    basis = moment.signature if moment.kind == "surprise" and moment.signature else moment.lesson
    return normalise_key(f"{moment.kind} {project} {basis}")


def project_basis(session: ChatSession) -> str:
    """What "the same project" means in a lesson's key: the project's key (a repository is one project in every
    clone), else the session's working directory."""
    return session.agent_project.key if session.agent_project_id else session.project


def _write_fact(owner, lesson: Lesson, quote: str, episode_key: str, session: ChatSession) -> None:
    ref = {"episode": episode_key, "session": str(session.public_id)}
    write_fact_for(owner=owner, lesson=lesson, quote=quote, source_ref=ref, source_key=session.source_key,
                   observed_at=session.last_turn_at)  # fmt: skip


def write_fact_for(*, owner, lesson: Lesson, quote: str, source_ref=None, source_key="chat:lessons",
                   observed_at=None) -> None:  # fmt: skip
    """Admit (or corroborate) the ledger fact behind a lesson and pin it with the lesson's strength."""
    evidence = ledger_services.EvidenceIn(
        source_type="chat",
        source_ref=source_ref or {"lesson": str(lesson.public_id)},
        quote=quote[:2000],
        extractor_id="chats.lessons",
        extractor_version="1",
        capture_confidence=0.9,
        observed_at=observed_at,
        source_label=source_key,
    )
    result = ledger_services.propose_fact(
        owner=owner,
        content=lesson.text,
        evidence=[evidence],
        predicate="lesson",
        importance="normal",
        veracity=0.8,
        capture_confidence=0.9,
        status=Status.ACCEPTED,
        reason="lesson-from-episodes",
        source_label=source_key,
        tags=["lesson", lesson.kind],
        author="system",
        author_label="chats.lessons",
        on_duplicate="corroborate",
    )
    if result.fact is None:  # refused: the person rejected or forgot this claim before
        lesson.status = Lesson.Status.ARCHIVED
        lesson.save()
        return
    lesson.fact_public_id = result.fact.public_id
    lesson.save()
    layers.pin_fact(owner=owner, fact=result.fact, salience=min(1.0, lesson.strength), pinned_by="chats")


def observe(
    *, owner, session: ChatSession, moments: list[Moment], episode_keys: dict[int, str], now=None
) -> list[Lesson]:
    """Count each moment towards its lesson; returns the lessons that became (or stayed) active and were seen."""
    now = now or timezone.now()
    touched: list[Lesson] = []
    for m in moments:
        key = _key(m, project_basis(session))
        ep_key = episode_keys.get(id(m), "")
        with transaction.atomic():
            lesson, created = Lesson.objects.select_for_update().get_or_create(
                owner=owner,
                key=key,
                defaults={
                    "kind": m.kind,
                    "text": m.lesson[:1000],
                    "project": session.project,
                    "agent_project": session.agent_project,
                    "last_seen_at": now,
                    "status": Lesson.Status.ARCHIVED,
                    "strength": 0.0,
                    "seen_count": 0,
                },
            )
            if ep_key in lesson.episode_keys:
                continue  # the same episode re-read (idempotent re-distillation)
            lesson.seen_count += 1
            lesson.last_seen_at = now
            lesson.episode_keys = [*lesson.episode_keys, ep_key][-50:]
            was_active = lesson.status == Lesson.Status.ACTIVE
            if lesson.fact_public_id is None and lesson.seen_count >= THRESHOLD.get(m.kind, 2):
                lesson.status, lesson.strength = Lesson.Status.ACTIVE, START_STRENGTH
                _write_fact(owner, lesson, m.quote, ep_key, session)
                _event(lesson, "learned", now)
            elif was_active:
                lesson.strength = min(1.0, lesson.strength + BUMP)
                _write_fact(owner, lesson, m.quote, ep_key, session)
                _event(lesson, "reinforced", now)
            lesson.save()
            if lesson.status == Lesson.Status.ACTIVE:
                touched.append(lesson)
    return touched


def set_strength(*, owner, lesson: Lesson, strength: float, event: str, now=None) -> Lesson:
    now = now or timezone.now()
    lesson.strength = max(0.0, min(1.0, strength))
    floor = float(getattr(settings, "ALMANAC_CHATS_LESSON_ARCHIVE_BELOW", 0.15))
    if lesson.status == Lesson.Status.ACTIVE and lesson.strength < floor:
        lesson.status = Lesson.Status.ARCHIVED
        event = "archived"
        _unpin(owner, lesson)
    _event(lesson, event, now)
    lesson.save()
    _sync_pin(owner, lesson)
    return lesson


def _fact(owner, lesson: Lesson) -> Fact | None:
    if not lesson.fact_public_id:
        return None
    return Fact.objects.owned_by(owner).filter(public_id=lesson.fact_public_id).first()


def _sync_pin(owner, lesson: Lesson) -> None:
    if lesson.status != Lesson.Status.ACTIVE:
        return
    pin = PinnedFact.objects.owned_by(owner).filter(fact__public_id=lesson.fact_public_id).first()
    if pin is not None:
        layers.update_pinned(owner=owner, pinned=pin, salience=lesson.strength)


def _unpin(owner, lesson: Lesson) -> None:
    pin = PinnedFact.objects.owned_by(owner).filter(fact__public_id=lesson.fact_public_id).first()
    if pin is not None:
        layers.unpin_fact(owner=owner, pinned=pin)


def merge(*, owner, theme: Lesson, others: list[Lesson], now=None) -> Lesson:
    """Fold lessons that mean the same into ``theme``: the others become its aliases and stop being shown."""
    now = now or timezone.now()
    with transaction.atomic():
        for other in others:
            theme.aliases = [*theme.aliases, other.text, *other.aliases][:20]
            theme.episode_keys = [*theme.episode_keys, *other.episode_keys][-50:]
            theme.seen_count += other.seen_count
            theme.strength = min(1.0, max(theme.strength, other.strength) + 0.05)
            other.status, other.theme = Lesson.Status.MERGED, theme
            _event(other, f"merged into {theme.public_id}", now)
            other.save()
            _unpin(owner, other)
        _event(theme, f"theme of {len(others)} lesson(s)", now)
        theme.save()
        _sync_pin(owner, theme)
    return theme


def delete_for_sessions(*, owner, session_ids: list[str]) -> int:
    """Forget support: drop lessons whose every episode came from the given sessions."""
    removed = 0
    prefixes = tuple(f"chat:{sid}" for sid in session_ids)
    for lesson in Lesson.objects.owned_by(owner):
        keys = [k for k in lesson.episode_keys if k]
        if keys and all(k.startswith(prefixes) for k in keys):
            _unpin(owner, lesson)
            lesson.delete()
            removed += 1
    return removed
