"""Learning from each review: every decision is a labelled example for its owner, and a per-owner adjustment
on top of the shipped model moves that owner's lines.

    record_example(...)   the review services call it for every decision (accept, reject, edit, not about me,
                          snooze, rescue); an undo calls ``undo_examples``
    refit(owner=...)      nightly (django-q2 schedule ``distill-refit-adjustments``) and on demand (Review page,
                          ``POST /api/v1/review/learning/refit``): fit, guard, store
    adjuster(owner, ...)  what the pass applies after the model (``distill.steps.decision``): a pure callable
    learned(owner)        what the Review page says the gate has learned

The adjustment is a logit offset per (predicate family, subject type) plus one shift for every claim of the
owner, fitted by penalised maximum likelihood on top of the shipped model's probability (the model's logit is
the fixed offset of a one-parameter logistic regression per key). It takes effect only after ``FLOOR`` labelled
examples, and only when, on folds of the owner's own examples, the precision of what it would auto-accept is no
lower than the shipped model's (``guard``). Refused or below the floor it has no effect at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from distill import trust
from distill.conversation import Medium
from distill.models import Mode, OwnerAdjustment, ReviewExample
from distill.steps import decision

FLOOR = 5  # labelled examples before any adjustment takes effect (PRIOR keeps a few from moving a line far)
KEY_FLOOR = 4  # examples of one (family, subject type) before it gets its own offset
PRIOR = 2.0  # L2 strength on each offset (in examples): few decisions move a line a little
MAX_OFFSET = 4.0  # logit units
FOLDS = 5
REFERENCE_PRECISION = 0.95  # the shipped model's cross-validated precision target, when it accepted none here
EPS = 1e-4
# The share of asked claims that are true for a queue to be worth asking: the shipped model's review line is
# chosen so its queue keeps it (``bench/train_gate.py MIN_QUEUED_TRUE``). An owner who says yes this often to a
# kind of claim is not asked about it less, even when the model's probability was higher still.
WORTH_ASKING = 0.60

LABELS = {
    ReviewExample.Decision.ACCEPT: 1,
    ReviewExample.Decision.EDIT: 1,
    ReviewExample.Decision.REJECT: 0,
    ReviewExample.Decision.NOT_ABOUT_ME: 0,
    ReviewExample.Decision.SNOOZE: None,
    ReviewExample.Decision.RESCUE: None,
}


# --- keys ------------------------------------------------------------------------------------------------
def family_of(predicate: str) -> str:
    """ "work:work_at_northwind" -> "work:work_at": the kind and the first two words of the predicate (pronouns
    a fallback extractor left in the predicate are not part of it)."""
    kind, _, rest = (predicate or "other:statement").lower().partition(":")
    words = [w for w in rest.split("_") if w and w not in PRONOUNS][:2]
    return f"{kind or 'other'}:{'_'.join(words) or 'statement'}"[:100]


PRONOUNS = {"i", "i'm", "im", "i've", "i'll", "i'd", "me", "my", "we", "we're", "you", "you're", "it", "it's"}


def subject_type_of(features: dict | None, attribution: str) -> str:
    """The parse's subject type when the extractor gives one, else the attribution (user → owner)."""
    found = (features or {}).get("subject_type")
    if isinstance(found, str) and found:
        return found[:30]
    return {"user": "owner", "third_party": "named_person"}.get(attribution or "", "unknown")


def key_of(family: str, subject_type: str) -> str:
    return f"{family}|{subject_type}"


def kind_key(family: str, subject_type: str) -> str:
    """The coarser key every family of a kind shares: ``kind:work|owner``."""
    return f"kind:{family.partition(':')[0]}|{subject_type}"


def keys_of(family: str, subject_type: str) -> tuple[str, str]:
    return kind_key(family, subject_type), key_of(family, subject_type)


def pattern_of(family: str, subject_type: str) -> str:
    """ "work:work_at", owner -> "I work at …"; a kind key -> "what you say about your work"."""
    kind, _, words = family.partition(":")
    if kind == "kind":
        kind = words
        return f"{kind} facts about you" if subject_type == "owner" else f"{kind} facts about others"
    words = words.replace("_", " ").strip()
    who = "I" if subject_type == "owner" else "someone"
    if words.startswith("be "):
        words = ("am " if who == "I" else "is ") + words[3:]
    return f"{who} {words} …" if words and words != "statement" else f"{kind} facts ({who})"


