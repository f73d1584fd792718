"""The extraction interface: what goes in (a day's conversations) and what comes out (candidates).

Both extractors (deterministic and LLM) take a ``DayInput`` and return an ``ExtractionResult``; every candidate
records the extractor id and version so evidence says which code produced it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime

KINDS = ("identity", "preference", "relationship", "place", "work", "plan", "commitment", "decision", "health", "other")
IMPORTANCE = ("trivial", "low", "normal", "high", "critical")
ATTRIBUTIONS = ("user", "third_party", "unknown")


@dataclass
class UtteranceIn:
    index: int  # position within the day transcript (stable link target: #u-<index>)
    speaker_name: str  # a human name, or the provider label when no name is known
    is_wearer: bool
    text: str  # cleaned and redacted upstream
    started_at: datetime | None = None


@dataclass
class ConversationIn:
    started_at: datetime | None
    utterances: list[UtteranceIn]
    external_id: str = ""
    title: str = ""
    wearer_confidence: float = 1.0  # how sure the transcript pipeline is about which speaker is the wearer


@dataclass
class DayInput:
    wearer_name: str  # display name; its first word is used in display text ("Maya is allergic to cashews")
    conversations: list[ConversationIn]
    source_kind: str = ""
    owner_key: str = ""  # the owner's id: keys the LLM's daily call cap


@dataclass
class Evidence:
    first_index: int
    last_index: int
    quote: str  # the (already redacted) utterance text the claim came from


@dataclass
class Candidate:
    subject: str  # "user", "person:<name>" or "unknown"
    predicate: str  # kind-scoped predicate, e.g. "health:allergic"
    args: list[str]
    content: str  # display text, third person
    kind: str
    importance: str
    extraction_confidence: float
    capture_confidence: float
    attribution: str  # user | third_party | unknown
    person: str = ""  # the third party's name when attribution is third_party
    evidence: Evidence | None = None
    valid_from: datetime | None = None
    flags: list[str] = field(default_factory=list)  # why confidence was lowered (hypothetical, injection, ...)
    extractor: str = ""
    extractor_version: str = ""
    # The most this candidate may become whatever its score: "" (no limit), "pending_review" (plausible but not
    # certain: review at most) or "dropped" (not a claim at all); ceiling_reason says why (shown in review).
    ceiling: str = ""
    ceiling_reason: str = ""
    # Signals for the trust decision that are not the decision themselves (e.g. "llm_confidence": the model's own
    # confidence in a claim it extracted, one feature among others).
    features: dict = field(default_factory=dict)

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    @property
    def proposition_key(self) -> str:
        return proposition_key(self.subject, self.predicate, self.args, self.content)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["valid_from"] = self.valid_from.isoformat() if self.valid_from else None
        data["content_hash"] = self.content_hash
        data["proposition_key"] = self.proposition_key
        return data


@dataclass
class ExtractionResult:
    candidates: list[Candidate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    extractor_version: str = ""


_NORM = re.compile(r"[^a-z0-9 ]+")


def normalize_text(text: str) -> str:
    return " ".join(_NORM.sub(" ", (text or "").lower()).split())


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode()).hexdigest()


def proposition_key(subject: str, predicate: str, args: list[str], content: str) -> str:
    raw = "|".join([subject.lower(), predicate.lower(), normalize_text(" ".join(args)) or normalize_text(content)])
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class Extractor:
    """Interface: ``extract(day) -> ExtractionResult``. ``ID`` and ``VERSION`` go on every candidate's evidence."""

    ID = ""
    VERSION = ""

    def extract(self, day: DayInput) -> ExtractionResult:  # pragma: no cover - interface
        raise NotImplementedError
