"""The memory pass as an explicit, ordered list of pure steps (no database): ``distill.services`` feeds it
neutral conversations and writes its decisions to the ledger; the bench feeds it labeled days.

    extract → cross-check with sibling devices → support from active memories → judge → score → decide → gates
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from distill import trust, turn_reader
from distill.extraction.base import Candidate, DayInput, ExtractionResult
from distill.extraction.llm import extract_day
from distill.judge import judge as run_judge
from distill.models import Mode

SIBLING_WINDOW = timedelta(seconds=150)
MODE_OFF_WARNING = "memory mode off: the talk is kept, no memories are made"
DISAGREEMENT_CAPTURE = 0.35


@dataclass
class SiblingTurn:
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
class PassInput:
    day: DayInput
    policy: trust.Policy
    siblings: list[SiblingTurn] = field(default_factory=list)
    active: list[ActiveMemory] = field(default_factory=list)
    existing_hashes: set[str] = field(default_factory=set)
    existing_today: int = 0
    use_judge: bool = True
    # Turn indices whose speaker is not a person (assistant, system, media): their claims are dropped.
    not_a_person: set[int] = field(default_factory=set)
    # The owner's learned adjustment (``distill.learning.adjuster``), applied after score and before decide.
    adjust: Callable[[trust.Scored], trust.Scored] | None = None
    # Candidates already extracted from this very input (``distill.stored_extraction``); None: extract now.
    extraction: ExtractionResult | None = None


@dataclass
class PassOutput:
    scored: list[trust.Scored] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    extractor_version: str = ""


def _subject_words(cand: Candidate, owner: str) -> set[str]:
    words = {owner.lower()}
    if cand.person:
        words |= {w.lower() for w in cand.person.split()}
    return words


def cross_check(cand: Candidate, utt_time: datetime | None, utt_is_owner: bool, siblings, owner: str):
    """Compare a candidate with what other devices heard around the same moment.

    Returns (corroborating source kinds, disagreement flag or ""). A sibling that heard the same speech
    (most of the quote's words) but not the claim's words, or gave it to a different speaker, makes the claim
    doubtful: mis-hearing or a diarization slip on one device.
    """
    drop = {trust._stem(w) for w in _subject_words(cand, owner)}
    agreeing: set[str] = set()
    disagreement = ""
    by_source: dict[str, list[SiblingTurn]] = {}
    for sib in siblings:
        if utt_time is not None and sib.started_at is not None and abs(sib.started_at - utt_time) > SIBLING_WINDOW:
            continue
        by_source.setdefault(sib.source_kind, []).append(sib)
    quote = cand.evidence.quote if cand.evidence else cand.content
    for kind, utts in by_source.items():
        window = " ".join(u.text for u in utts)
        claim_cov = trust.coverage(cand.content, window, drop=drop)
        quote_cov = trust.coverage(quote, window)
        if claim_cov >= 0.999:
            best = max(utts, key=lambda u: trust.coverage(cand.content, u.text, drop=drop))
            if (
                cand.attribution != "unknown"
                and best.is_owner != utt_is_owner
                and trust.coverage(quote, best.text) >= 0.5
            ):
                disagreement = f"{kind} gives these words to another speaker"
            else:
                agreeing.add(kind)
        elif quote_cov >= 0.6 and claim_cov < 0.999:
            disagreement = f"{kind} heard this differently"
    return sorted(agreeing), disagreement


def find_support(cand: Candidate, active: list[ActiveMemory], owner: str) -> str | None:
    drop = {trust._stem(w) for w in _subject_words(cand, owner)}
    mine = trust.claim_tokens(cand.content, drop=drop)
    if not mine:
        return None
    for mem in active:
        if mem.subject != cand.subject:
            continue
        if len(mine & mem.tokens) / len(mine) >= 0.8 and trust.content_hash_differs(cand, mem):
            return mem.memory_id
    return None


def run(inp: PassInput) -> PassOutput:
    day = inp.day
    out = PassOutput()
    if inp.policy.mode == Mode.OFF:
        out.warnings.append(MODE_OFF_WARNING)
        return out
    extraction = inp.extraction if inp.extraction is not None else extract_day(day)
    if inp.extraction is None:  # kept candidates carry their turn logits already
        turn_reader.annotate(day, extraction.candidates)
    out.warnings += extraction.warnings
    out.extractor, out.extractor_version = extraction.extractor, extraction.extractor_version
    owner = (day.owner_name or "the user").split()[0]
    utt_by_index = {u.index: u for conv in day.conversations for u in conv.turns}

    checks = []
    for cand in extraction.candidates:
        if cand.evidence and cand.evidence.first_index in inp.not_a_person:
            continue  # assistant / system / media text is context, never a belief about anyone
        utt = utt_by_index.get(cand.evidence.first_index) if cand.evidence else None
        agreeing, disagreement = cross_check(
            cand, utt.started_at if utt else None, bool(utt and utt.is_owner), inp.siblings, owner
        )
        if disagreement:
            cand.capture_confidence = min(cand.capture_confidence, DISAGREEMENT_CAPTURE)
            cand.flags.append(disagreement)
        checks.append((cand, agreeing, find_support(cand, inp.active, owner)))

    verdicts: dict[str, str | None] = {}
    if inp.use_judge and inp.policy.mode == Mode.SMART:
        verdicts, judge_warnings = run_judge([c for c, _, _ in checks], owner_key=day.owner_key)
        out.warnings += judge_warnings
    for cand, agreeing, support in checks:
        scored = trust.score(
            cand,
            source_trust=inp.policy.source_trust,
            judge_verdict=verdicts.get(cand.proposition_key),
            corroborating_sources=agreeing,
            supporting_memory_id=support,
        )
        if inp.adjust is not None:
            scored = inp.adjust(scored)
        out.scored.append(trust.decide(scored, inp.policy))
    trust.apply_gates(out.scored, inp.policy, existing_hashes=inp.existing_hashes, existing_today=inp.existing_today)
    out.warnings = list(dict.fromkeys(out.warnings))
    return out
