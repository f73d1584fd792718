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
from chats.privacy import PrivateFilter, entry_point_for, filtered
from chats.projects import project_of_session
from chats.text import SessionIn, TurnIn, chain_hash, redact, redact_texts


class StoreMode(models.TextChoices):
    AUTO = "auto"  # the whole conversation so far: a longer version appends, a different one replaces
    APPEND = "append"  # only new turns: added after the stored ones, a repeated tail (retry) adds nothing
    EXTEND = "extend"  # the whole conversation so far, which must extend the stored one (else NotAnExtension)


class NotAnExtension(Exception):
    """``StoreMode.EXTEND``: the stored turns are not a prefix of the given ones; nothing was written."""


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


def stored_hashes(owner, data: SessionIn) -> list[str]:
    """The rolling hash after each of ``data``'s turns as ``store_session`` would store them (cleaned the same
    way), without storing anything: a stored session whose ``content_hash`` is one of them holds exactly that
    many of these turns."""
    copy = SessionIn(source_key=data.source_key, external_id=data.external_id,
                     turns=[TurnIn(role=t.role, text=t.text, speaker=t.speaker, is_owner=t.is_owner)
                            for t in data.turns])  # fmt: skip
    _clean_turns(owner, copy, count=False)
    return _hashes(copy.turns)


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
    if mode == StoreMode.EXTEND:
        raise NotAnExtension(session.external_id)
    return 0, turns, True, last, total


def store_session(
    *, owner, data: SessionIn, pending: bool = True, due_at=None, mode: str = StoreMode.AUTO, project=None
) -> StoreResult:
    """Upsert one conversation (``mode``: see the module doc). New turns are pending signals unless ``pending``
    is False; ``due_at`` (when new turns arrived) marks the session queued for distillation at that time, in the
    same UPDATE. ``project``: the session's ``AgentProject`` when the caller knows it (a hook named the
    repository), else it is resolved from ``data.project`` and ``data.repository``."""
    _clean_turns(owner, data)
    now = timezone.now()
    if project is None:
        project = project_of_session(owner, cwd=data.project, repository=data.repository)
    parent = _parent(owner, data)
    with transaction.atomic():
        session, created = _lock_session(owner, data, now, project=project, parent=parent)
        previous_due = session.distill_due_at
        known, new, replaced, content_hash, total = _plan(session, created, data.turns, mode)
        if replaced:
            _reset(owner, session)
        _insert_turns(owner, session, first=known, turns=new, distilled_at=None if pending else now)
        if new or replaced:
            _advance(session, data, total=total, content_hash=content_hash, now=now,
                     due_at=due_at if pending else None)  # fmt: skip
        if created:
            _adopt_subagents(owner, session)
    return StoreResult(session=session, added=len(new), replaced=replaced, created=created, previous_due=previous_due)


def _clean_turns(owner, data: SessionIn, *, count: bool = True) -> None:
    """Remove private spans (the last guard: every entry point has removed them already), redact secrets from the
    turns and their extras, then drop what the owner asked to forget."""
    from chats.forgetting import scrub

    if count:
        filtered(owner, entry_point_for(data.source_key), lambda private: private.session(data))
    else:
        PrivateFilter().session(data)
    for t, text in zip(data.turns, redact_texts([t.text for t in data.turns]), strict=True):
        t.text = text
        t.extras = [{**e, "text": redact(e.get("text") or "")} for e in t.extras]
    data.title = redact(data.title)
    data.turns = scrub(owner, data.turns)


def _parent(owner, data: SessionIn) -> ChatSession | None:
    if not data.parent_external_id:
        return None
    rows = ChatSession.objects.owned_by(owner).filter(source_key=data.source_key)
    return rows.filter(external_id=data.parent_external_id[:200]).first()


def _adopt_subagents(owner, session: ChatSession) -> None:
    """Subagent sessions stored before the session that spawned them (a subagent finishes before its parent's
    turn ends) are linked to it now."""
    ChatSession.objects.owned_by(owner).filter(
        source_key=session.source_key, parent__isnull=True, external_id__startswith=f"{session.external_id}:agent-"
    ).update(parent=session)


def _lock_session(owner, data: SessionIn, now, *, project=None, parent=None) -> tuple[ChatSession, bool]:
    """The session row, created if new, locked until the transaction ends: concurrent stores of one conversation
    run one after the other, each planning against the turns the previous one stored."""
    session, created = ChatSession.objects.select_for_update().get_or_create(
        owner=owner,
        source_key=data.source_key,
        external_id=data.external_id[:200],
        defaults={
            "agent_id": data.agent_id[:200],
            "title": data.title[:300],
            "project": data.project[:500],
            "agent_project": project,
            "parent": parent,
            "started_at": data.started_at or (data.turns[0].at if data.turns and data.turns[0].at else now),
        },
    )
    if not created and ((project is not None and session.agent_project_id != project.pk) or
                        (parent is not None and session.parent_id != parent.pk)):  # fmt: skip
        session.agent_project = project or session.agent_project
        session.parent = parent or session.parent
        ChatSession.objects.filter(pk=session.pk).update(agent_project=session.agent_project, parent=session.parent)
    return session, created


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
    """Delete a session with its episodes, and what hooks sent of it (else the next hook call would import it
    again)."""
    from chats.models import AgentTranscript

    with transaction.atomic():
        delete_session_episodes(owner, session)
        if session.source_key == ChatSession.Source.CLAUDE_CODE and ":" in session.external_id:
            agent_session = session.external_id.split(":")[1]
            AgentTranscript.objects.filter(owner=owner, agent_session_id=agent_session).delete()
        session.delete()
