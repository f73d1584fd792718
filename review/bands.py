"""Band thresholds and the queue's priority: importance × trust uncertainty × recency. Pure but for ``thresholds``.

Thresholds come from each source's gate policy (``distill.policies.get_policy(owner, source_key)``): the review
band of a source is ``[review_trust, auto_approve_trust)``; the most uncertain claim sits in its middle.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ledger import permitted_uses

DEFAULT_AUTO_APPROVE = 0.7
DEFAULT_REVIEW = 0.45
RECENCY_HALF_LIFE_DAYS = 7.0
CONFLICT_WEIGHT = 1.5  # a material conflict outranks a plain claim of the same importance and doubt


@dataclass(frozen=True)
class Thresholds:
    auto_approve: float = DEFAULT_AUTO_APPROVE
    review: float = DEFAULT_REVIEW

    def zone(self, trust: float | None) -> str:
        """Where a trust score falls for this source: above the auto-approve line, in the band, or below it."""
        if trust is None:
            return "unscored"
        if trust >= self.auto_approve:
            return "above"
        if trust >= self.review:
            return "borderline"
        return "below"

    def uncertainty(self, trust: float | None) -> float:
        """1.0 in the middle of the review band, 0.5 at its edges, falling towards 0.05 far outside it."""
        if trust is None:
            return 0.5
        lo, hi = min(self.review, self.auto_approve), max(self.review, self.auto_approve)
        mid, width = (lo + hi) / 2, max(hi - lo, 0.05)
        return max(0.05, min(1.0, 1.0 - abs(trust - mid) / width))


ZONE_WORDS = {
    "above": "above this source's auto-approve line",
    "borderline": "between this source's review and auto-approve lines",
    "below": "below this source's review line",
    "unscored": "not scored",
}


class ThresholdCache:
    """Each source's thresholds for one owner, read in one query. A source without a policy row gets the gate's
    defaults; reading never creates rows (``distill.policies.get_policy`` creates them when the gate runs)."""

    def __init__(self, owner):
        self.owner = owner
        self._cache: dict[str, Thresholds] | None = None

    def __call__(self, source_key: str) -> Thresholds:
        if self._cache is None:
            self._cache = _owner_thresholds(self.owner)
        found = self._cache.get(source_key)
        return found if found is not None else self._cache[""]


def _owner_thresholds(owner) -> dict[str, Thresholds]:
    from distill.models import GatePolicy

    defaults = Thresholds(
        auto_approve=float(GatePolicy._meta.get_field("auto_approve_trust").default),
        review=float(GatePolicy._meta.get_field("review_trust").default),
    )
    rows = GatePolicy.objects.owned_by(owner).values_list("source_key", "auto_approve_trust", "review_trust")
    out = {key: Thresholds(auto_approve=float(auto), review=float(review)) for key, auto, review in rows}
    out[""] = defaults
    return out


def thresholds(owner, source_key: str) -> Thresholds:
    """The review and auto-approve lines of ``owner``'s gate policy for ``source_key`` (defaults without one)."""
    return ThresholdCache(owner)(source_key)


def recency(recorded_at: datetime, now: datetime) -> float:
    age_days = max((now - recorded_at).total_seconds(), 0) / 86400
    return max(0.05, 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS))


def priority(
    *, importance: str, trust: float | None, limits: Thresholds, recorded_at: datetime, now: datetime, conflict=False
) -> float:
    weight = permitted_uses.IMPORTANCE_WEIGHT.get(importance, 0.5)
    value = weight * limits.uncertainty(trust) * recency(recorded_at, now)
    return value * (CONFLICT_WEIGHT if conflict else 1.0)
