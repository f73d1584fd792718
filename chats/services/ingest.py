"""The hot path: an agent hands over a conversation's turns; they are stored as pending signals and the
session is distilled later (after ALMANAC_CHATS_IDLE_SECONDS without new turns) or at once on flush.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.exceptions import DomainError
from chats.models import ChatSession, ChatTurn
from chats.privacy import entry_point_for, filtered
from chats.services import distilling
from chats.services.store import StoreMode, store_session
from chats.text import SessionIn, TurnIn, canonical_agent_id


class IngestError(DomainError):
    status_code = 422


@dataclass
class IngestResult:
    outcome: str
    session: ChatSession | None = None
    added: int = 0
    replaced: bool = False  # the stored turns differed from this whole-conversation call and were replaced
    private_removed: int = 0  # <private> spans removed from this call's turns before anything else saw them

    def as_dict(self) -> dict:
        s = self.session
        return {
            "outcome": self.outcome,
            "conversation_id": s.external_id if s else "",
            "agent_id": s.agent_id if s else "",
            "session_id": str(s.public_id) if s else None,
            "episode_id": str(s.episode_id_ref) if s and s.episode_id_ref and self.outcome == "distilled" else None,
            "turns_added": self.added,
            "turns_total": s.turn_count if s else 0,
            "replaced": self.replaced,
            "private_removed": self.private_removed,
        }


def turns_from_pairs(pairs: list[dict], at: datetime | None) -> list[TurnIn]:
    out: list[TurnIn] = []
    for pair in pairs:
        for role in ("user", "assistant"):
            text = pair.get(role)
            if text is not None:
                out.append(TurnIn(role=role, text=str(text), speaker=role, is_owner=role == "user", at=at))
    return out


def ingest(
    *,
    owner,
    agent_id: str,
    conversation_id: str,
    turns: list[dict],
    session_date: datetime | None = None,
    skip_extraction: bool = False,
    flush: bool = False,
    source_key: str = ChatSession.Source.INGEST,
    enqueue=None,
    mode: str = StoreMode.AUTO,
) -> IngestResult:
    """Store ``turns`` ({user, assistant} pairs) for ``conversation_id``: the whole conversation so far
    (``mode`` auto: a longer version appends, a different one replaces) or only the new pairs (``mode`` append:
    added after the stored turns, never replacing; a retried tail adds nothing).

    ``enqueue(session_pk)`` is called after commit when a debounce task must start (the task module passes
    it; services never import tasks).
    """
    conversation_id = (conversation_id or "").strip()
    if not conversation_id:
        raise IngestError("conversation_id must not be empty")
    if not turns:
        return IngestResult(outcome="empty:no_turns")
    items, private = filtered(owner, entry_point_for(source_key),
                              lambda f: [f.turn(t) for t in turns_from_pairs(turns, session_date)])  # fmt: skip
    if not any(t.text.strip() for t in items):
        return IngestResult(outcome="empty:blank_turns", private_removed=private)
    if not distilling.memory_enabled(owner, source_key):
        return IngestResult(outcome="skipped:memory_disabled", private_removed=private)
    data = SessionIn(
        source_key=source_key,
        external_id=conversation_id,
        turns=items,
        agent_id=canonical_agent_id(agent_id),
        started_at=session_date,
    )
    due = timezone.now() + timedelta(seconds=distilling.idle_seconds())
    stored = store_session(owner=owner, data=data, pending=not skip_extraction, due_at=due, mode=mode)
    session = stored.session
    done = {"session": session, "added": stored.added, "replaced": stored.replaced, "private_removed": private}
    if skip_extraction:
        ChatSession.objects.filter(pk=session.pk).update(
            status=ChatSession.Status.SKIPPED, outcome="skipped:extraction_disabled", distill_due_at=None
        )
        return IngestResult(outcome="skipped:extraction_disabled", **done)
    if flush:
        session.refresh_from_db()
        return IngestResult(outcome=distilling.distill_session(session=session), **done)
    if stored.added == 0 and not stored.replaced:
        return IngestResult(outcome=session.outcome or "queued", session=session, private_removed=private)
    if enqueue is not None and stored.previous_due is None:
        # One debounce task per burst: later turns only move the due time (the task waits for it).
        transaction.on_commit(lambda: enqueue(session.pk))
    return IngestResult(outcome="queued", **done)


def flush(*, owner, conversation_id: str, source_key: str = ChatSession.Source.INGEST, enqueue=None) -> IngestResult:
    """Make a conversation due now; the distil task runs at once (``enqueue``) instead of after the idle time."""
    session = ChatSession.objects.owned_by(owner).filter(source_key=source_key, external_id=conversation_id).first()
    if session is None:
        raise IngestError("no such conversation")
    if not session.turns.pending().exists():
        return IngestResult(outcome=session.outcome or "no_signals", session=session)
    distilling.mark_due(session=session, delay=0)
    if enqueue is not None:
        transaction.on_commit(lambda: enqueue(session.pk))
    session.refresh_from_db()
    return IngestResult(outcome="queued", session=session)


def pending_count(owner) -> int:
    return ChatTurn.objects.owned_by(owner).pending().count()


def status(*, owner, conversation_id: str, source_key: str | None = None) -> IngestResult:
    """The state of a conversation handed over by ingest or recorded by the memory proxy (``source_key`` None:
    either of them, the ingest one first)."""
    keys = [source_key] if source_key else [ChatSession.Source.INGEST, ChatSession.Source.PROXY]
    rows = ChatSession.objects.owned_by(owner).filter(source_key__in=keys, external_id=conversation_id)
    session = sorted(rows, key=lambda s: keys.index(s.source_key))[0] if rows else None
    if session is None:
        raise IngestError("no such conversation")
    return IngestResult(outcome=session.outcome or session.status, session=session)
