"""Storing conversations: one session row plus its turns, idempotent per (owner, source, external id).

A conversation handed over again is compared with what is stored through a rolling hash of its turns
(``StoreMode.AUTO``, the default: "send the whole conversation so far"): the same turns → nothing written; the
stored turns followed by new ones → only the new ones are inserted (one INSERT, as pending signals); anything
else → the session's turns and episodes are replaced. ``StoreMode.APPEND`` (a client that sends only the new turn
pair each call) adds the turns after the stored ones and never replaces; re-sending the same tail (a retry) adds
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models, transaction
from django.utils import timezone

from chats.models import ChatSession, ChatTurn
from chats.text import SessionIn, chain_hash, redact, redact_texts


class StoreMode(models.TextChoices):
    AUTO = "auto"  # the whole conversation so far: a longer version appends, a different one replaces
    APPEND = "append"  # only new turns: added after the stored ones, a repeated tail (retry) adds nothing


@dataclass
class StoreResult:
    session: ChatSession
    added: int  # turns inserted by this call
    replaced: bool  # the stored conversation differed and was replaced
    created: bool
    previous_due: object = None  # the session's distill_due_at before this call (None: no task waiting)


def _hashes(turns, h: str = "") -> list[str]:
    out = []
    for t in turns:
        h = chain_hash(h, t.role, t.text)
        out.append(h)
    return out


def delete_session_episodes(owner, session: ChatSession) -> int:
    """Remove the episodes derived from a session (its summary and correction/error/... episodes)."""
    from distill.services import forget_episodes

    return forget_episodes(owner=owner, key_prefix=f"chat:{session.public_id}")


def _tail_is(session: ChatSession, turns) -> bool:
    """Whether the stored conversation already ends with exactly ``turns`` (an append that was retried)."""
    n = len(turns)
    if not n or session.turn_count < n:
        return False
    stored = list(session.turns.filter(index__gte=session.turn_count - n).order_by("index").values_list("role", "text"))
    return stored == [(t.role, t.text) for t in turns]


def _plan(session: ChatSession, created: bool, turns, mode: str) -> tuple[int, list, bool, str, int]:
    """(index of the first new turn, turns to insert, replace?, content hash after, turn count after)."""
    known = session.turn_count
    if mode == StoreMode.APPEND and known:
        if _tail_is(session, turns):
            return known, [], False, session.content_hash, known
        hashes = _hashes(turns, session.content_hash)
        return known, turns, False, (hashes[-1] if hashes else session.content_hash), known + len(turns)
    hashes = _hashes(turns)
    last, total = (hashes[-1] if hashes else ""), len(hashes)
    prefix = known <= total and (known == 0 or hashes[known - 1] == session.content_hash)
    if created or prefix:
        return known, turns[known:], False, last, total
    return 0, turns, True, last, total


def store_session(
    *, owner, data: SessionIn, pending: bool = True, due_at=None, mode: str = StoreMode.AUTO
) -> StoreResult:
    """Upsert one conversation (``mode``: see the module doc). New turns are pending signals unless ``pending``
    is False; ``due_at`` (when new turns arrived) marks the session queued for distillation at that time, in the
    same UPDATE."""
    _clean_turns(owner, data)
    now = timezone.now()
    with transaction.atomic():
        session, created = _lock_session(owner, data, now)
        previous_due = session.distill_due_at
        known, new, replaced, content_hash, total = _plan(session, created, data.turns, mode)
        if replaced:
            _reset(owner, session)
        _insert_turns(owner, session, first=known, turns=new, distilled_at=None if pending else now)
        if new or replaced:
            _advance(session, data, total=total, content_hash=content_hash, now=now,
                     due_at=due_at if pending else None)  # fmt: skip
    return StoreResult(session=session, added=len(new), replaced=replaced, created=created, previous_due=previous_due)


def _clean_turns(owner, data: SessionIn) -> None:
    """Redact secrets from the turns and their extras, then drop what the owner asked to forget."""
    from chats.forgetting import scrub

    for t, text in zip(data.turns, redact_texts([t.text for t in data.turns]), strict=True):
        t.text = text
        t.extras = [{**e, "text": redact(e.get("text") or "")} for e in t.extras]
    data.title = redact(data.title)
    data.turns = scrub(owner, data.turns)


def _lock_session(owner, data: SessionIn, now) -> tuple[ChatSession, bool]:
    """The session row, created if new, locked until the transaction ends: concurrent stores of one conversation
    run one after the other, each planning against the turns the previous one stored."""
    return ChatSession.objects.select_for_update().get_or_create(
        owner=owner,
        source_key=data.source_key,
        external_id=data.external_id[:200],
        defaults={
            "agent_id": data.agent_id[:200],
            "title": data.title[:300],
            "project": data.project[:500],
            "started_at": data.started_at or (data.turns[0].at if data.turns and data.turns[0].at else now),
        },
    )


def _reset(owner, session: ChatSession) -> None:
    """A different conversation under the same id: its turns and episodes go, and it is open again."""
    session.turns.all().delete()
    delete_session_episodes(owner, session)
    session.status, session.outcome, session.attempts = ChatSession.Status.OPEN, "", 0
    session.episode_id_ref = None


def _insert_turns(owner, session: ChatSession, *, first: int, turns, distilled_at) -> None:
    ChatTurn.objects.bulk_create(
        [
            ChatTurn(
                owner=owner,
                session=session,
                index=first + i,
                role=t.role,
                speaker=t.speaker[:200],
                is_owner=t.is_owner,
                text=t.text,
                tool_calls=t.tool_calls,
                extras=t.extras,
                occurred_at=t.at,
                distilled_at=distilled_at,
            )
            for i, t in enumerate(turns)
        ]
    )


def _advance(session: ChatSession, data: SessionIn, *, total: int, content_hash: str, now, due_at) -> None:
    """Save the session's new turn count, hash and the metadata the client sent; ``due_at`` queues it for
    distillation."""
    session.turn_count = total
    session.content_hash = content_hash
    session.last_turn_at = next((t.at for t in reversed(data.turns) if t.at), None) or now
    if data.title:
        session.title = data.title[:300]
    if data.project:
        session.project = data.project[:500]
    if data.agent_id:
        session.agent_id = data.agent_id[:200]
    if data.started_at:
        session.started_at = data.started_at
    if due_at is not None:
        session.distill_due_at = due_at
        session.status, session.outcome = ChatSession.Status.QUEUED, "queued"
    session.save()


def delete_session(*, owner, session: ChatSession) -> None:
    with transaction.atomic():
        delete_session_episodes(owner, session)
        session.delete()
