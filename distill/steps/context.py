"""What one memory pass carries from step to step: its inputs, one ``Item`` per candidate, its outputs.

Pure dataclasses (no database): ``distill.services`` fills the inputs it reads from the database, the bench fills
them from labelled files, and each step of ``distill.pipeline`` reads and fills its own fields.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from distill import trust
from distill.conversation import Conversation, Medium
from distill.extraction.base import Candidate, DayInput, ExtractionResult
from distill.inputs import TurnMap


@dataclass
class SiblingTurn:
    """A turn another device heard of the same moment (for the cross-check)."""

    source_kind: str
    text: str
    is_owner: bool
    started_at: datetime | None = None


@dataclass
class ActiveMemory:
    memory_id: str
    subject: str  # "user", "person:<name>", "unknown"
    content: str
    tokens: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        # Tokenised once: a pass compares every candidate with every active memory of the same subject.
        self.tokens = self.tokens or trust.claim_tokens(self.content)


@dataclass
class Item:
    """One candidate on its way through the pass. Each step fills its own fields."""

    candidate: Candidate
    # support: another device heard the same words, an active memory says it, the optional judge's verdict
    corroborating_sources: list[str] = field(default_factory=list)
    supporting_memory_id: str | None = None
    judge_verdict: str | None = None
    # features: what the model reads (its own representation: ``distill.steps.features``)
    view: dict = field(default_factory=dict)
    features: Any = None
    # model: the model's probability and what produced it (``distill.steps.model``)
    prediction: Any = None
    # decision: the probability after the source's trust and the owner's learning, and the decision
    scored: trust.Scored | None = None


class ExtractionStore(Protocol):
    """Where a scope's candidates are kept between passes (``distill.stored_extraction.Store``)."""

    def load(self, day: DayInput) -> ExtractionResult | None: ...

    def keep(self, day: DayInput, result: ExtractionResult) -> None: ...


@dataclass
class WriteTarget:
    """Where the write step puts a pass's decisions: explicit keys, display tags, how evidence reads."""

    owner: Any
    source_key: str
    scope_key: str
    day_key: str
    origin: str
    tags: list[str]
    names: list[str] = field(default_factory=list)  # the owner's names, left out when comparing claims
    source_type: str = ""
    # scored -> EvidenceIn; None: the talk's own (the turn's quote and source reference, from ``turn_map``)
    evidence_for: Callable | None = None
    with_same_day: bool = False  # compare with other sources' memories of the same day too


@dataclass
class PassContext:
    """One pass: set the inputs, run ``distill.pipeline.run``, read ``scored`` (and ``report`` after a write)."""

    policy: trust.Policy
    # --- turns in: either neutral conversations (the turns step builds ``day``) or a ready ``day``
    conversations: list[Conversation] = field(default_factory=list)
    owner_name: str = ""
    owner_key: str = ""  # the owner's id: keys the LLM's daily call cap
    timezone: str = ""
    source_kind: str = ""
    medium: str = Medium.SPEECH  # ``distill.conversation.Medium``: which of the model's lines decide
    day: DayInput | None = None
    turn_map: TurnMap | None = None
    # Turn indices whose speaker is not a person (assistant, system, media): their claims are dropped.
    not_a_person: set[int] = field(default_factory=set)
    # --- what else the pass knows (read from the database by ``distill.services``)
    siblings: list[SiblingTurn] = field(default_factory=list)
    active: list[ActiveMemory] = field(default_factory=list)
    existing_hashes: set[str] = field(default_factory=set)
    existing_today: int = 0
    use_judge: bool = True
    # The owner's learned adjustment (``distill.learning.adjuster``), applied after the model and before deciding.
    adjust: Callable[[trust.Scored], trust.Scored] | None = None
    # Candidates already extracted from this very input; None: the candidates step extracts (or asks ``store``).
    extraction: ExtractionResult | None = None
    store: ExtractionStore | None = None
    model: Any = None  # the gate model to use (None: the shipped one)
    write: WriteTarget | None = None  # None: a pure pass (bench, tests), nothing is written
    report: Any = None  # ``distill.writing.PassReport``, filled by the write step
    # --- produced
    items: list[Item] = field(default_factory=list)
    scored: list[trust.Scored] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    extractor_version: str = ""
    reused_extraction: bool = False
    stopped: bool = False  # a step found nothing to do (mode off, no turns): the later steps do not run

    @property
    def owner(self) -> str:
        """The first word of the owner's name, as memory text says it."""
        day_name = self.day.owner_name if self.day is not None else self.owner_name
        return (day_name or "the user").split()[0]
