"""Background work for chats (django-q2). Thin: take ids, re-load, return quietly if gone, call one service."""

from __future__ import annotations

import time

from django.utils import timezone

from chats.models import ChatSession
from chats.services import distilling

# A debounce shorter than this is waited out in the task; a longer one is handed to the scheduler.
SLEEP_LIMIT_S = 5.0


def enqueue_distill(session_pk: int) -> None:
    """Start the debounce for a session (called after commit by the ingest service)."""
    from django_q.tasks import async_task

    async_task(distill_when_idle, session_pk, task_name=f"chats-distill-{session_pk}", timeout=600)


def distill_when_idle(session_pk: int) -> str | None:
    """Distil a session once it has been idle long enough; newer turns push the time back."""
    for _ in range(100):
        due = ChatSession.objects.filter(pk=session_pk).values_list("distill_due_at", flat=True).first()
        if due is None:
            return None  # gone, already distilled, or claimed by another worker
        wait = (due - timezone.now()).total_seconds()
        if wait <= 0:
            break
        if wait > SLEEP_LIMIT_S:
            from django_q.models import Schedule
            from django_q.tasks import schedule

            schedule("chats.tasks.distill_when_idle", session_pk, schedule_type=Schedule.ONCE, next_run=due,
                     name=f"chats-idle-{session_pk}-{int(due.timestamp())}")  # fmt: skip
            return "rescheduled"
        time.sleep(wait)
    if ChatSession.objects.filter(pk=session_pk, distill_due_at=due).update(distill_due_at=None) != 1:
        return None
    session = ChatSession.objects.select_related("owner").get(pk=session_pk)
    return distilling.distill_session(session=session)


def drain_due() -> int:
    """Sweeper (every minute): sessions due after a restart, retries, and sessions parked for lack of a model."""
    return len(distilling.drain_due())


def sleep_all() -> int:
    """Nightly: decay, merge, consolidate, predictions and the morning report for every person with lessons."""
    from chats.services import sleep

    return sleep.sleep_all()


def enqueue_transcript_import(transcript_pk: int) -> None:
    """Import an agent's transcript in the background (a hook must answer at once)."""
    from django_q.tasks import async_task

    async_task(import_agent_transcript, transcript_pk, task_name=f"chats-transcript-{transcript_pk}", timeout=600)


def import_agent_transcript(transcript_pk: int) -> str | None:
    """Store what hooks sent of a transcript as chat sessions; the idle sweeper distils them."""
    from chats.models import AgentTranscript
    from chats.services.agent_transcripts import import_transcript

    transcript = AgentTranscript.objects.select_related("owner", "agent_project").filter(pk=transcript_pk).first()
    if transcript is None:
        return None
    return import_transcript(transcript=transcript)
