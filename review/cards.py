"""Review cards: what a person needs to decide one memory, in words (trust parts, why it is here, permitted uses)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.db.models import Prefetch

from distill.services import CONTRADICTS_REASON
from ledger import permitted_uses
from ledger import queries as ledger_queries
from ledger.models import Evidence, Fact, Status
from review import bands

ESCALATED_REASON = "conflict-escalated"
# The Conflicts band: a claim the gate escalated against the held value of an exclusive predicate, and a claim an
# agent asked to remember that contradicts an accepted fact (its evidence names that fact).
CONFLICT_REASONS = (ESCALATED_REASON, CONTRADICTS_REASON)

USE_WORDS = {
    permitted_uses.ANSWERS: "may answer",
    permitted_uses.ANSWERS_WITH_DISCLAIMER: "may answer with a disclaimer",
    permitted_uses.ACTIONS: "may act",
    permitted_uses.UNCERTAINTY_HISTORY: "kept as history only",
    permitted_uses.AUDIT_DEBUG: "audit only",
}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
REASON_WORDS = {
    ESCALATED_REASON: "conflicts with a memory you hold",
    CONTRADICTS_REASON: "an agent proposed it; it contradicts a memory you hold",
    "previously-rejected": "you rejected this before; a different source brought it back",
    "proposed-by-agent": "an agent proposed it",
    "dropped-by-timeout": "nobody decided in time, so it was dropped",
    "accepted-by-timeout": "nobody decided in time; well supported, so it was accepted",
}


def uses_in_words(status: str) -> list[str]:
    return [USE_WORDS[u] for u in permitted_uses.permitted_uses(status) if u in USE_WORDS]


@dataclass
class ReviewItem:
    """One memory on the review page, with its evidence and trust in words."""

    fact: Fact
    view: dict
    evidence: list[Evidence]
    trust: float | None = None
    components: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    zone: str = "unscored"
    priority: float = 0.0
    conflict: bool = False
    held: Fact | None = None
    held_evidence: list[Evidence] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.fact.public_id)

    @property
    def trust_percent(self) -> int:
        return round(min(max(self.trust or 0.0, 0.0), 1.0) * 100)

    @property
    def band(self) -> str:
        if self.fact.status == Status.ACCEPTED:
            return "auto_accepted"
        if self.fact.status == Status.DROPPED:
            return "dropped"
        return "conflicts" if self.conflict else "queue"

    @property
    def is_pending(self) -> bool:
        return self.fact.is_reviewable()

    @property
    def zone_words(self) -> str:
        return bands.ZONE_WORDS.get(self.zone, "")

    @property
    def subject_words(self) -> str:
        if self.fact.subject_kind == "third_party":
            return self.view["subject_name"] or "someone else"
        return "you" if self.fact.subject_kind == "user" else "someone unknown"

    @property
    def uses_now(self) -> list[str]:
        return uses_in_words(self.fact.status)

    @property
    def uses_if_accepted(self) -> list[str]:
        return uses_in_words(Status.ACCEPTED)

    @property
    def trust_words(self) -> list[str]:
        return trust_in_words(self.details, self.components, self.fact)

    @property
    def why(self) -> list[str]:
        out = []
        reason = self.fact.status_reason or ""
        if reason in REASON_WORDS:
            out.append(REASON_WORDS[reason])
        elif self.details.get("reason"):
            out.append(str(self.details["reason"]))
        elif reason and not reason.startswith("snoozed-until:"):
            out.append(reason.replace("-", " "))
        if self.trust is not None:
            out.append(f"trust {self.trust:.2f}, {self.zone_words}")
        return out


def trust_in_words(details: dict, components: dict, fact: Fact) -> list[str]:
    """The trust score's parts as a person would say them ("heard by two devices", "judge: accept")."""
    words = []
    if "extraction_confidence" in components:
        words.append(f"extractor {float(components['extraction_confidence']):.0%} sure")
    if "source_trust" in components:
        words.append(f"source trusted at {float(components['source_trust']):.0%}")
    verdict = details.get("judge_verdict")
    words.append(f"judge: {verdict}" if verdict else "no judge verdict")
    others = list(details.get("corroborating_sources") or [])
    if others:
        n = len(others) + 1
        words.append(f"heard by {NUMBER_WORDS.get(n, n)} devices ({', '.join(others)} agrees)")
    if details.get("supporting_memory_id") or components.get("support"):
        words.append("supports a memory you already have")
    live_sources = (
        {e.source_label for e in fact.evidence.all()} if hasattr(fact, "_prefetched_objects_cache") else set()
    )
    if len(live_sources) > 1 and not others:
        words.append(f"{NUMBER_WORDS.get(len(live_sources), len(live_sources))} sources say so")
    capture = components.get("capture_confidence", fact.capture_confidence)
    if capture is not None and float(capture) < permitted_uses.BAND_FLOOR["medium"]:
        words.append("may be misheard or misread")
    for flag in details.get("flags") or []:
        words.append(str(flag))
    if fact.previously_rejected:
        words.append("you rejected this before")
    if components.get("owner_offset"):
        way = "more" if float(components["owner_offset"]) > 0 else "less"
        words.append(f"trusted {way} after your earlier decisions")
    if "queue_rank" in components:
        words.append(f"ranked {components['queue_rank']} by value that day")
    return words


