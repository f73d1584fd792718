"""A queue that stays small and worth answering: what the gate does with candidates below auto-accept.

    near-duplicates   a candidate that says what one of the owner's memories already says (same subject, most
                      of the same content words), from any turn, day or source, becomes more evidence on that
                      memory instead of a new item (``plan_merges``, written by ``distill.writing``)
    expected value    p × importance × novelty, novelty = 1 − how much of the claim the owner's accepted
                      memories about the same subject already cover (``expected_value``)
    daily budget      only the best ``room`` pending candidates of a day enter review; the rest are written as
                      ``dropped`` with their probability, rank and reason, rescuable from the Review page's
                      Dropped tab and never re-proposed by the same evidence (``apply_budget``)

The budget is the owner's Review page setting (``review`` registers ``hooks.register_review_budget``), counted
per owner-local day of talk (``Claim.day_key``) under an advisory lock, so two passes of one day cannot both
take the last place.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from distill import hooks, trust
from distill.models import Claim, Mode
from distill.writing import BUDGET_REASON, RESCUABLE, rescuable
from ledger import permitted_uses
from ledger.choices import Status
from ledger.models import Fact

NEAR_DUPLICATE = 0.75  # Jaccard of content words (subject names left out) for "the same claim"
MIN_SHARED = 2  # a one-word overlap is never a duplicate
INDEX_LIMIT = 5000  # newest memories compared per pass
GATE_DROPPED = (*RESCUABLE, BUDGET_REASON)
KNOWN_STATUSES = (Status.ACCEPTED, Status.PENDING_REVIEW, Status.PENDING, Status.DROPPED)


def subject_of(candidate) -> str:
    if candidate.attribution == "third_party" and candidate.person:
        return f"person:{candidate.person.strip().lower()}"
    return "user" if candidate.attribution == "user" else "unknown"


def _fact_subject(kind: str, name: str | None) -> str:
    if kind == "third_party" and name:
        return f"person:{name.strip().lower()}"
    return "user" if kind == "user" else "unknown"


@dataclass
class Known:
    """One of the owner's memories as the queue compares it (content words only)."""

    fact_id: int
    subject: str
    status: str
    tokens: frozenset[str]


@dataclass
class Index:
    """The owner's memories by subject, tokenised once per pass."""

    drop: set[str] = field(default_factory=set)
    by_subject: dict[str, list[Known]] = field(default_factory=dict)

    @classmethod
    def load(cls, owner, *, names: list[str] = ()) -> Index:
        drop = {trust._stem(w.lower()) for n in names for w in (n or "").split() if w}
        index = cls(drop=drop)
        rows = (
            Fact.objects.owned_by(owner)
            .filter(status__in=KNOWN_STATUSES)
            .exclude(status=Status.DROPPED, status_reason="")
            .order_by("-recorded_at")
            .values_list("pk", "status", "status_reason", "content", "subject_kind", "subject_entity__name")
        )
        for pk, status, reason, content, kind, name in rows[:INDEX_LIMIT]:
            if status == Status.DROPPED and not (reason or "").startswith(GATE_DROPPED):
                continue  # dropped by a person or a timeout: the ledger's refusals decide those
            index.add(pk, _fact_subject(kind, name), status, content)
        return index

    def tokens(self, text: str, person: str = "") -> frozenset[str]:
        extra = {trust._stem(w.lower()) for w in (person or "").split() if w}
        return frozenset(trust.claim_tokens(text, drop=self.drop | extra))

    def add(self, fact_id: int, subject: str, status: str, content: str) -> Known:
        person = subject.partition(":")[2] if subject.startswith("person:") else ""
        known = Known(fact_id, subject, status, self.tokens(content, person))
        self.by_subject.setdefault(subject, []).append(known)
        return known

    def near_duplicate(self, candidate) -> Known | None:
        """The memory (same subject) that shares the most of this claim's words, when it is the same claim."""
        mine = self.tokens(candidate.content, candidate.person)
        best, best_sim = None, 0.0
        for known in self.by_subject.get(subject_of(candidate), ()):
            sim = similarity(mine, known.tokens)
            if sim > best_sim:
                best, best_sim = known, sim
        return best if best is not None and best_sim >= NEAR_DUPLICATE else None

    def novelty(self, candidate) -> float:
        """1 − the largest share of the claim's words one accepted memory about the same subject holds."""
        mine = self.tokens(candidate.content, candidate.person)
        if not mine:
            return 0.0
        covered = max(
            (
                len(mine & k.tokens) / len(mine)
                for k in self.by_subject.get(subject_of(candidate), ())
                if k.status == Status.ACCEPTED
            ),
            default=0.0,
        )
        return round(max(1.0 - covered, 0.05), 4)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    shared = len(a & b)
    if shared < MIN_SHARED:
        return 1.0 if a and a == b else 0.0
    return shared / len(a | b)