def _logit(p: float) -> float:
    p = min(max(float(p), EPS), 1 - EPS)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


# --- the adjustment (pure) -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Adjustment:
    shift: float = 0.0
    offsets: dict[str, float] = field(default_factory=dict)
    version: int = 0

    def offset_for(self, family: str, subject_type: str) -> float:
        return self.shift + sum(self.offsets.get(k, 0.0) for k in keys_of(family, subject_type))

    def probability(self, p: float, family: str, subject_type: str, accept_threshold: float = 1.0) -> float:
        offset = self.offset_for(family, subject_type)
        if not offset or (offset < 0 and p >= accept_threshold):
            return float(p)
        return _sigmoid(_logit(p) + offset)


NO_ADJUSTMENT = Adjustment()


def adjust(
    scored: trust.Scored, adjustment: Adjustment | None, *, accept_threshold: float, review_threshold: float = 0.0
) -> trust.Scored:
    """Apply the owner's adjustment to a scored candidate (before ``decision.decide``). Records the shipped
    probability, the key and the offset in ``components`` so a later decision can become an example."""
    cand = scored.candidate
    family = family_of(cand.predicate)
    subject_type = subject_type_of(getattr(cand, "features", None), cand.attribution)
    # Own keys: the model's components already say "p_model" (before the source's trust) and "accept_threshold"
    # (the artifact's line); these are the probability and the line the decision actually uses.
    scored.components["p_shipped"] = round(scored.score, 4)
    scored.components["family"] = family
    scored.components["subject_type"] = subject_type
    scored.components["accept_line"] = round(accept_threshold, 4)
    if adjustment is None or (not adjustment.shift and not adjustment.offsets):
        return scored
    offset = adjustment.offset_for(family, subject_type)
    if (offset < 0 and scored.score >= accept_threshold) or (offset > 0 and scored.score < review_threshold):
        # The examples come from what the gate asked about (between the lines): they say nothing about what the
        # shipped model accepts on its own or keeps below the review line, so learning neither demotes the one
        # nor promotes the other into the queue. It decides the asked band: accept more, or ask less.
        return scored
    if offset:
        scored.components["owner_offset"] = round(offset, 4)
        scored.components["owner_adjustment"] = adjustment.version
        scored.score = round(adjustment.probability(scored.score, family, subject_type), 4)
    return scored


# --- fitting (pure) ----------------------------------------------------------------------------------------
@dataclass
class Example:
    key: str
    p: float
    label: int


def _fit_offset(points: list[tuple[float, int]], prior: float) -> float:
    """argmin_b Σ logloss(σ(z_i + b), y_i) + prior·b²/2, by Newton's method (convex, one dimension)."""
    b = 0.0
    for _ in range(30):
        grad, hess = prior * b, prior
        for z, y in points:
            q = _sigmoid(z + b)
            grad += q - y
            hess += q * (1 - q)
        step = grad / hess
        b -= step
        if abs(step) < 1e-6:
            break
    return max(-MAX_OFFSET, min(MAX_OFFSET, b))


def fit(examples: list[Example]) -> Adjustment:
    """One shift over all examples, then one offset per kind key and per family key with at least ``KEY_FLOOR``
    examples, each fitted on what the coarser levels left (shrunk towards 0 by ``PRIOR``)."""
    if not examples:
        return NO_ADJUSTMENT
    shift = _worth_asking(_fit_offset([(_logit(e.p), e.label) for e in examples], PRIOR), examples)
    offsets: dict[str, float] = {}
    for level in (0, 1):
        by_key: dict[str, list[Example]] = {}
        for e in examples:
            family, _, subject = e.key.partition("|")
            by_key.setdefault(keys_of(family, subject)[level], []).append(e)
        fitted = {}
        for key, rows in by_key.items():
            if len(rows) < KEY_FLOOR:
                continue
            points = []
            for e in rows:
                family, _, subject = e.key.partition("|")
                base = shift + sum(offsets.get(k, 0.0) for k in keys_of(family, subject))
                points.append((_logit(e.p) + base, e.label))
            offset = _worth_asking(_fit_offset(points, PRIOR), rows)
            if abs(offset) >= 0.01:
                fitted[key] = round(offset, 4)
        offsets.update(fitted)
    return Adjustment(shift=round(shift, 4), offsets=offsets)