def _best(evidence: list[Evidence]) -> tuple[float | None, dict]:
    best, details = None, {}
    for ev in evidence:
        d = ev.details or {}
        score = d.get("trust_score")
        if isinstance(score, int | float) and (best is None or score > best):
            best, details = float(score), d
    return best, details


def _named_held(fact: Fact) -> uuid.UUID | None:
    """The id of the accepted fact a claim's evidence says it contradicts (an agent's ``remember``), if any."""
    for ev in fact.evidence.all():
        try:
            return uuid.UUID(str((ev.details or {})["contradicts"]))
        except (KeyError, ValueError):
            continue
    return None


def live_evidence() -> Prefetch:
    """A fact's live evidence, oldest first: what a card shows."""
    return Prefetch("evidence", queryset=Evidence.objects.live().order_by("recorded_at"))


def is_conflict(status_reason: str) -> bool:
    """Whether a waiting claim with this reason belongs in the Conflicts band."""
    return status_reason in CONFLICT_REASONS


def held_fact_for(fact: Fact) -> Fact | None:
    """The held fact a conflicting claim disputes: the one its evidence names when it names one (still active),
    else the same subject and predicate, active, a different claim."""
    qs = (
        Fact.objects.filter(owner_id=fact.owner_id, status__in=permitted_uses.ACTIVE_STATUSES)
        .exclude(pk=fact.pk)
        .select_related("subject_entity")
        .prefetch_related(live_evidence())
    )
    if fact.status_reason == CONTRADICTS_REASON:
        named = _named_held(fact)
        return qs.filter(public_id=named).first() if named is not None else None
    qs = qs.filter(predicate=fact.predicate, subject_kind=fact.subject_kind).exclude(
        proposition_key=fact.proposition_key
    )
    if fact.subject_entity_id:
        qs = qs.filter(subject_entity_id=fact.subject_entity_id)
    return qs.order_by("status", "-recorded_at").first()  # "accepted" sorts before the pending statuses


def build(fact: Fact, row=None, *, limits: bands.ThresholdCache | None = None) -> ReviewItem:
    evidence = list(fact.evidence.all())
    trust, details = _best(evidence)
    if trust is None and fact.is_reviewable():
        trust = fact.veracity
    item = ReviewItem(
        fact=fact,
        view=ledger_queries.fact_view(fact),
        evidence=evidence,
        trust=trust,
        components=dict(details.get("components") or {}),
        details=details,
    )
    if row is not None:
        item.zone, item.priority, item.conflict = row.zone, row.priority, row.conflict
    else:
        th = (limits or bands.ThresholdCache(fact.owner))(fact.source_label)
        item.zone = th.zone(trust)
        item.conflict = is_conflict(fact.status_reason) and fact.is_reviewable()
    if item.conflict:
        item.held = held_fact_for(fact)
        item.held_evidence = list(item.held.evidence.all()) if item.held else []
    return item


def cards_for(owner, pks: list[int], rows: dict | None = None) -> list[ReviewItem]:
    """Cards for these fact pks, in the given order (one query for facts, one for their evidence)."""
    if not pks:
        return []
    facts = {
        f.pk: f
        for f in Fact.objects.owned_by(owner)
        .filter(pk__in=pks)
        .defer("search", "token_hashes")
        .select_related("subject_entity")
        .prefetch_related(live_evidence())
    }
    limits = bands.ThresholdCache(owner)
    return [build(facts[pk], (rows or {}).get(pk), limits=limits) for pk in pks if pk in facts]


def card(owner, fact: Fact) -> ReviewItem:
    fresh = cards_for(owner, [fact.pk])
    return fresh[0]
