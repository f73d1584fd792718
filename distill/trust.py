"""The trust score, the per-source modes and the deterministic gates. Pure: no database, no network.

score = p, the calibrated probability from the shipped gate model (``distill.gate_model``) that the candidate is
a durable, true statement about the right person. The judge's verdict, another device's agreement and an
active memory's support are model features; the source's trust moves the log-odds (the default, 0.8, is
neutral; lower trusts the source less).

Modes: smart (p ≥ accept line → accepted, ≥ review line → pending_review, else dropped; the lines are the
artifact's thresholds chosen on cross-validation, unless the owner set their own in the policy), review
(everything pending_review), auto (gates only, survivors accepted), off (nothing). A judge reject drops; a defer
sends to review; a low capture confidence (instruction-like text, devices disagreeing), an extractor ceiling or
an uncertain subject caps the decision at review: a claim whose subject is uncertain is never accepted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from distill import gate_model
from distill.extraction.base import IMPORTANCE, Candidate
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


def _log_odds(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def score(
    candidate: Candidate,
    *,
    source_trust: float,
    judge_verdict: str | None = None,
    corroborating_sources: list[str] | None = None,
    supporting_memory_id: str | None = None,
    model: gate_model.GateModel | None = None,
) -> Scored:
    """The calibrated probability p (``Scored.score``) with what produced it (``Scored.components``)."""
    model = model or gate_model.shipped()
    view = gate_model.view(
        candidate,
        corroborating_sources=corroborating_sources,
        judge_verdict=judge_verdict,
        supporting_memory_id=supporting_memory_id,
    )
    pred = model.predict(view)
    p = pred.p
    shift = _log_odds(source_trust) - _log_odds(DEFAULT_SOURCE_TRUST)
    if abs(shift) > 1e-9:
        p = round(1.0 / (1.0 + math.exp(-(_log_odds(p) + shift))), 4) if 0 < p < 1 else p
    components = {
        "p": p,
        "p_model": pred.p,
        "logit": pred.logit,
        "model_version": model.version,
        "attribution_logit": pred.attribution_logit,
        "attribution_ok": pred.attribution_ok,
        "attribution_reason": pred.attribution_reason,
        "top_features": [[name, value] for name, value in pred.top],
        "source_trust": round(source_trust, 4),
        "extraction_confidence": round(candidate.extraction_confidence, 4),
        "capture_confidence": round(candidate.capture_confidence, 4),
        "accept_threshold": model.accept_threshold,
        "review_threshold": model.review_threshold,
    }
    return Scored(
        candidate=candidate,
        score=p,
        components=components,
        judge_verdict=judge_verdict,
        corroborating_sources=sorted(corroborating_sources or []),
        supporting_memory_id=supporting_memory_id,
    )


def lines(policy: Policy, model: gate_model.GateModel | None = None) -> tuple[float, float, float]:
    """(accept, review, capped) lines in smart mode: the artifact's calibrated thresholds, unless the owner moved
    the policy's from their defaults (then the owner's values: the Sources page setting wins, and a claim a hard
    rule caps at review is asked from the owner's review line too)."""
    model = model or gate_model.shipped()
    custom = (
        abs(policy.auto_approve_trust - DEFAULT_AUTO_APPROVE) > 1e-9 or abs(policy.review_trust - DEFAULT_REVIEW) > 1e-9
    )
    if custom:
        return policy.auto_approve_trust, policy.review_trust, policy.review_trust
    return model.accept_threshold, min(model.review_threshold, model.accept_threshold), model.capped_line


