"""Agent transcripts that hook clients send piece by piece, and their import as chat sessions.

The hook client reads the transcript on the agent's machine and sends the complete lines written since the
offset the server last acknowledged (``receive``); the server never opens a path. Each piece is reduced to what
the Claude Code importer reads (long texts cut to the importer's own limits, images dropped), its ``<private>``
spans removed and its secrets masked, and only then written (``TranscriptChunk``, encrypted at rest like turns).
The import (``import_transcript``, run in the background) parses the pieces received so far into sessions:
the main transcript as one session per ``sessionId``, a subagent's as a session linked to its parent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.exceptions import DomainError
from chats.importers import claude_code
from chats.importers.base import FileReport
from chats.models import AgentProject, AgentTranscript, ChatSession, TranscriptChunk
from chats.privacy import EntryPoint, PrivateFilter, record_removed
from chats.services import distilling
from chats.services.store import store_session
from chats.text import redact

MAX_PIECE_BYTES = 8_000_000  # of the agent's file per call (the client sends at most 2 MB)
MAX_LINES = 20_000
MAX_TEXT = 50_000  # a message's text (the ingest API's limit for one turn)
MAX_DETAIL = 4_000  # thinking, tool results, tool input strings: what the importer keeps of them
_TAG = re.compile(r"^[0-9a-f]{12}$")
# Records the importer reads; everything else (file-history snapshots, progress, hook attachments) is dropped.
KINDS = ("user", "assistant", "summary", "ai-title", "queue-operation")
ENVELOPE = ("type", "uuid", "sessionId", "timestamp", "cwd", "isSidechain", "isMeta", "isCompactSummary", "agentId",
            "operation", "summary", "aiTitle", "leafUuid", "origin")  # fmt: skip
# Values under these keys are identifiers (masking them would break the pairing of calls and results).
IDS = frozenset({"type", "uuid", "sessionId", "timestamp", "cwd", "agentId", "operation", "id", "tool_use_id",
                 "name", "role", "model", "leafUuid"})  # fmt: skip


class TranscriptError(DomainError):
    status_code = 422


@dataclass(frozen=True)
class Piece:
    """What one hook call carries of a transcript: bytes [offset, end) of the agent's file, as lines."""

    offset: int
    end: int
    lines: list[str]
    agent_id: str = ""
    file_tag: str = ""

    @classmethod
    def from_payload(cls, raw) -> Piece | None:
        """The client's ``almanac_transcript`` object, checked; None when the call carries none."""
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise TranscriptError("almanac_transcript must be an object")
        offset, end, lines = raw.get("offset"), raw.get("end"), raw.get("lines")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (offset, end)) or not 0 <= offset <= end:
            raise TranscriptError("almanac_transcript: offset and end must be integers with 0 <= offset <= end")
        if end - offset > MAX_PIECE_BYTES:
            raise TranscriptError(f"almanac_transcript: at most {MAX_PIECE_BYTES} bytes per call")
        if not isinstance(lines, list) or len(lines) > MAX_LINES or not all(isinstance(x, str) for x in lines):
            raise TranscriptError(f"almanac_transcript.lines must be a list of at most {MAX_LINES} strings")
        tag = raw.get("file_tag") or ""
        agent_id = raw.get("agent_id") or ""
        if not isinstance(tag, str) or (tag and not _TAG.match(tag)):
            raise TranscriptError("almanac_transcript.file_tag must be 12 hexadecimal characters")
        if not isinstance(agent_id, str) or len(agent_id) > 200:
            raise TranscriptError("almanac_transcript.agent_id must be a string of at most 200 characters")
        return cls(offset, end, lines, agent_id, tag)


# --- Reducing a record to what the importer reads ------------------------------------------------------------
def _cut(text, limit: int) -> str:
    text = text if isinstance(text, str) else ""
    return text if len(text) <= limit else text[:limit]


def cut_strings(value, limit: int = MAX_DETAIL):
    if isinstance(value, str):
        return _cut(value, limit)
    if isinstance(value, dict):
        return {k: cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cut_strings(v, limit) for v in value[:200]]
    return value


def _result_text(content) -> str:
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return content if isinstance(content, str) else ""


def _block(block: dict) -> dict | None:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": _cut(block.get("text"), MAX_TEXT)}
    if kind == "thinking":
        return {"type": "thinking", "thinking": _cut(block.get("thinking"), MAX_DETAIL)}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.get("id"), "name": block.get("name"),
                "input": cut_strings(block.get("input") if isinstance(block.get("input"), dict) else {})}  # fmt: skip
    if kind == "tool_result":
        return {"type": "tool_result", "tool_use_id": block.get("tool_use_id"), "is_error": bool(block.get("is_error")),
                "content": _cut(_result_text(block.get("content")), MAX_DETAIL)}  # fmt: skip
    if kind == "image":
        return {"type": "image"}
    return None


