"""The neutral input of the trust gate: a conversation of turns by speakers. Pure dataclasses, no database.

Sources (wearables, chats, screen, agents) build these from their own rows; ``distill`` never reads a source's
tables. ``Turn.ref`` and ``Conversation.source_ref`` are copied into every evidence row's ``source_ref`` so a
memory links back to the exact moment it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


class Role:
    """Who produced a turn. Only a ``person``'s words can be beliefs about someone; assistant, system and media
    text is context, never a memory."""

    PERSON = "person"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    UNKNOWN = "unknown"
    VALUES = (PERSON, ASSISTANT, SYSTEM, UNKNOWN)
    SPEAKS_FOR_SOMEONE = (PERSON, UNKNOWN)


class Medium:
    """How the words reached the source. The gate's lines are chosen per medium: speech written down by a
    recogniser carries mis-hearings and speakers a device guessed, typed text neither, and the labelled data show
    the two need different lines (``distill.gate_model.GateModel.for_medium``). Unknown: speech's, the stricter."""

    SPEECH = "speech"  # spoken talk a recogniser wrote down: a recorder's day, a call's audio
    TEXT = "text"  # typed: a chat with an assistant, a message thread
    VALUES = (SPEECH, TEXT)


@dataclass(frozen=True)
class Speaker:
    name: str  # display name, e.g. "Ragna Solheim", "assistant"
    is_owner: bool = False
    owner_confidence: float = 1.0  # how sure the source is that is_owner is right
    role: str = Role.PERSON


@dataclass
class Turn:
    index: int
    speaker: Speaker
    text: str
    at: datetime | None = None
    ref: dict = field(default_factory=dict)  # merged into the evidence source_ref (e.g. the source's line index, url)


@dataclass
class Conversation:
    source_key: str  # gate-policy key and ledger source label: "wearable:limitless", "chat:claude-code", "agent:mcp"
    source_type: str  # the evidence source_type, in the source's own word ("chat", "screen_event", "agent", …)
    scope_key: str  # the unit one pass re-runs idempotently: "wearable:limitless:2026-06-08", "chat:<id>"
    day_key: str  # owner-local ISO date, for "same day" corroboration and daily caps
    turns: list[Turn]
    external_id: str = ""
    title: str = ""
    started_at: datetime | None = None
    source_ref: dict = field(default_factory=dict)  # base pointer copied into every evidence row (ids, url)
    medium: str = Medium.SPEECH  # ``Medium``: typed text or transcribed speech (the gate's lines differ)


def medium_of(conversations: list[Conversation]) -> str:
    """The medium of one pass: typed text only when every conversation is typed, else speech's (stricter) lines."""
    typed = bool(conversations) and all(c.medium == Medium.TEXT for c in conversations)
    return Medium.TEXT if typed else Medium.SPEECH


@dataclass
class Sighting:
    """What another capture of the same moment heard (for cross-checking a claim): one turn of another source."""

    source: str  # short label shown as "corroborated by <source>", e.g. "omi"
    text: str
    is_owner: bool
    at: datetime | None = None


@dataclass
class NativeMemory:
    """A provider's own summarised memory (Bee facts, Omi memories, ChatGPT memory export)."""

    text: str
    external_id: str = ""
    at: datetime | None = None
    day_key: str = ""