def expected_value(scored: trust.Scored, novelty: float) -> float:
    weight = permitted_uses.IMPORTANCE_WEIGHT.get(scored.candidate.importance, 0.5)
    return round(scored.score * weight * novelty, 6)


# --- planning a pass (pure given the index) -----------------------------------------------------------
WRITTEN = (trust.ACCEPTED, trust.PENDING)


def _would_write(scored: trust.Scored) -> bool:
    return scored.decision in WRITTEN or rescuable(scored)


def plan_merges(scored_items: list[trust.Scored], index: Index, *, existing: dict) -> dict[int, object]:
    """Which candidates become evidence on an item instead of new items: ``{id(scored): Known | Scored}``
    (a stored memory, or the first candidate of this pass saying the same). Re-runs of a scope (``existing``,
    by claim hash) are left to ``writing.rescore``."""
    merges: dict[int, object] = {}
    leaders: list[tuple[frozenset[str], str, trust.Scored]] = []
    for scored in scored_items:
        cand = scored.candidate
        if cand.content_hash in existing or not _would_write(scored):
            continue
        known = index.near_duplicate(cand)
        if known is not None:
            merges[id(scored)] = known
            continue
        mine, subject = index.tokens(cand.content, cand.person), subject_of(cand)
        leader = next((s for t, subj, s in leaders if subj == subject and similarity(mine, t) >= NEAR_DUPLICATE), None)
        if leader is not None:
            merges[id(scored)] = leader
            if _rank(scored.decision) > _rank(leader.decision):  # the leader takes the stronger decision
                leader.decision, leader.reason = scored.decision, scored.reason
        else:
            leaders.append((mine, subject, scored))
    return merges


def _rank(decision: str) -> int:
    return {trust.ACCEPTED: 2, trust.PENDING: 1}.get(decision, 0)


def apply_budget(
    scored_items: list[trust.Scored], *, room: int, index: Index, skip: set[int] = frozenset()
) -> list[trust.Scored]:
    """Rank the pass's new pending candidates by expected value; the best ``room`` stay pending, the rest are
    dropped with their probability, rank and reason. ``skip``: ids of candidates that are not new items."""
    pending = [s for s in scored_items if s.decision == trust.PENDING and id(s) not in skip]
    for scored in pending:
        novelty = index.novelty(scored.candidate)
        scored.components["novelty"] = novelty
        scored.components["expected_value"] = expected_value(scored, novelty)
    ranked = sorted(pending, key=lambda s: (-s.components["expected_value"], -s.score, s.candidate.content_hash))
    for rank, scored in enumerate(ranked, start=1):
        scored.components["queue_rank"] = rank
        if rank > room:
            scored.decision = trust.DROPPED
            scored.reason = (
                f"{BUDGET_REASON}: rank {rank} of {len(ranked)}, p {scored.score:.2f}, "
                f"value {scored.components['expected_value']:.3f}"
            )
    return ranked


# --- the budget (database) -------------------------------------------------------------------------------
def daily_budget(owner) -> int:
    return hooks.review_budget(owner)


def lock_budget(owner, day_key: str) -> None:
    """One budget count per (owner, day) at a time: passes of different scopes of one day race for places."""
    digest = hashlib.sha256(f"distill-budget:{owner.pk}:{day_key}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)])


def queued_for_day(owner, day_key: str) -> int:
    """Items the gate has put into review for this day of talk (undated claims: those queued today)."""
    claims = Claim.objects.owned_by(owner).filter(queued=True, day_key=day_key)
    if not day_key:
        claims = claims.filter(created_at__gte=timezone.now() - timedelta(days=1))
    return claims.values("fact_id").distinct().count()


def review_room(owner, day_key: str) -> int:
    """Places left in the day's review budget. Call inside the write transaction (takes the budget lock)."""
    lock_budget(owner, day_key)
    return max(daily_budget(owner) - queued_for_day(owner, day_key), 0)


def plan_pass(owner, ctx, scored_items: list[trust.Scored], *, policy: trust.Policy, names: list[str]) -> None:
    """Under the pass's write lock, before ``writing.write``: near-duplicates become merges (``ctx.merges``),
    then, in smart mode, the day's review budget keeps the best new pending candidates and drops the rest."""
    index = Index.load(owner, names=names)
    ctx.merges = plan_merges(scored_items, index, existing=ctx.existing)
    if policy.mode != Mode.SMART:
        return  # review mode asks about everything; auto and off queue nothing
    rerun = {id(s) for s in scored_items if s.candidate.content_hash in ctx.existing}
    # New evidence for a claim the gate dropped earlier competes for today's places like a new claim; evidence
    # for an item that waits or is accepted takes none.
    merged = {k for k, target in ctx.merges.items() if not (isinstance(target, Known) and target.status == Status.DROPPED)}
    apply_budget(scored_items, room=review_room(owner, ctx.day_key), index=index, skip=merged | rerun)