def compact(record: dict) -> dict | None:
    """The fields of one transcript record that the importer reads (None: a record it never reads)."""
    if record.get("type") not in KINDS:
        return None
    out = {k: record[k] for k in ENVELOPE if k in record}
    if isinstance(record.get("content"), str):
        out["content"] = _cut(record["content"], MAX_TEXT)  # a queued prompt
    message = record.get("message")
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, list):
            content = [b for b in (_block(x) for x in content if isinstance(x, dict)) if b is not None]
        else:
            content = _cut(content, MAX_TEXT)
        out["message"] = {k: message[k] for k in ("id", "role", "model") if k in message} | {"content": content}
    result = record.get("toolUseResult")
    if isinstance(result, dict):
        out["toolUseResult"] = {k: result[k] for k in ("interrupted", "agentId") if k in result}
    return out


def mask_secrets(value, key: str = ""):
    """Secrets masked in every free-text string; identifiers kept as they are."""
    if isinstance(value, str):
        return value if key in IDS else redact(value)
    if isinstance(value, dict):
        return {k: mask_secrets(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v, key) for v in value]
    return value


def clean_lines(lines: list[str], private: PrivateFilter) -> list[str]:
    """The lines as stored: reduced, private spans removed, secrets masked. Unreadable lines are dropped."""
    out = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        reduced = compact(record)
        if reduced is not None:
            out.append(json.dumps(mask_secrets(private.value(reduced)), ensure_ascii=False))
    return out


# --- Receiving -----------------------------------------------------------------------------------------------
def receive(*, owner, session_id: str, piece: Piece, project: AgentProject | None, enqueue=None) -> int:
    """Store ``piece`` of the owner's transcript of ``session_id`` (a subagent's when ``piece.agent_id``) and
    return the byte offset the server now holds, which the client sends from next time. A piece that does not
    start there (a retry, or a client that lost its state) stores nothing and gets that offset back.
    ``enqueue(transcript_pk)`` runs after commit when something new was stored."""
    session_id = (session_id or "").strip()[:200]
    if not session_id:
        raise TranscriptError("session_id is required to send a transcript")
    private = PrivateFilter()
    lines = clean_lines(piece.lines, private)  # before the row lock: the slow part holds no lock
    with transaction.atomic():
        transcript, _ = AgentTranscript.objects.select_for_update().get_or_create(
            owner=owner, agent_session_id=session_id, agent_id=piece.agent_id[:200],
            defaults={"file_tag": piece.file_tag, "agent_project": project},
        )  # fmt: skip
        if piece.offset != transcript.received_bytes or piece.end <= piece.offset:
            return transcript.received_bytes
        TranscriptChunk.objects.create(owner=owner, transcript=transcript, start=piece.offset, end=piece.end,
                                       records="\n".join(lines))  # fmt: skip
        transcript.received_bytes = piece.end
        transcript.file_tag = transcript.file_tag or piece.file_tag
        transcript.agent_project = transcript.agent_project or project
        transcript.save(update_fields=["received_bytes", "file_tag", "agent_project", "updated_at"])
        record_removed(owner=owner, entry_point=EntryPoint.HOOKS, count=private.removed)
        if enqueue is not None:
            pk = transcript.pk
            transaction.on_commit(lambda: enqueue(pk))
    return piece.end


# --- Importing -----------------------------------------------------------------------------------------------
def records_of(transcript: AgentTranscript) -> list[dict]:
    out = []
    for chunk in transcript.chunks.order_by("start"):
        out += [json.loads(line) for line in chunk.records.splitlines() if line.strip()]
    return out


def import_transcript(*, transcript: AgentTranscript) -> str:
    """Parse what was received of ``transcript`` and store it as chat sessions (distilled later by the idle
    sweeper); returns an outcome word. Re-importing the same pieces adds nothing."""
    if transcript.imported_bytes >= transcript.received_bytes:
        return "unchanged"
    received = transcript.received_bytes
    records = records_of(transcript)
    report = FileReport()
    if transcript.agent_id:
        sessions = claude_code.parse_subagent(records, report, agent_id=transcript.agent_id)
    else:
        sessions = claude_code.parse_records(records, report, default_id=transcript.agent_session_id)
    tag = transcript.file_tag or "hook"
    added = 0
    for data in sessions:
        data.external_id = f"{tag}:{data.external_id}"[:200]
        if data.parent_external_id:
            data.parent_external_id = f"{tag}:{data.parent_external_id}"[:200]
        due = timezone.now() + timedelta(seconds=distilling.idle_seconds())
        stored = store_session(owner=transcript.owner, data=data, due_at=due, project=transcript.agent_project)
        added += stored.added
    AgentTranscript.objects.filter(pk=transcript.pk).update(imported_bytes=received)
    if not transcript.agent_id:
        from chats.services.tool_events import forget_imported

        forget_imported(owner=transcript.owner, session_id=transcript.agent_session_id)
    return f"stored {len(sessions)} session(s), {added} new turn(s)"


def session_for(owner, *, session_id: str, file_tag: str = "") -> ChatSession | None:
    """The chat session stored for an agent's session id (by hooks or by the file importer)."""
    rows = ChatSession.objects.owned_by(owner).filter(source_key=ChatSession.Source.CLAUDE_CODE)
    if file_tag:
        found = rows.filter(external_id=f"{file_tag}:{session_id}").first()
        if found is not None:
            return found
    return rows.filter(external_id__endswith=f":{session_id}").order_by("-last_turn_at").first()
