"""The review queue: memories waiting for a person's decision, best candidates first."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch

from ledger import queries as ledger_queries
from ledger.models import Evidence, Fact, Status

REVIEWABLE = [Status.PENDING_REVIEW, Status.PENDING]
IMPORTANCE_RANK = {"critical": 4, "high": 3, "normal": 2, "low": 1, "trivial": 0}


@dataclass
class ReviewItem:
    """One queued memory with what a reviewer needs to decide: the claim, its trust and its evidence."""

    fact: Fact
    view: dict
    trust_score: float | None
    components: dict
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.fact.public_id)

    @property
    def trust_percent(self) -> int:
        return round((self.trust_score or 0) * 100)

    @property
    def band(self) -> str:
        """Near the auto-approve line, in the middle, or close to being dropped."""
        score = self.trust_score
        if score is None:
            return "unscored"
        if score >= 0.6:
            return "high"
        if score >= 0.5:
            return "medium"
        return "low"


def _trust(evidence: list[Evidence]) -> tuple[float | None, dict]:
    best, components = None, {}
    for ev in evidence:
        score = (ev.details or {}).get("trust_score")
        if isinstance(score, int | float) and (best is None or score > best):
            best, components = float(score), dict((ev.details or {}).get("components") or {})
    return best, components


def review_queue(*, owner, source: str | None = None, limit: int = 100) -> list[ReviewItem]:
    """Pending memories of ``owner``, highest trust first, then importance, then newest."""
    qs = (
        Fact.objects.owned_by(owner)
        .filter(status__in=REVIEWABLE)
        .select_related("subject_entity")
        .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.live().order_by("recorded_at")))
    )
    if source:
        qs = qs.filter(source_label=source)
    items = []
    for fact in qs[: max(1, min(limit, 500)) * 2]:
        evidence = list(fact.evidence.all())
        score, components = _trust(evidence)
        items.append(ReviewItem(fact, ledger_queries.fact_view(fact), score, components, evidence))
    items.sort(
        key=lambda i: (
            -(i.trust_score or 0),
            -IMPORTANCE_RANK.get(i.fact.importance, 0),
            -i.fact.recorded_at.timestamp(),
        )
    )
    return items[:limit]


def review_item(*, owner, fact: Fact) -> ReviewItem:
    evidence = list(fact.evidence.live().order_by("recorded_at"))
    score, components = _trust(evidence)
    return ReviewItem(fact, ledger_queries.fact_view(fact), score, components, evidence)


def queue_size(*, owner) -> int:
    return Fact.objects.owned_by(owner).filter(status__in=REVIEWABLE).count()


def queue_sources(*, owner) -> list[str]:
    return sorted(
        s
        for s in Fact.objects.owned_by(owner)
        .filter(status__in=REVIEWABLE)
        .values_list("source_label", flat=True)
        .distinct()
        if s
    )
