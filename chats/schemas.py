"""JSON shapes of the chats API (ingest, conversation import, sessions, lessons)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from ninja import Schema
from pydantic import Field

from accounts.schemas import (
    ErrorOut,  # noqa: F401  (the one error body, re-exported for chats.api)
    IsoDateTime,
)

MAX_TEXT = 100_000
MAX_TURN = 50_000  # one ingested message; a 100,000-character "turn" is a pasted file, refused with 422


class TurnPairIn(Schema):
    user: str | None = Field(default=None, max_length=MAX_TURN)
    assistant: str | None = Field(default=None, max_length=MAX_TURN)


class IngestIn(Schema):
    agent_id: str = Field(default="", max_length=200)
    conversation_id: str = Field(min_length=1, max_length=200)
    turns: list[TurnPairIn] = Field(default_factory=list, max_length=5000)
    session_date: IsoDateTime | None = None
    skip_extraction: bool = False
    flush: bool = False
    mode: Literal["auto", "append"] = Field(
        default="auto",
        description="auto: `turns` is the whole conversation so far (a longer version appends, a different one "
        "replaces the stored turns and episode); append: `turns` are only the new pairs, added after the stored "
        "ones (never replacing; re-sending the same pairs adds nothing).",
    )


class FlushIn(Schema):
    conversation_id: str = Field(min_length=1, max_length=200)


class IngestOut(Schema):
    outcome: str
    conversation_id: str
    agent_id: str
    session_id: str | None = None
    episode_id: str | None = None
    turns_added: int
    turns_total: int
    replaced: bool = False
    private_removed: int = 0  # <private> spans removed from this call before anything was stored


class ParticipantIn(Schema):
    name: str = Field(min_length=1, max_length=200)
    is_owner: bool = False


class ConversationTurnIn(Schema):
    speaker: str = Field(min_length=1, max_length=200)
    text: str = Field(max_length=MAX_TEXT)
    at: IsoDateTime | None = None


class ConversationIn(Schema):
    external_id: str = Field(min_length=1, max_length=200)
    title: str = Field(default="", max_length=300)
    started_at: IsoDateTime
    participants: list[ParticipantIn] = Field(min_length=1, max_length=50)
    turns: list[ConversationTurnIn] = Field(default_factory=list, max_length=20000)


class ChatConversationOut(Schema):
    external_id: str
    session_id: str
    outcome: str
    episode_id: str | None = None
    turns_added: int
    turns_total: int
    private_removed: int = 0


class ConversationsOut(Schema):
    conversations: list[ChatConversationOut]


class SessionOut(Schema):
    id: str
    source: str
    external_id: str
    title: str
    project: str
    project_name: str = ""
    status: str
    outcome: str
    started_at: datetime | None
    turns: int
    parent_id: str | None = None  # a subagent's session: the session that spawned it


class LessonOut(Schema):
    id: str
    kind: str
    text: str
    strength: float
    status: str
    seen_count: int
    aliases: list[str]
    project: str
    project_name: str = ""
    history: list[dict]


class HookProjectIn(Schema):
    """Where the agent works, as the hook client found it on the agent's machine."""

    root: str = Field(default="", max_length=1000)
    repository: str = Field(default="", max_length=1000)


class HookTranscriptIn(Schema):
    """New lines of the agent's transcript: bytes [offset, end) of its file, read by the hook client."""

    offset: int = Field(ge=0)
    end: int = Field(ge=0)
    lines: list[str] = Field(default_factory=list, max_length=20000)
    agent_id: str = Field(default="", max_length=200)  # a subagent's transcript
    file_tag: str = Field(default="", max_length=12, pattern=r"^([0-9a-f]{12})?$")


class HookIn(Schema):
    """A Claude Code hook payload (the documented fields; others are accepted and ignored) and what the hook
    client adds. Paths in it (``transcript_path``, ``agent_transcript_path``) are never opened."""

    model_config = {"extra": "allow"}

    session_id: str = Field(default="", max_length=200)
    cwd: str = Field(default="", max_length=4000)
    hook_event_name: str = Field(default="", max_length=50)
    source: str = Field(default="", max_length=50)  # SessionStart: startup | resume | clear | compact
    prompt: str = Field(default="", max_length=MAX_TEXT)
    tool_name: str = Field(default="", max_length=200)
    tool_input: dict = Field(default_factory=dict)
    tool_use_id: str = Field(default="", max_length=200)
    tool_response: dict | list | str | None = None  # PostToolUse
    error: str = Field(default="", max_length=MAX_TEXT)  # PostToolUseFailure
    agent_id: str = Field(default="", max_length=200)
    agent_type: str = Field(default="", max_length=200)
    stop_hook_active: bool = False
    last_assistant_message: str = Field(default="", max_length=MAX_TEXT)
    almanac_project: HookProjectIn | None = None
    almanac_transcript: HookTranscriptIn | None = None


class HookOut(Schema):
    output: str  # what the hook prints on stdout ("" for nothing)
    transcript_offset: int | None = None  # how far into the transcript file the server holds (the client resumes)