def _worth_asking(offset: float, examples: list[Example]) -> float:
    """A negative offset only asks less: none while the owner accepts at least ``WORTH_ASKING`` of these claims
    (7 of 9 accepted at p 0.86 is a calibration gap, not a reason to stop asking what is mostly true)."""
    accepted = sum(e.label for e in examples) / len(examples)
    return 0.0 if offset < 0 and accepted >= WORTH_ASKING else offset


def _precision(pairs: list[tuple[bool, int]]) -> float | None:
    chosen = [y for accepted, y in pairs if accepted]
    return sum(chosen) / len(chosen) if chosen else None


@dataclass
class GuardResult:
    passed: bool
    shipped_precision: float | None  # of what the shipped model accepts among these examples (None: none)
    adjusted_precision: float | None  # cross-validated, of what the adjusted model accepts (None: none)
    reference: float
    reason: str


def guard(examples: list[Example], threshold: dict[int, float] | float, *, folds: int = FOLDS) -> GuardResult:
    """Cross-validate the adjustment on the owner's own examples (deterministic folds, train on the others,
    score the held fold) and compare the precision of what it would auto-accept with the shipped model's on the
    same examples (or, when the shipped model accepts none of them, with its cross-validated target)."""
    thr = (lambda i: threshold[i]) if isinstance(threshold, dict) else (lambda i: threshold)
    shipped = _precision([(e.p >= thr(i), e.label) for i, e in enumerate(examples)])
    reference = shipped if shipped is not None else REFERENCE_PRECISION
    k = max(2, min(folds, len(examples)))
    held: list[tuple[bool, int]] = []
    for fold in range(k):
        train = [e for i, e in enumerate(examples) if i % k != fold]
        model = fit(train)
        for i, e in enumerate(examples):
            if i % k == fold:
                family, _, subject = e.key.partition("|")
                held.append((model.probability(e.p, family, subject, thr(i)) >= thr(i), e.label))
    adjusted = _precision(held)
    if adjusted is not None and adjusted < reference - 1e-9:
        return GuardResult(
            False,
            shipped,
            adjusted,
            reference,
            f"would lower precision: {adjusted:.2f} on held-out decisions, below the shipped model's {reference:.2f}",
        )
    return GuardResult(True, shipped, adjusted, reference, "")


# --- database: examples ------------------------------------------------------------------------------------
def _gate_details(fact) -> dict:
    """The gate's components from the fact's first evidence that has them (written by ``distill.services``)."""
    for ev in fact.evidence.all().order_by("recorded_at"):
        comps = (ev.details or {}).get("components") or {}
        if comps:
            return {"components": comps, "trust_score": (ev.details or {}).get("trust_score")}
    return {}


def record_example(*, owner, fact, decision: str, action_public_id, before: dict | None = None) -> ReviewExample:
    """Store one review decision on ``fact`` as a labelled example for ``owner`` (idempotent per action).

    ``before`` is the fact as it was before the action (its subject, for "not about me"). Raises ValueError for
    an unknown decision."""
    decision = ReviewExample.Decision(decision)
    details = _gate_details(fact)
    comps = details.get("components") or {}
    family = comps.get("family") or family_of(fact.predicate)
    subject_kind = (before or {}).get("subject_kind") or fact.subject_kind
    subject_type = comps.get("subject_type") or subject_type_of(None, subject_kind)
    p_model = comps.get("p_shipped", comps.get("p", details.get("trust_score")))
    if p_model is None:
        p_model = fact.veracity
    example, _ = ReviewExample.objects.get_or_create(
        action_public_id=action_public_id,
        defaults={
            "owner": owner,
            "fact_public_id": fact.public_id,
            "decision": decision,
            "label": LABELS[decision],
            "family": family[:100],
            "subject_type": subject_type[:30],
            "source_key": (fact.source_label or "")[:100],
            "pattern": pattern_of(family, subject_type)[:200],
            "p_model": float(p_model),
            "accept_threshold": comps.get("accept_line", comps.get("accept_threshold")),
            "capped": bool(comps.get("capped")),
        },
    )
    return example


def undo_examples(*, owner, action_public_ids) -> int:
    """The review actions were undone: their examples no longer count."""
    return (
        ReviewExample.objects.owned_by(owner)
        .filter(action_public_id__in=list(action_public_ids), undone_at__isnull=True)
        .update(undone_at=timezone.now())
    )


