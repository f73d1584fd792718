"""Pure text helpers for chats (no database): ids, redaction, hashing, sentences, content words."""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from ledger.lexicon import STOPWORDS
from ledger.recall.lexical import redact_for_display
from ledger.redaction import redact_turns

# Lesson keys (``normalise_key``) are stored, so this list keeps saying what it said when they were made: the
# shared function words plus the filler of coding-assistant chats ("please", "file", "run"), without the few
# reflexives and modals it never had (only words of 3+ letters without an apostrophe reach it, see _WORD).
_CHAT_FILLER = frozenset(
    """ok okay yes sure please thanks thank maybe well right still now let lets need want know think going see look
    try make done add run use used using work file files one two new way thing things something anything
    everything""".split()
)
_NEVER_DROPPED = frozenset(
    "cannot herself himself may might must myself ought ourselves shall theirs themselves yourself yourselves".split()
)
CHAT_STOPWORDS = (STOPWORDS - _NEVER_DROPPED) | _CHAT_FILLER


def canonical_agent_id(value: str) -> str:
    """UUID agent ids in any spelling (braces, upper case, no hyphens, urn:uuid:) become one canonical form."""
    raw = (value or "").strip()
    candidate = raw.lower().removeprefix("urn:uuid:").strip("{}")
    try:
        return str(uuid.UUID(candidate))
    except ValueError:
        return raw


REDACT_PIECE = 2000
_BREAK = re.compile(r"\s")


def _pieces(text: str):
    """``text`` in pieces of at most REDACT_PIECE characters, cut at whitespace where there is some."""
    start = 0
    while start < len(text):
        end = min(len(text), start + REDACT_PIECE)
        if end < len(text):
            cut = max((m.start() for m in _BREAK.finditer(text, start + REDACT_PIECE // 2, end)), default=-1)
            end = cut + 1 if cut > start else end
        yield text[start:end]
        start = end


def redact(text: str) -> str:
    """One text on its own (a title, a pasted block): see ``redact_texts``."""
    return redact_texts([text])[0]


def redact_texts(texts: list[str]) -> list[str]:
    """The turns of one conversation, in order, before anything reaches disk: secrets by structure (codes, PINs,
    cards, account, routing and ID numbers, passwords, read back or not: ``ledger.redaction``), then e-mail
    addresses, phone numbers and key-like strings. The display masking runs piece by piece on long text: its
    patterns cost time that grows faster than the text on long runs without spaces (a 40,000-character token
    took 4.6 s in one pass, under 0.1 s in pieces)."""
    return [_mask(t) for t in redact_turns([t or "" for t in texts])]


def _mask(text: str) -> str:
    if len(text) <= REDACT_PIECE:
        return redact_for_display(text)
    return "".join(redact_for_display(p) for p in _pieces(text))


def chain_hash(previous: str, role: str, text: str) -> str:
    """Rolling hash over a conversation's turns: equal prefixes have equal hashes (cheap idempotence check)."""
    return hashlib.sha256(f"{previous}\x1f{role}\x1f{text}".encode()).hexdigest()


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


def first_sentence(text: str, limit: int = 160) -> str:
    parts = sentences(text)
    s = parts[0] if parts else (text or "").strip()
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-]{2,}")


def content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "") if w.lower() not in CHAT_STOPWORDS]


def normalise_key(text: str) -> str:
    """Order-free key of a lesson's content words (same words in another order = same lesson)."""
    words = sorted(set(content_words(text)))
    return hashlib.sha256(" ".join(words).encode()).hexdigest()


def jaccard(a: str, b: str) -> float:
    sa, sb = set(content_words(a)), set(content_words(b))
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


@dataclass
class TurnIn:
    """One message as an importer or the ingest API hands it over (before redaction)."""

    role: str  # ChatTurn.Role value
    text: str
    speaker: str = ""
    is_owner: bool = False
    at: datetime | None = None
    tool_calls: list[dict] = field(default_factory=list)
    # Parts of the message that are not this speaker's own words: [{kind, text}] with kind pasted, quoted,
    # ide_context, system_reminder, command, command_output, interrupt, thinking, image, injected, queued.
    extras: list[dict] = field(default_factory=list)


@dataclass
class SessionIn:
    """One conversation from any source."""

    source_key: str
    external_id: str
    turns: list[TurnIn]
    title: str = ""
    project: str = ""
    agent_id: str = ""
    started_at: datetime | None = None
