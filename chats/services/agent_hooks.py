"""Claude Code hooks: what each event records and what it answers.

Every request carries its data (the hook client read the transcript and the repository on the agent's
machine); nothing here opens a path. ``<private>`` spans are removed from the whole payload before anything
reads it (the transcript's records are cleaned record by record in ``agent_transcripts``). Everything is the
token owner's and scoped to the project the payload names:

- SessionStart: a short block (pinned facts about the owner, this project's lessons, the last session here),
  sent again after ``compact`` and ``clear``, when the context that held it is gone;
- UserPromptSubmit: lessons bearing on the prompt (each once per session) and memories recall selected for it
  above its threshold, within a small token budget; nothing when recall selects nothing;
- PreToolUse: lessons bearing on the call; PostToolUse: the call is recorded (``AgentToolEvent``);
- Stop, SubagentStop, PreCompact, SessionEnd: the new transcript lines are stored (a subagent's as its own
  session, linked to the parent); Stop also shows the user lessons bearing on the agent's last message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from accounts.exceptions import DomainError
from chats.models import AgentProject, HookDelivery, Lesson
from chats.origins import Origin
from chats.privacy import EntryPoint, PrivateFilter, record_removed
from chats.projects import ProjectRef, resolve_project
from chats.services import agent_context, agent_transcripts, tool_events
from chats.text import content_words

MAX_LESSONS = 3
RESEND_SOURCES = ("compact", "clear")  # SessionStart sources after which the earlier context is gone


class HookError(DomainError):
    status_code = 422


HOOK_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "stop": "Stop",
    "subagent-stop": "SubagentStop",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
    "transcript": "",  # the client sending the rest of a transcript (no hook event of Claude Code's)
}


@dataclass
class HookAnswer:
    output: str = ""  # what the client prints (Claude Code's contract for the event)
    transcript_offset: int | None = None  # how far into the transcript file the server now holds


def hook_query(event: str, payload: dict) -> str:
    if event == "user-prompt-submit":
        return str(payload.get("prompt") or "")
    if event == "pre-tool-use":
        tool_input = payload.get("tool_input") or {}
        return f"{payload.get('tool_name') or ''} {json.dumps(tool_input)[:2000]}"
    return str(payload.get("last_assistant_message") or "")


def relevant_lessons(owner, text: str, *, project: AgentProject | None, limit: int = MAX_LESSONS) -> list[Lesson]:
    """Active lessons visible in ``project`` that share content words with ``text``, strongest match first."""
    words = set(content_words(re.sub(r"[_\-/\"{}:,\[\]]", " ", text)))
    if not words:
        return []
    scored = []
    for lesson in Lesson.objects.owned_by(owner).active().exclude(fact_public_id__isnull=True).visible_in(project):
        overlap = len(words & set(content_words(" ".join([lesson.text, *lesson.aliases]))))
        if overlap:
            scored.append((overlap + lesson.strength, lesson))
    return [lesson for _, lesson in sorted(scored, key=lambda x: -x[0])[:limit]]


def _deliver_once(owner, session_key: str, lessons: list[Lesson], *, again: bool = False) -> list[Lesson]:
    """The lessons not yet shown in this agent session (all of them with ``again``), recorded as shown."""
    fresh = []
    for lesson in lessons:
        try:
            with transaction.atomic():
                HookDelivery.objects.create(owner=owner, session_key=session_key[:200], lesson=lesson)
        except IntegrityError:
            if not again:
                continue  # already shown in this agent session
        fresh.append(lesson)
    return fresh


def _context_json(event: str, text: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENTS[event], "additionalContext": text}})


def _lesson_text(lessons: list[Lesson]) -> str:
    return "Lessons from earlier sessions (Almanac):\n" + "\n".join(f"- {x.text}" for x in lessons)


def _session_start(owner, payload: dict, project, session_key: str) -> str:
    again = str(payload.get("source") or "") in RESEND_SOURCES
    lessons = _deliver_once(owner, session_key, agent_context.project_lessons(owner, project), again=again)
    block = agent_context.session_start_block(owner, project=project, session_id=session_key, lessons=lessons)
    return _context_json("session-start", block) if block else ""


def _prompt(owner, payload: dict, project, session_key: str) -> str:
    prompt = str(payload.get("prompt") or "")
    lessons = _deliver_once(owner, session_key, relevant_lessons(owner, prompt, project=project))

    def allow(origin: Origin) -> bool:
        # Never another project's knowledge; never this session (the agent has it in its context already).
        return origin.visible_in(project) and not (origin.session and origin.session.is_agent_session(session_key))

    items = agent_context.recalled(owner, prompt, budget=agent_context.PROMPT_BUDGET, allow=allow)
    parts = [_lesson_text(lessons)] if lessons else []
    if items:
        lines = "\n".join(agent_context.block_lines(owner, items))
        parts.append(f"From the person's memory (Almanac; use only if relevant):\n{lines}")
    return "\n\n".join(parts)


def run_hook(*, owner, event: str, payload: dict, enqueue_import=None) -> HookAnswer:
    """Record what the event carries and answer it (see the module doc). ``enqueue_import(transcript_pk)`` runs
    after commit when new transcript lines were stored (the tasks module passes it; services never import it)."""
    if event not in HOOK_EVENTS:
        raise HookError(f"unknown hook event {event!r}; expected one of {', '.join(HOOK_EVENTS)}")
    piece = agent_transcripts.Piece.from_payload(payload.pop("almanac_transcript", None))
    private = PrivateFilter()
    payload = private.value(payload)
    record_removed(owner=owner, entry_point=EntryPoint.HOOKS, count=private.removed)
    ref = ProjectRef.from_payload(payload)
    project = resolve_project(owner=owner, ref=ref) if not ref.empty else None
    session_key = str(payload.get("session_id") or "")[:200]
    answer = HookAnswer()
    if piece is not None:
        answer.transcript_offset = agent_transcripts.receive(
            owner=owner, session_id=session_key, piece=piece, project=project, enqueue=enqueue_import
        )
    if event == "session-start":
        answer.output = _session_start(owner, payload, project, session_key)
    elif event == "user-prompt-submit":
        answer.output = _prompt(owner, payload, project, session_key)
    elif event == "pre-tool-use":
        lessons = _deliver_once(
            owner, session_key, relevant_lessons(owner, hook_query(event, payload), project=project)
        )
        answer.output = _context_json(event, _lesson_text(lessons)) if lessons else ""
    elif event == "post-tool-use":
        tool_events.record(owner=owner, payload=payload, project=project)
    elif event == "stop" and not payload.get("stop_hook_active"):
        lessons = _deliver_once(
            owner, session_key, relevant_lessons(owner, hook_query(event, payload), project=project)
        )
        answer.output = json.dumps({"systemMessage": _lesson_text(lessons)}) if lessons else ""
    return answer