def labelled(owner) -> list[ReviewExample]:
    """The owner's live examples with a verdict on truth, the latest decision per memory, oldest first."""
    rows = ReviewExample.objects.owned_by(owner).filter(undone_at__isnull=True, label__isnull=False)
    latest: dict = {}
    for row in rows.order_by("created_at", "id"):
        latest[row.fact_public_id] = row
    return sorted(latest.values(), key=lambda r: (r.created_at, r.id))


# --- database: refit ---------------------------------------------------------------------------------------
def refit(*, owner, default_threshold: float | None = None) -> OwnerAdjustment:
    """Fit the owner's adjustment from their examples, guard it and store it (one row per owner, under a row
    lock so the nightly task and a click on "Refit" do not interleave). Below the floor, or refused by the
    guard, the stored adjustment has no effect. A claim a hard rule capped at review (a quote, an uncertain
    speaker) is asked from a line of its own and no line accepts it: its verdict says nothing about the model's
    band, so it is recorded but never fitted."""
    decided = labelled(owner)
    rows = [r for r in decided if not r.capped]
    fallback = default_threshold if default_threshold is not None else _default_accept_threshold()
    examples = [Example(key_of(r.family, r.subject_type), float(r.p_model or 0.0), int(r.label)) for r in rows]
    thresholds = {i: float(r.accept_threshold or fallback) for i, r in enumerate(rows)}
    with transaction.atomic():
        adj, _ = OwnerAdjustment.objects.select_for_update().get_or_create(owner=owner)
        adj.n_examples, adj.version, adj.fitted_at = len(examples), adj.version + 1, timezone.now()
        adj.families = _family_stats(rows)
        if len(examples) < FLOOR:
            adj.status, adj.shift, adj.offsets = OwnerAdjustment.Status.LEARNING, 0.0, {}
            adj.shipped_precision = adj.adjusted_precision = None
            adj.reason = f"{len(examples)} of {FLOOR} decisions before the gate adjusts to you" + (
                f" ({len(decided) - len(rows)} more, on claims it may never accept on its own, are kept but not fitted)"
                if len(decided) > len(rows)
                else ""
            )
        else:
            model, check = fit(examples), guard(examples, thresholds)
            adj.shipped_precision, adj.adjusted_precision = check.shipped_precision, check.adjusted_precision
            if check.passed:
                adj.status, adj.shift, adj.offsets, adj.reason = (
                    OwnerAdjustment.Status.ACTIVE, model.shift, model.offsets, ""
                )  # fmt: skip
            else:
                adj.status, adj.shift, adj.offsets, adj.reason = OwnerAdjustment.Status.REFUSED, 0.0, {}, check.reason
        adj.save()
    return adj


