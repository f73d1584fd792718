"""The gate's shared vocabulary: the source policy a pass decides under, a scored candidate, the decisions (ledger
statuses), and the claim tokens the cross-check, the queue and supersession compare claims by. Pure: no
database, no network.

The pass that produces and decides scored candidates is ``distill.pipeline`` (its decision rules:
``distill.steps.decision``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from distill.extraction.base import Candidate
from distill.models import Mode
from ledger.choices import Status
from ledger.lexicon import STOPWORDS, claim_stem

DEFAULT_SOURCE_TRUST = 0.8  # neutral: the model was trained at it
DEFAULT_AUTO_APPROVE = 0.7  # GatePolicy defaults: left as they are, the model's calibrated lines apply
DEFAULT_REVIEW = 0.45
CORROBORATION_COVERAGE = 0.6  # share of the claim's tokens the other capture must contain
LOW_CAPTURE = 0.5  # below this the text itself is doubtful: review at best

# The gate's decisions are ledger statuses (one definition: ledger.choices.Status).
ACCEPTED = Status.ACCEPTED
PENDING = Status.PENDING_REVIEW
DROPPED = Status.DROPPED
REJECTED = Status.REJECTED

# Claim tokens keep the function words that change what a claim says (negations, quantifiers such as "all",
# "only", "more", and time and place words such as "before", "until", "under"), so the gate drops only this
# subset of the shared list, plus speech filler. A longer list would change coverage and so the gate's decisions.
_STOP = STOPWORDS & frozenset(
    """a an the and or but of to in on at for from with by as is are was were be been being am has have had do does
did will would can could should may might this that these those it its he she they them his her their there here
who which what when where how so if then than very just about into over also like really i me my you your we our""".split()
) | frozenset("um uh okay oh yeah us others someone".split())


def claim_tokens(text: str, *, drop: set[str] = frozenset()) -> set[str]:
    words = re.findall(r"[a-z0-9]+", (text or "").lower().replace("'s", ""))
    return {_stem(w) for w in words if w not in _STOP and _stem(w) not in drop and len(w) > 1}


def _stem(word: str) -> str:
    """Symmetric and coarse: "works"/"work", "moved"/"move", "allergic"/"allergy" compare equal."""
    return claim_stem(word)


def coverage(claim: str, other_text: str, *, drop: set[str] = frozenset()) -> float:
    """Share of the claim's content tokens found in ``other_text`` (token-coverage similarity)."""
    tokens = claim_tokens(claim, drop=drop)
    if not tokens:
        return 0.0
    return len(tokens & claim_tokens(other_text)) / len(tokens)


@dataclass
class Policy:
    mode: str = Mode.SMART
    source_trust: float = 0.8
    auto_approve_trust: float = 0.7
    review_trust: float = 0.45
    min_importance: str = "low"
    max_memories_per_day: int = 0
    min_confidence: float = 0.6


@dataclass
class Scored:
    candidate: Candidate
    score: float = 0.0
    components: dict = field(default_factory=dict)
    decision: str = DROPPED
    reason: str = ""
    judge_verdict: str | None = None  # accept | reject | defer | None (no judge)
    corroborating_sources: list[str] = field(default_factory=list)
    supporting_memory_id: str | None = None
    scored_decision: str = DROPPED  # the decision before the gates (used when re-scoring stored memories)

    def evidence_payload(self) -> dict:
        return {
            "trust_score": round(self.score, 4),
            "components": self.components,
            "decision": self.decision,
            "reason": self.reason,
            "judge_verdict": self.judge_verdict,
            "corroborating_sources": self.corroborating_sources,
            "supporting_memory_id": self.supporting_memory_id,
        }


def content_hash_differs(candidate: Candidate, memory) -> bool:
    from distill.extraction.base import content_hash

    return content_hash(memory.content) != candidate.content_hash
