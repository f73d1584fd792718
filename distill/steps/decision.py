"""Decision: accepted, asked (pending review) or dropped, from the model's probability, the source's mode and the
hard rules; then the deterministic gates.

- **Probability**: the model's p, moved in log-odds by the source's trust (``DEFAULT_SOURCE_TRUST`` is neutral;
  lower trusts the source less), then by the owner's learned adjustment (``ctx.adjust``, ``distill.learning``).
- **Modes**: smart (p ≥ accept line → accepted, ≥ review line → pending_review, else dropped; the lines are the
  model's, chosen on cross-validation, unless the owner set their own in the policy), review (everything
  pending_review), auto (gates only, survivors accepted), off (nothing).
- **Hard rules**: a judge reject drops, a defer asks; a low capture confidence (instruction-like text, devices
  disagreeing), an extractor ceiling or an uncertain subject caps the decision at review (such a claim is asked
  from its own line, the capped line, in smart mode): a claim whose subject is uncertain is never accepted.
- **Gates**, in order: min_importance, min_confidence (review/auto), content-hash dedup (within the pass and
  against existing memories), then the per-day cap (highest probability first in smart mode).
"""

from __future__ import annotations

import math

from distill import gate_model
from distill.extraction.base import IMPORTANCE
from distill.models import Mode
from distill.steps import model as model_step
from distill.steps.context import Item, PassContext
from distill.trust import (
    ACCEPTED,
    DEFAULT_AUTO_APPROVE,
    DEFAULT_REVIEW,
    DEFAULT_SOURCE_TRUST,
    DROPPED,
    LOW_CAPTURE,
    PENDING,
    Policy,
    Scored,
)

NAME = "decision"


def run(ctx: PassContext) -> PassContext:
    model = model_step.current(ctx).for_medium(ctx.medium)
    ctx.scored = []
    for item in ctx.items:
        scored = scored_of(item, source_trust=ctx.policy.source_trust, model=model)
        if ctx.adjust is not None:
            scored = ctx.adjust(scored)
        item.scored = decide(scored, ctx.policy, model=model)
        ctx.scored.append(item.scored)
    apply_gates(ctx.scored, ctx.policy, existing_hashes=ctx.existing_hashes, existing_today=ctx.existing_today)
    return ctx


# --- the probability ------------------------------------------------------------------------------------------
def _log_odds(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def scored_of(item: Item, *, source_trust: float, model) -> Scored:
    """The calibrated probability p (``Scored.score``), moved by the source's trust, with what produced it
    (``Scored.components``)."""
    pred, candidate = item.prediction, item.candidate
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
        judge_verdict=item.judge_verdict,
        corroborating_sources=sorted(item.corroborating_sources or []),
        supporting_memory_id=item.supporting_memory_id,
    )


# --- the decision ---------------------------------------------------------------------------------------------
def lines(policy: Policy, model=None, medium: str = "") -> tuple[float, float, float]:
    """(accept, review, capped) lines in smart mode: the model's calibrated thresholds (those of ``medium`` when
    given: ``Medium``), unless the owner moved the policy's from their defaults (then the owner's values: the
    Sources page setting wins, and a claim a hard rule caps at review is asked from the owner's review line too)."""
    model = model or gate_model.shipped()
    model = model.for_medium(medium) if medium else model
    custom = (
        abs(policy.auto_approve_trust - DEFAULT_AUTO_APPROVE) > 1e-9 or abs(policy.review_trust - DEFAULT_REVIEW) > 1e-9
    )
    if custom:
        return policy.auto_approve_trust, policy.review_trust, policy.review_trust
    return model.accept_threshold, min(model.review_threshold, model.accept_threshold), model.capped_line


def decide(scored: Scored, policy: Policy, *, model=None) -> Scored:
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
    elif accept < gate_model.NO_LINE and scored.score >= accept:
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


# --- the gates ------------------------------------------------------------------------------------------------
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
