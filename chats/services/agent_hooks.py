"""Claude Code hooks: the lessons that bear on a prompt, a tool call or a hand-back, each at most once per
agent session; and lessons written into a project's memory folder (one file per lesson + a managed section
of MEMORY.md). A lesson file the person deleted is remembered in a manifest and not written again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.db import IntegrityError, transaction

from accounts.exceptions import DomainError
from chats.models import HookDelivery, Lesson
from chats.text import content_words

START = "<!-- almanac:lessons:start -->"
END = "<!-- almanac:lessons:end -->"
MANIFEST = ".almanac-lessons.json"
MAX_LESSONS = 3


class HookError(DomainError):
    status_code = 422


HOOK_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "stop": "Stop",
    "pre-compact": "PreCompact",
    "session-end": "SessionEnd",
}
# Events after which the transcript on disk holds new turns worth storing (distilled later by the sweeper).
TRANSCRIPT_EVENTS = ("stop", "pre-compact", "session-end")


def _last_assistant_text(transcript_path: str) -> str:
    try:
        lines = Path(transcript_path).read_text(encoding="utf-8", errors="replace").splitlines()[-200:]
    except (OSError, TypeError):
        return ""
    for line in reversed(lines):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("type") == "assistant":
            content = (rec.get("message") or {}).get("content") or []
            text = " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
            if text.strip():
                return text
    return ""


def hook_query(event: str, payload: dict) -> str:
    if event == "user-prompt-submit":
        return str(payload.get("prompt") or "")
    if event == "pre-tool-use":
        tool_input = payload.get("tool_input") or {}
        return f"{payload.get('tool_name') or ''} {json.dumps(tool_input)[:2000]}"
    return str(payload.get("last_assistant_message") or "") or _last_assistant_text(_transcript(payload))


def relevant_lessons(owner, text: str, *, project: str = "", limit: int = MAX_LESSONS) -> list[Lesson]:
    """Active lessons sharing content words with ``text``; lessons of another project need a stronger match."""
    words = set(content_words(re.sub(r"[_\-/\"{}:,\[\]]", " ", text)))
    if not words:
        return []
    scored = []
    for lesson in Lesson.objects.owned_by(owner).active().exclude(fact_public_id__isnull=True):
        lw = set(content_words(" ".join([lesson.text, *lesson.aliases])))
        overlap = len(words & lw)
        same_place = not lesson.project or not project or lesson.project == project
        if overlap >= (1 if same_place else 2):
            scored.append((overlap + lesson.strength, lesson))
    return [lesson for _, lesson in sorted(scored, key=lambda x: -x[0])[:limit]]


def _deliver_once(owner, session_key: str, lessons: list[Lesson]) -> list[Lesson]:
    fresh = []
    for lesson in lessons:
        try:
            with transaction.atomic():
                HookDelivery.objects.create(owner=owner, session_key=session_key[:200], lesson=lesson)
        except IntegrityError:
            continue  # already shown in this agent session
        fresh.append(lesson)
    return fresh


def _transcript(payload: dict) -> str:
    """The transcript path of the payload when it names a readable Claude Code session file, else ""."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path.endswith(".jsonl"):
        return ""
    p = Path(path).expanduser()
    return str(p) if p.is_file() else ""


def _project_lessons(owner, project: str, limit: int = MAX_LESSONS) -> list[Lesson]:
    rows = Lesson.objects.owned_by(owner).active().exclude(fact_public_id__isnull=True)
    return [x for x in rows if not x.project or not project or x.project == project][:limit]


def run_hook(*, owner, event: str, payload: dict, memory_dir: str | None = None, enqueue_import=None) -> str:
    """What the hook prints (Claude Code's contract): plain text for UserPromptSubmit (added to the context),
    hook JSON with ``additionalContext`` for SessionStart and PreToolUse, a ``systemMessage`` for Stop, nothing
    for PreCompact and SessionEnd. ``enqueue_import(owner_id, path)`` stores the transcript in the background at
    Stop, PreCompact and SessionEnd."""
    if event not in HOOK_EVENTS:
        raise HookError(f"unknown hook event {event!r}; expected one of {', '.join(HOOK_EVENTS)}")
    project = str(payload.get("cwd") or "")
    transcript = _transcript(payload)
    if event in TRANSCRIPT_EVENTS and transcript and enqueue_import is not None:
        enqueue_import(owner.pk, transcript)
    if event == "stop" and not payload.get("stop_hook_active"):
        folder = memory_dir or _default_memory_dir(payload)
        if folder:
            write_memory_folder(owner=owner, folder=folder, project=project)
    if event in ("pre-compact", "session-end"):
        return ""
    found = (
        _project_lessons(owner, project)
        if event == "session-start"
        else relevant_lessons(owner, hook_query(event, payload), project=project)
    )
    lessons = _deliver_once(owner, str(payload.get("session_id") or "default"), found)
    if not lessons:
        return ""
    lines = "\n".join(f"- {x.text}" for x in lessons)
    text = f"Lessons from earlier sessions (Almanac):\n{lines}"
    if event == "user-prompt-submit":
        return text
    if event in ("pre-tool-use", "session-start"):
        return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENTS[event], "additionalContext": text}})
    return json.dumps({"systemMessage": text})


def _default_memory_dir(payload: dict) -> str:
    path = _transcript(payload)
    return str(Path(path).parent / "memory") if path else ""


def _slug(text: str) -> str:
    return "-".join(content_words(text)[:6])[:60] or "lesson"


def write_memory_folder(*, owner, folder: str | Path, project: str = "") -> list[str]:
    """Write one file per active lesson and the managed MEMORY.md section; returns the files written."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    manifest_path = root / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    written, entries = [], []
    lessons = Lesson.objects.owned_by(owner).active().exclude(fact_public_id__isnull=True)
    for lesson in lessons:
        if lesson.project and project and lesson.project != project:
            continue
        lid = str(lesson.public_id)
        name = manifest.get(lid, {}).get("file") or f"lesson-{_slug(lesson.text)}-{lid[:8]}.md"
        path = root / name
        if manifest.get(lid, {}).get("deleted") or (lid in manifest and not path.exists()):
            manifest[lid] = {"file": name, "deleted": True}  # the person deleted it: never write it again
            continue
        body = f"---\nname: {lesson.text[:80]}\ntype: feedback\nstrength: {lesson.strength:.2f}\n---\n\n{lesson.text}\n"
        if lesson.aliases:
            body += "\nAlso seen as:\n" + "".join(f"- {a}\n" for a in lesson.aliases)
        if not path.exists() or path.read_text() != body:
            path.write_text(body)
            written.append(name)
        manifest[lid] = {"file": name}
        entries.append(f"- [{lesson.text[:100]}]({name})")
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    _write_index(root / "MEMORY.md", entries)
    return written


def _write_index(path: Path, entries: list[str]) -> None:
    section = "\n".join([START, "## Lessons (managed by Almanac; edits here are replaced)", *entries, END])
    text = path.read_text() if path.exists() else ""
    if START in text and END in text:
        head, rest = text.split(START, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = (text.rstrip() + "\n\n" if text.strip() else "") + section + "\n"
    path.write_text(text)
