"""Distilling a session once, in the background: novelty gate → digest (deterministic or model) → episodes →
memories through ``distill/`` → lessons. Every run ends in one outcome token stored on the session.

Outcome tokens: ``distilled`` (episode written), ``no_signals`` (nothing worth keeping was found),
``skipped:<reason>`` (``low_novelty:<n>chars``, ``llm_unavailable``, ``memory_disabled``, ``extraction_disabled``),
``empty:<reason>``, ``queued`` (waiting for idle time or a retry), ``dead_letter:<attempts>``, ``error:<message>``.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from chats.conversation import to_conversation
from chats.episodes import Digest, digest
from chats.models import ChatSession, ChatTurn
from chats.services import lessons as lesson_services
from chats.services.llm_digest import session_digest
from distill.models import Mode
from distill.services import distill, record_episode
from ledger import llm as ledger_llm

logger = logging.getLogger(__name__)
Status = ChatSession.Status
# How long a sweeper's claim on a session lasts: longer than a task may run (django-q's timeout is 900 s).
CLAIM_LEASE = timedelta(minutes=20)


def idle_seconds() -> float:
    return float(getattr(settings, "ALMANAC_CHATS_IDLE_SECONDS", 60))


def _setting(name: str, default):
    return type(default)(getattr(settings, name, default))


def memory_enabled(owner, source_key: str) -> bool:
    """False when the person switched memory off for this source (distill's gate policy mode "off")."""
    from distill.models import GatePolicy

    # A read, not get_policy(): the hot path must not create policy rows (defaults mean "on").
    mode = GatePolicy.objects.filter(owner=owner, source_key=source_key).values_list("mode", flat=True).first()
    return mode != Mode.OFF


def _finish(session: ChatSession, status: str, outcome: str, *, due=None) -> str:
    ChatSession.objects.filter(pk=session.pk).update(
        status=status, outcome=outcome[:300], distill_due_at=due, attempts=session.attempts,
        episode_id_ref=session.episode_id_ref, updated_at=timezone.now(),
    )  # fmt: skip
    session.status, session.outcome, session.distill_due_at = status, outcome[:300], due
    return outcome


def _write_memories(owner, session: ChatSession, turns) -> int:
    """What the person says about themselves goes through distill/ like any talk; returns memories written."""
    report = distill(
        owner=owner,
        conversations=[to_conversation(owner, session, turns)],
        scope_key=f"chat:{session.public_id}",
        source_key=session.source_key,
    )
    return sum(report.written.values())  # new memories by status (accepted, pending_review)


def _write_episodes(owner, session: ChatSession, d: Digest, turns) -> tuple[str | None, dict[int, str]]:
    """The session's episode and one per moment, through distill (which follows the source's memory mode)."""
    key = f"chat:{session.public_id}"
    started = session.started_at or (turns[0].occurred_at if turns else None)
    common = {"source_key": session.source_key, "source_type": "chat", "started_at": started,
              "ended_at": session.last_turn_at}  # fmt: skip
    ep = record_episode(
        owner=owner, key=key, summary=d.gist, title=d.title, topics=d.topics, entities=d.entities,
        decisions=d.decisions, action_items=d.action_items, salience=0.5,
        source_ref={"session": str(session.public_id), "conversation_id": session.external_id}, **common,
    )  # fmt: skip
    keys: dict[int, str] = {}
    counts: dict[str, int] = {}
    for m in d.moments:
        n = counts[m.kind] = counts.get(m.kind, 0) + 1
        mkey = f"{key}:{m.kind}:{n}"
        record_episode(
            owner=owner, key=mkey, summary=f"{m.kind.title()}: {m.quote}", title=m.lesson[:300],
            topics=[m.kind], salience=0.6,
            source_ref={"session": str(session.public_id), "turn": m.turn_index, "kind": m.kind}, **common,
        )  # fmt: skip
        keys[id(m)] = mkey
    return (str(ep.public_id) if ep is not None else None), keys


def _retry_or_dead_letter(session: ChatSession, exc: Exception) -> str:
    session.attempts += 1
    limit = _setting("ALMANAC_CHATS_MAX_ATTEMPTS", 3)
    if session.attempts >= limit:
        logger.warning("chat session %s dead-lettered after %s attempts: %s", session.pk, session.attempts, exc)
        return _finish(session, Status.DEAD_LETTER, f"dead_letter:{session.attempts}")
    backoff = _setting("ALMANAC_CHATS_RETRY_SECONDS", 30.0) * session.attempts
    return _finish(session, Status.QUEUED, "queued", due=timezone.now() + timedelta(seconds=backoff))


def distill_session(*, session: ChatSession) -> str:
    """Distil the pending signals of ``session`` once; returns (and stores) the outcome token."""
    owner = session.owner
    pending = list(session.turns.pending().values_list("text", flat=True))
    if not pending:
        return session.outcome or _finish(session, Status.NO_SIGNALS, "no_signals")
    if not memory_enabled(owner, session.source_key):
        return _finish(session, Status.SKIPPED, "skipped:memory_disabled")
    novel = sum(len(t.strip()) for t in pending)
    if novel == 0:
        return _finish(session, Status.EMPTY, "empty:blank_turns")
    floor = _setting("ALMANAC_CHATS_MIN_NOVEL_CHARS", 80)
    if novel < floor:
        return _finish(session, Status.SKIPPED, f"skipped:low_novelty:{novel}chars")
    use_llm = getattr(settings, "ALMANAC_CHATS_DISTILLER", "deterministic") == "llm"
    turns = list(session.turns.order_by("index"))
    if not any(t.role in ("user", "person") and t.text.strip() for t in turns):
        # Only agent or tool output: nothing a person said, nothing to remember about them.
        ChatTurn.objects.filter(session=session, distilled_at__isnull=True).update(distilled_at=timezone.now())
        return _finish(session, Status.NO_SIGNALS, "no_signals")
    if ledger_llm.model_work_waits_for_worker():
        # A web request or demo seeding never waits on the model, but the worker asks it: the session goes to the
        # worker (due now) instead of the deterministic path, so an import uses the configured model.
        mark_due(session=session, delay=0)
        return "queued"
    # The model's digest falls back to the deterministic one itself: a model failure never dead-letters a session.
    d = (
        session_digest(turns, title=session.title, project=session.project, owner=owner)
        if use_llm
        else digest(turns, title=session.title, project=session.project)
    )
    try:
        # The memory pass asks the model (extractor, judge), so it runs outside any transaction: a slow model must
        # hold no row lock that a page or the cap counter waits on. It writes in its own transaction and is
        # idempotent per scope, so a retry after a failure below re-scores its memories instead of doubling them.
        _write_memories(owner, session, turns)
        with transaction.atomic():
            episode_id, keys = _write_episodes(owner, session, d, turns)
            session.episode_id_ref = episode_id
            lesson_services.observe(owner=owner, session=session, moments=d.moments, episode_keys=keys)
            ChatTurn.objects.filter(session=session, distilled_at__isnull=True).update(distilled_at=timezone.now())
            if not session.title:
                ChatSession.objects.filter(pk=session.pk).update(title=d.title)
    except DatabaseError as exc:  # the database went away mid-pass (restart, failover): nothing written, retry
        logger.warning("chat session %s lost the database (%s); retrying later", session.pk, type(exc).__name__)
        # Outside a transaction Django keeps a dead connection until told: drop it so the retry mark reconnects.
        connection.close_if_unusable_or_obsolete()
        return _retry_or_dead_letter(session, exc)
    except Exception as exc:  # any failure leaves the signals pending and is reported, never half-written
        logger.exception("distilling chat session %s failed", session.pk)
        return _finish(session, Status.ERROR, f"error:{type(exc).__name__}")
    session.attempts = 0
    return _finish(session, Status.DISTILLED, "distilled")


def mark_due(*, session: ChatSession, delay: float | None = None) -> None:
    due = timezone.now() + timedelta(seconds=idle_seconds() if delay is None else delay)
    ChatSession.objects.filter(pk=session.pk).update(distill_due_at=due, status=Status.QUEUED, outcome="queued")


def drain_due(*, now=None, limit: int = 50) -> list[tuple[int, str]]:
    """Distil every session whose idle/retry time has come, claiming each by a conditional update (R7)."""
    now = now or timezone.now()
    if ledger_llm.llm_configured():
        # A model is available again: sessions parked for lack of one become due.
        ChatSession.objects.filter(outcome="skipped:llm_unavailable", turns__distilled_at__isnull=True).update(
            distill_due_at=now
        )
    done = []
    for pk, due in ChatSession.objects.due(now).values_list("pk", "distill_due_at")[:limit]:
        # Two workers may see the same row: only the one whose update matches the seen due time proceeds. The claim
        # is a lease, not a clear: a worker killed mid-pass leaves the session due again once the lease runs out.
        lease = now + CLAIM_LEASE
        if ChatSession.objects.filter(pk=pk, distill_due_at=due).update(distill_due_at=lease) != 1:
            continue
        session = ChatSession.objects.select_related("owner").get(pk=pk)
        done.append((pk, distill_session(session=session)))
        ChatSession.objects.filter(pk=pk, distill_due_at=lease).update(distill_due_at=None)  # done: release
    return done