def decide(scored: Scored, policy: Policy, *, model: gate_model.GateModel | None = None) -> Scored:
    """Set ``decision`` and ``reason`` from the mode, the score and the judge (gates come after)."""
    cand = scored.candidate
    accept, review, capped = lines(policy, model)
    if policy.mode == Mode.OFF:
        scored.decision, scored.reason = DROPPED, "mode off"
    elif scored.judge_verdict == "reject":
        scored.decision, scored.reason = DROPPED, "judge rejected"
    elif policy.mode == Mode.REVIEW:
        scored.decision, scored.reason = PENDING, "review mode"
    elif policy.mode == Mode.AUTO:
        scored.decision, scored.reason = ACCEPTED, "auto mode"
    elif scored.score >= accept:
        scored.decision, scored.reason = ACCEPTED, "score above auto-approve"
    elif scored.score >= review:
        scored.decision, scored.reason = PENDING, "score in review band"
    else:
        scored.decision, scored.reason = DROPPED, "score below review"
    if scored.decision == ACCEPTED and scored.judge_verdict == "defer":
        scored.decision, scored.reason = PENDING, "judge deferred"
    if scored.decision == ACCEPTED and cand.capture_confidence < LOW_CAPTURE:
        scored.decision, scored.reason = PENDING, "low capture confidence: " + (", ".join(cand.flags) or "noisy")
    if scored.decision == ACCEPTED:
        ok, why = _attribution(scored)
        if not ok:
            scored.decision, scored.reason = PENDING, f"subject uncertain: {why}"
    # The extractor's ceiling (hard rules, see distill.extraction): nothing lifts a candidate past it.
    if cand.ceiling == DROPPED:
        scored.decision, scored.reason = DROPPED, f"not a claim: {cand.ceiling_reason}"
    elif cand.ceiling == PENDING and scored.decision == ACCEPTED:
        scored.decision, scored.reason = PENDING, f"review at most: {cand.ceiling_reason}"
    if policy.mode == Mode.SMART and scored.decision != ACCEPTED and scored.judge_verdict != "reject":
        cap = "" if cand.ceiling == DROPPED else _capped_reason(scored)
        scored.components["capped"] = bool(cap)  # a review of it teaches what to ask, never what to accept
        if cap and scored.score >= capped:
            scored.decision, scored.reason = PENDING, cap  # asked from its own line, whatever the review line
        elif cap:
            scored.decision, scored.reason = DROPPED, f"{cap}; below the line for asking"
    scored.scored_decision = scored.decision
    return scored


def _capped_reason(scored: Scored) -> str:
    """Why a hard rule caps this claim at review whatever its score ("" when none does): its ceiling, a noisy
    capture, an uncertain subject. The training's ``decidable`` (``bench/train_gate.py``) is the same test."""
    cand = scored.candidate
    if cand.ceiling == PENDING:
        return f"review at most: {cand.ceiling_reason}"
    if cand.capture_confidence < LOW_CAPTURE:
        return "low capture confidence: " + (", ".join(cand.flags) or "noisy")
    ok, why = _attribution(scored)
    return "" if ok else f"subject uncertain: {why}"


def _attribution(scored: Scored) -> tuple[bool, str]:
    if "attribution_ok" in scored.components:
        return bool(scored.components["attribution_ok"]), str(scored.components.get("attribution_reason", ""))
    return gate_model.attribution_ok(gate_model.view(scored.candidate))


def importance_rank(value: str) -> int:
    return IMPORTANCE.index(value) if value in IMPORTANCE else 1


def apply_gates(
    scored: list[Scored], policy: Policy, *, existing_hashes: set[str], existing_today: int = 0
) -> list[Scored]:
    """Deterministic gates, in order: min_importance, min_confidence (review/auto), content-hash dedup (within the
    run and against existing memories), then the per-day cap (highest trust first in smart mode)."""
    floor = importance_rank(policy.min_importance)
    seen = set(existing_hashes)
    survivors: list[Scored] = []
    for item in scored:
        if item.decision == DROPPED:
            continue
        cand = item.candidate
        if importance_rank(cand.importance) < floor:
            item.decision, item.reason = DROPPED, f"below min_importance {policy.min_importance}"
            continue
        if policy.mode in (Mode.REVIEW, Mode.AUTO) and cand.extraction_confidence < policy.min_confidence:
            item.decision, item.reason = DROPPED, f"below min_confidence {policy.min_confidence}"
            continue
        if cand.content_hash in seen:
            item.decision, item.reason = DROPPED, "duplicate"
            continue
        seen.add(cand.content_hash)
        survivors.append(item)
    if policy.max_memories_per_day:
        room = max(policy.max_memories_per_day - existing_today, 0)
        ranked = sorted(survivors, key=lambda s: -s.score) if policy.mode == Mode.SMART else list(survivors)
        for item in ranked[room:]:
            item.decision, item.reason = DROPPED, f"over max_memories_per_day {policy.max_memories_per_day}"
    return scored


def content_hash_differs(candidate: Candidate, memory) -> bool:
    from distill.extraction.base import content_hash

    return content_hash(memory.content) != candidate.content_hash
