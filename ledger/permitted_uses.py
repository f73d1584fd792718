"""What each epistemic status may be used for: the one table of permitted uses, plus confidence bands and disclaimers.

Pure (no database). Every read path asks this module what a fact may be used for.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ledger.choices import Importance, Status

# Uses a caller can ask for.
ANSWERS = "answers"
ACTIONS = "actions"
ANSWERS_WITH_DISCLAIMER = "answers_with_disclaimer"
UNCERTAINTY_HISTORY = "uncertainty_history"
AUDIT_DEBUG = "audit_debug"
USES = (ANSWERS, ACTIONS, ANSWERS_WITH_DISCLAIMER, UNCERTAINTY_HISTORY, AUDIT_DEBUG)

POLICY: dict[str, tuple[str, ...]] = {
    Status.ACCEPTED: (ANSWERS, ACTIONS),
    Status.PENDING: (ANSWERS_WITH_DISCLAIMER,),
    Status.PENDING_REVIEW: (ANSWERS_WITH_DISCLAIMER,),
    Status.CONTRADICTED: (UNCERTAINTY_HISTORY,),
    Status.REJECTED: (AUDIT_DEBUG,),
    Status.DROPPED: (),
    Status.RETRACTED: (),
    Status.SUPERSEDED: (),
    Status.TOMBSTONED: (),
    Status.SOURCE_TOMBSTONED: (),
}
STATUSES = tuple(POLICY)

# Held as (possibly) true: shown in answers, in some form.
ACTIVE_STATUSES = (Status.ACCEPTED, Status.PENDING, Status.PENDING_REVIEW)
PENDING_STATUSES = (Status.PENDING, Status.PENDING_REVIEW)
# Statuses whose row is no longer held as true: ``retired_at`` is set when a fact enters one.
RETIRED_STATUSES = tuple(s for s in STATUSES if s not in ACTIVE_STATUSES)

ACTION_KINDS = ("reversible", "irreversible")

# Confidence bands (lower bounds).
BANDS = (("certain", 0.9), ("high", 0.75), ("medium", 0.5), ("low", 0.0))
BAND_FLOOR = {name: floor for name, floor in BANDS}

IMPORTANCE_ORDER = tuple(Importance.values)  # least to most important
IMPORTANCE_WEIGHT = dict(zip(IMPORTANCE_ORDER, (0.1, 0.25, 0.5, 0.75, 1.0), strict=True))

UNCERTAINTY_REASONS = (
    "single_source",
    "low_capture_signal",
    "contradicted_by",
    "stale",
    "third_party_subject",
    "previously_rejected",
)
STALE_AFTER = timedelta(days=365)


def permitted_uses(status: str) -> list[str]:
    """What a fact in ``status`` may be used for; unknown statuses permit nothing."""
    return list(POLICY.get(status, ()))


def permits(status: str, use: str) -> bool:
    if use == ANSWERS_WITH_DISCLAIMER:
        # Anything licensed for plain answers may also be answered with a disclaimer.
        return bool({ANSWERS, ANSWERS_WITH_DISCLAIMER} & set(POLICY.get(status, ())))
    return use in POLICY.get(status, ())


def statuses_permitting(use: str) -> list[str]:
    if use not in USES:
        raise ValueError(f"Unknown use {use!r}; expected one of {', '.join(USES)}")
    return [s for s in STATUSES if permits(s, use)]


def can_use_for_action(status: str, kind: str = "reversible") -> bool:
    """May a fact in ``status`` drive an action? An irreversible action needs an accepted fact, nothing less."""
    if kind not in ACTION_KINDS:
        raise ValueError(f"Unknown action kind {kind!r}; expected reversible or irreversible")
    if kind == "irreversible":
        return status == Status.ACCEPTED
    return ACTIONS in POLICY.get(status, ())


def band(value: float | None) -> str:
    if value is None:
        return "low"
    for name, floor in BANDS:
        if value >= floor:
            return name
    return "low"


def is_stale(valid_from: datetime | None, updated_at: datetime | None, now: datetime) -> bool:
    ref = updated_at or valid_from
    return ref is not None and now - ref > STALE_AFTER


def disclaimers(
    *,
    status: str,
    subject_kind: str,
    subject_name: str = "",
    capture_confidence: float,
    veracity: float,
    previously_rejected: bool = False,
    uncertainty_reasons: list[str] | None = None,
) -> list[str]:
    """Short human-readable caveats a reader must see next to the fact."""
    out: list[str] = []
    if status in PENDING_STATUSES:
        out.append("Unconfirmed: not yet reviewed.")
    if status == Status.CONTRADICTED:
        out.append("Contradicted by newer evidence; kept as history.")
    if status == Status.REJECTED:
        out.append("Rejected; shown for audit only.")
    if subject_kind == "third_party":
        out.append(f"About {subject_name or 'someone else'}, not you.")
    elif subject_kind == "unknown":
        out.append("Unclear who this is about.")
    if capture_confidence < BAND_FLOOR["medium"]:
        out.append("May have been misheard or misread.")
    if status in ACTIVE_STATUSES and veracity < BAND_FLOOR["medium"]:
        out.append("Low confidence that this is true.")
    if previously_rejected:
        out.append("Previously rejected; brought back by a different source.")
    if uncertainty_reasons and "stale" in uncertainty_reasons:
        out.append("May be out of date.")
    return out


def conflict_resolution(*, new_veracity: float, new_importance: str, held_veracity: float, held_importance: str) -> str:
    """How to resolve a new fact that contradicts a held one.

    Returns "escalate" only when ambiguous (new below medium while the held one is at or above high) AND
    material (importance x veracity gap >= 0.1); otherwise "supersede" when the new one is at least as
    believable, else "keep_held" (the new fact is recorded as contradicted).
    """
    weight = max(IMPORTANCE_WEIGHT.get(new_importance, 0.5), IMPORTANCE_WEIGHT.get(held_importance, 0.5))
    ambiguous = new_veracity < BAND_FLOOR["medium"] and held_veracity >= BAND_FLOOR["high"]
    material = weight * abs(held_veracity - new_veracity) >= 0.1
    if ambiguous and material:
        return "escalate"
    if new_veracity >= held_veracity or new_veracity >= BAND_FLOOR["medium"]:
        return "supersede"
    return "keep_held"


def timeout_decision(*, status: str, veracity: float, capture_confidence: float, importance: str) -> tuple[str, str]:
    """Decide a pending item nobody reviewed in time: (new_status, reason).

    High-veracity, well-captured, non-critical claims are accepted; everything else is dropped (not
    rejected: dropping records no refusal, so fresh evidence can bring the claim back).
    """
    if status not in PENDING_STATUSES:
        return status, ""
    if veracity >= BAND_FLOOR["high"] and capture_confidence >= BAND_FLOOR["medium"] and importance != "critical":
        return Status.ACCEPTED, "accepted-by-timeout"
    return Status.DROPPED, "dropped-by-timeout"


# Predicates that hold one value at a time per subject: a different value is a conflict, not a second fact.
EXCLUSIVE_PREDICATES = frozenset(
    {
        "lives_in", "home", "located_in", "works_at", "employer", "job_title", "role", "name", "preferred_name",
        "age", "birthday", "birth_date", "relationship_status", "partner", "spouse", "phone", "email",
        "address", "nationality", "pronouns",
    }
)  # fmt: skip