def _family_stats(rows: list[ReviewExample]) -> dict:
    """Per key (kind and family level): examples, accepts, the pattern shown, the median shipped p."""
    stats: dict[str, dict] = {}
    for r in rows:
        for level, key in enumerate(keys_of(r.family, r.subject_type)):
            family = key.partition("|")[0]
            s = stats.setdefault(
                key,
                {
                    "n": 0,
                    "accepted": 0,
                    "pattern": r.pattern if level else pattern_of(family, r.subject_type),
                    "p_model": [],
                    "threshold": r.accept_threshold,
                },
            )
            s["n"] += 1
            s["accepted"] += int(r.label or 0)
            s["p_model"].append(round(float(r.p_model or 0.0), 4))
    for s in stats.values():
        values = sorted(s.pop("p_model"))
        s["median_p"] = values[len(values) // 2] if values else 0.0
    return stats


def refit_all() -> int:
    """Every owner with at least one example (the nightly schedule). Returns how many were refitted."""
    from django.contrib.auth import get_user_model

    owners = get_user_model().objects.filter(pk__in=ReviewExample.objects.values("owner_id").distinct())
    count = 0
    for owner in owners:
        refit(owner=owner)
        count += 1
    return count


def _default_accept_threshold() -> float:
    from distill.models import GatePolicy

    return float(GatePolicy._meta.get_field("auto_approve_trust").default)


def current(owner) -> Adjustment | None:
    """The owner's adjustment in effect (None below the floor, when refused, or never fitted)."""
    row = OwnerAdjustment.objects.owned_by(owner).first()
    if row is None or not row.is_active:
        return None
    return Adjustment(shift=row.shift, offsets=dict(row.offsets or {}), version=row.version)


def accept_threshold(policy: trust.Policy, medium: str = Medium.SPEECH) -> float:
    """The auto-accept line the pass decides with (``decision.lines``: the shipped model's for the medium in smart
    mode, unless the owner set their own), else the policy's."""
    return (
        float(decision.lines(policy, medium=medium)[0])
        if policy.mode == Mode.SMART
        else float(policy.auto_approve_trust)
    )


def review_threshold(policy: trust.Policy, medium: str = Medium.SPEECH) -> float:
    """The line below which the gate asks nothing (smart mode); 0 in the other modes."""
    return float(decision.lines(policy, medium=medium)[1]) if policy.mode == Mode.SMART else 0.0


def adjuster(owner, *, policy: trust.Policy, medium: str = Medium.SPEECH):
    """The callable ``distill.pipeline`` applies to each scored candidate for this owner."""
    adjustment = current(owner)
    accept, review = accept_threshold(policy, medium), review_threshold(policy, medium)
    return lambda scored: adjust(scored, adjustment, accept_threshold=accept, review_threshold=review)


# --- what the Review page shows -------------------------------------------------------------------------
@dataclass
class LearnedRule:
    key: str
    pattern: str
    decisions: int
    accepted: int
    offset: float
    effect: str  # accepts | asks_less | asks_more | drops
    sentence: str


@dataclass
class Learned:
    status: str
    n_examples: int
    floor: int
    reason: str
    version: int
    fitted_at: object
    shipped_precision: float | None
    adjusted_precision: float | None
    rules: list[LearnedRule] = field(default_factory=list)
    pending_examples: int = 0  # decided since the last refit


def learned(owner, *, review_threshold: float | None = None) -> Learned:
    """What the gate has learned from ``owner``'s decisions, in sentences for the Review page."""
    row = OwnerAdjustment.objects.owned_by(owner).first()
    total = ReviewExample.objects.owned_by(owner).filter(undone_at__isnull=True, label__isnull=False).count()
    if row is None:
        return Learned(OwnerAdjustment.Status.LEARNING, 0, FLOOR, "", 0, None, None, None, [], total)
    out = Learned(
        row.status, row.n_examples, FLOOR, row.reason, row.version, row.fitted_at,
        row.shipped_precision, row.adjusted_precision, [], max(total - row.n_examples, 0),
    )  # fmt: skip
    if not row.is_active:
        return out
    review = review_threshold if review_threshold is not None else _default_review_threshold()
    offsets = dict(row.offsets or {})
    stats_by_key = row.families or {}
    if abs(row.shift) >= 0.05:
        way = "trusts what it is unsure of a little more" if row.shift > 0 else "asks about fewer doubtful claims"
        out.rules.append(
            LearnedRule(
                "*",
                "everything",
                row.n_examples,
                sum(int(v.get("accepted", 0)) for k, v in stats_by_key.items() if k.startswith("kind:")),
                round(row.shift, 3),
                "overall",
                f"{way} after {row.n_examples} decisions",
            )
        )
    for key in sorted(offsets, key=lambda k: (-stats_by_key.get(k, {}).get("n", 0), k)):
        stats = stats_by_key.get(key)
        if stats is None:
            continue
        family, _, subject = key.partition("|")
        offset = (
            row.shift
            + offsets[key]
            + (offsets.get(kind_key(family, subject), 0.0) if not key.startswith("kind:") else 0.0)
        )
        if abs(offset) < 0.05:
            continue
        threshold = float(stats.get("threshold") or _default_accept_threshold())
        p = _sigmoid(_logit(stats.get("median_p", 0.0)) + offset)
        pattern, n = stats.get("pattern") or pattern_of(family, subject), stats["n"]
        if offset > 0 and p >= threshold:
            effect, sentence = "accepts", f"accepts '{pattern}' from you without asking since {n} decisions"
        elif offset > 0:
            effect, sentence = "asks_less", f"trusts '{pattern}' more after {n} decisions"
        elif p < review:
            effect, sentence = "drops", f"stops asking about '{pattern}' after {n} decisions ({stats['accepted']} kept)"
        else:
            effect, sentence = "asks_more", f"trusts '{pattern}' less after {n} decisions"
        out.rules.append(LearnedRule(key, pattern, n, stats["accepted"], round(offset, 3), effect, sentence))
    return out


def _default_review_threshold() -> float:
    from distill.models import GatePolicy

    return float(GatePolicy._meta.get_field("review_trust").default)
