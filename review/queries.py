"""Review reads: the prioritised queue over every pending memory, the budget, the four bands and the stats.

The queue is ordered by importance × trust uncertainty × recency over the whole queue (``review.bands``); the
daily budget then decides how many of the best are surfaced today. Everything is scoped to one owner.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform
from django.utils import timezone

from accounts.services import user_timezone
from ledger import permitted_uses
from ledger import queries as ledger_queries
from ledger.models import Commit, CommitRef, Evidence, Fact, Status
from review import bands
from review.cards import CONFLICT_REASONS, cards_for, is_conflict
from review.models import DEFAULT_DAILY_BUDGET, ReviewAction, ReviewPreference

REVIEWABLE = [Status.PENDING_REVIEW, Status.PENDING]
SNOOZE_PREFIX = "snoozed-until:"
TIMEOUT_REASONS = ("accepted-by-timeout", "dropped-by-timeout")
RECENT = timedelta(days=7)
PAGE_SIZE = 50


class Band:
    QUEUE = "queue"
    CONFLICTS = "conflicts"
    AUTO_ACCEPTED = "auto_accepted"
    DROPPED = "dropped"
    ALL = (QUEUE, CONFLICTS, AUTO_ACCEPTED, DROPPED)
    LABELS = {
        QUEUE: "Queue",
        CONFLICTS: "Conflicts",
        AUTO_ACCEPTED: "Recently auto-accepted",
        DROPPED: "Recently dropped",
    }


# --- time ----------------------------------------------------------------------------------------------
def today_start(owner, now: datetime | None = None) -> datetime:
    """Midnight of the owner's local day, as an aware datetime."""
    local = (now or timezone.now()).astimezone(user_timezone(owner))
    return local.replace(hour=0, minute=0, second=0, microsecond=0)


def local_today(owner, now: datetime | None = None) -> date:
    return today_start(owner, now).date()


def snoozed_until(status_reason: str) -> date | None:
    if not (status_reason or "").startswith(SNOOZE_PREFIX):
        return None
    try:
        return date.fromisoformat(status_reason[len(SNOOZE_PREFIX) :])
    except ValueError:
        return None


# --- the queue plan --------------------------------------------------------------------------------------
def _best_trust(owner) -> dict[int, float]:
    """The best gate trust score among each pending fact's live evidence, in one joined query (a correlated
    subquery per fact cost ~45 ms at 1,000 items)."""
    rows = (
        Evidence.objects.owned_by(owner)
        .filter(fact__status__in=REVIEWABLE, tombstoned_at__isnull=True)
        .annotate(t=KeyTextTransform("trust_score", "details"))
        .exclude(t__isnull=True)
        .order_by()
        .values_list("fact_id", "t")
    )
    best: dict[int, float] = {}
    for fact_id, raw in rows:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            continue
        if value > best.get(fact_id, -1.0):
            best[fact_id] = value
    return best


@dataclass
class Row:
    """One pending memory as the planner sees it (no content, no evidence: cheap for thousands)."""

    pk: int
    public_id: str
    importance: str
    trust: float | None
    recorded_at: datetime
    source_label: str
    status_reason: str
    subject_kind: str
    subject_entity: str | None
    conflict: bool = False
    zone: str = "unscored"
    priority: float = 0.0

    @property
    def sort_key(self) -> tuple:
        return (-self.priority, self.public_id)


@dataclass
class QueuePlan:
    rows: list[Row]  # every pending, not snoozed, best first
    surfaced: set[str]  # public ids the budget lets through today
    budget: int
    decided_today: int
    snoozed: int
    now: datetime
    today_start: datetime

    @property
    def remaining(self) -> int:
        return max(self.budget - self.decided_today, 0)

    @property
    def held_back(self) -> int:
        return len(self.rows) - len(self.surfaced)


def daily_budget(owner) -> int:
    pref = ReviewPreference.objects.owned_by(owner).first()
    return pref.daily_budget if pref else DEFAULT_DAILY_BUDGET


def decided_today(owner, start: datetime) -> int:
    """Facts a person decided since ``start`` (accept, reject, edit, merge), undone actions not counted."""
    return (
        ReviewAction.objects.owned_by(owner)
        .filter(kind__in=ReviewAction.DECISIONS, created_at__gte=start, undone_at__isnull=True)
        .values("fact_public_id")
        .distinct()
        .count()
    )


def queue_plan(owner, *, now: datetime | None = None) -> QueuePlan:
    """Every pending memory of ``owner`` ordered by priority, and which of them today's budget surfaces."""
    now = now or timezone.now()
    limits = bands.ThresholdCache(owner)
    start = today_start(owner, now)
    today = start.date()
    values = (
        Fact.objects.owned_by(owner)
        .filter(status__in=REVIEWABLE)
        .values_list(
            "pk",
            "public_id",
            "importance",
            "veracity",
            "recorded_at",
            "source_label",
            "status_reason",
            "subject_kind",
            "subject_entity__public_id",
        )
        .order_by()
    )
    best = _best_trust(owner)
    rows, snoozed = [], 0
    for pk, pid, importance, veracity, recorded_at, label, reason, skind, sentity in values:
        trust = best.get(pk, veracity)
        until = snoozed_until(reason)
        if until is not None and until > today:
            snoozed += 1
            continue
        row = Row(pk, str(pid), importance, trust, recorded_at, label, reason, skind, str(sentity) if sentity else None)
        row.conflict = is_conflict(reason)
        th = limits(label)
        row.zone = th.zone(trust)
        row.priority = bands.priority(
            importance=importance, trust=trust, limits=th, recorded_at=recorded_at, now=now, conflict=row.conflict
        )
        rows.append(row)
    rows.sort(key=lambda r: r.sort_key)
    budget = daily_budget(owner)
    done = decided_today(owner, start)
    plan = QueuePlan(
        rows=rows, surfaced=set(), budget=budget, decided_today=done, snoozed=snoozed, now=now, today_start=start
    )
    plan.surfaced = {r.public_id for r in rows[: plan.remaining]}
    return plan


def _matches(row: Row, source: str | None, subject: str | None) -> bool:
    if source and row.source_label != source:
        return False
    if subject:
        if subject in ("user", "unknown", "third_party"):
            return row.subject_kind == subject
        return row.subject_entity == subject
    return True


# --- cursors ---------------------------------------------------------------------------------------------
def encode_cursor(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> dict:
    if not cursor:
        return {}
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (ValueError, json.JSONDecodeError) as exc:
        from accounts.exceptions import DomainError

        raise DomainError("cursor is not valid") from exc
    return data if isinstance(data, dict) else {}


def _cursor_time(value) -> datetime:
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        from accounts.exceptions import DomainError

        raise DomainError("cursor is not valid") from None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


# --- bands -----------------------------------------------------------------------------------------------
@dataclass
class BandPage:
    band: str
    items: list  # ReviewItem
    total: int  # items of the band matching the filters (surfaced only for queue/conflicts unless show_all)
    next_cursor: str | None
    plan: QueuePlan | None = None


def pending_rows(plan: QueuePlan, band: str, source, subject, show_all: bool) -> list[Row]:
    want_conflict = band == Band.CONFLICTS
    return [
        r
        for r in plan.rows
        if r.conflict == want_conflict and (show_all or r.public_id in plan.surfaced) and _matches(r, source, subject)
    ]


def touched_by_person() -> Exists:
    """A commit by a reviewer or the user mutated this fact (so it was not accepted by the gate alone)."""
    return Exists(
        CommitRef.objects.filter(
            object_id=OuterRef("public_id"),
            commit__owner=OuterRef("owner"),
            commit__author__in=[Commit.Author.REVIEWER, Commit.Author.USER],
        )
    )


def in_band(band: str, since: datetime) -> Q:
    """The facts of ``band`` as one filter: every claim waiting for a person, in the Conflicts band or the queue
    (before the daily budget), or what the gate accepted without a person / dropped since ``since``. The pages, the
    counts and the admin's filter all read the bands from here."""
    conflict = Q(status_reason__in=CONFLICT_REASONS)
    if band == Band.QUEUE:
        return Q(status__in=REVIEWABLE) & ~conflict
    if band == Band.CONFLICTS:
        return Q(status__in=REVIEWABLE) & conflict
    if band == Band.AUTO_ACCEPTED:
        return Q(status=Status.ACCEPTED, updated_at__gte=since) & ~touched_by_person()
    if band == Band.DROPPED:
        return Q(status=Status.DROPPED, updated_at__gte=since)
    raise ValueError(f"unknown band {band!r}")


def recent_band_qs(owner, band: str, *, now: datetime | None = None, source=None, subject=None):
    """Accepted without a person (gate or timeout) / dropped, in the last seven days, newest first."""
    qs = Fact.objects.owned_by(owner).filter(in_band(band, (now or timezone.now()) - RECENT))
    if source:
        qs = qs.filter(source_label=source)
    if subject in ("user", "unknown", "third_party"):
        qs = qs.filter(subject_kind=subject)
    elif subject:
        qs = qs.filter(subject_entity__public_id=subject) if is_uuid(subject) else qs.none()
    return qs.order_by("-updated_at", "-public_id")


def is_uuid(value: str) -> bool:
    """Whether ``value`` spells a UUID (a public id from a URL or a form, before it reaches a query)."""
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def band_page(
    owner,
    band: str,
    *,
    source: str | None = None,
    subject: str | None = None,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
    show_all: bool = False,
    plan: QueuePlan | None = None,
) -> BandPage:
    """One page of a band. Queue/conflict pages walk the priority order; the others walk newest first."""
    limit = max(1, min(limit, 200))
    state = decode_cursor(cursor)
    if band in (Band.QUEUE, Band.CONFLICTS):
        if state.get("n"):
            # Priorities depend on "now" (recency): a cursor pins the moment its first page was computed.
            plan = queue_plan(owner, now=_cursor_time(state["n"]))
        plan = plan or queue_plan(owner)
        rows = pending_rows(plan, band, source, subject, show_all)
        total = len(rows)
        if state:
            after = (-float(state.get("p", 0)), str(state.get("id", "")))
            rows = [r for r in rows if r.sort_key > after]
        page = rows[:limit]
        nxt = None
        if len(rows) > limit:
            nxt = encode_cursor({"p": page[-1].priority, "id": page[-1].public_id, "n": plan.now.isoformat()})
        items = cards_for(owner, [r.pk for r in page], rows={r.pk: r for r in page})
        return BandPage(band, items, total, nxt, plan)
    qs = recent_band_qs(owner, band, source=source, subject=subject)
    total = qs.count()
    if state:
        at = _cursor_time(state.get("t"))
        qs = qs.filter(Q(updated_at__lt=at) | Q(updated_at=at, public_id__lt=state["id"]))
    facts = list(qs.values_list("pk", "updated_at", "public_id")[: limit + 1])
    nxt = None
    if len(facts) > limit:
        facts = facts[:limit]
        nxt = encode_cursor({"t": facts[-1][1].isoformat(), "id": str(facts[-1][2])})
    return BandPage(band, cards_for(owner, [f[0] for f in facts]), total, nxt, plan)


def band_counts(owner, plan: QueuePlan, recent: dict | None = None) -> dict[str, int]:
    surfaced = [r for r in plan.rows if r.public_id in plan.surfaced]
    recent = recent if recent is not None else _fact_counts(owner, plan)
    return {
        Band.QUEUE: sum(1 for r in surfaced if not r.conflict),
        Band.CONFLICTS: sum(1 for r in surfaced if r.conflict),
        Band.AUTO_ACCEPTED: recent["auto_accepted"],
        Band.DROPPED: recent["dropped"],
    }


def _fact_counts(owner, plan: QueuePlan) -> dict[str, int]:
    """Every fact count the page shows, in one aggregate query over the owner's facts."""
    week = plan.now - RECENT
    timeout = Q(status_reason__in=TIMEOUT_REASONS)
    return Fact.objects.owned_by(owner).aggregate(
        new_today=Count("pk", filter=Q(recorded_at__gte=plan.today_start, status__in=permitted_uses.ACTIVE_STATUSES)),
        timeout_today=Count("pk", filter=timeout & Q(updated_at__gte=plan.today_start)),
        timeout_week=Count("pk", filter=timeout & Q(updated_at__gte=week)),
        dropped=Count("pk", filter=in_band(Band.DROPPED, week)),
        auto_accepted=Count("pk", filter=in_band(Band.AUTO_ACCEPTED, week)),
    )


# --- counts, filters, stats ----------------------------------------------------------------------------
def queue_size(*, owner) -> int:
    """What needs the person today: pending memories the budget surfaces (the nav badge)."""
    return len(queue_plan(owner).surfaced)


def queue_sources(*, owner) -> list[str]:
    """Distinct sources with something pending (``order_by()`` drops the default ordering from DISTINCT)."""
    labels = (
        Fact.objects.owned_by(owner)
        .filter(status__in=REVIEWABLE)
        .exclude(source_label="")
        .order_by()
        .values_list("source_label", flat=True)
        .distinct()
    )
    return sorted(labels)


def queue_subjects(*, owner) -> list[tuple[str, str]]:
    """(value, label) pairs for the subject filter: you, unknown, and each person with something pending."""
    rows = (
        Fact.objects.owned_by(owner)
        .filter(status__in=REVIEWABLE)
        .order_by()
        .values_list("subject_kind", "subject_entity__public_id", "subject_entity__name")
        .distinct()
    )
    out: dict[str, str] = {}
    for kind, entity, name in rows:
        if kind == "third_party" and entity:
            out[str(entity)] = name
        elif kind == "user":
            out["user"] = "you"
        elif kind == "unknown":
            out["unknown"] = "unknown"
    return sorted(out.items(), key=lambda kv: (kv[0] not in ("user", "unknown"), kv[1].lower()))


def refused_this_week(owner, now: datetime | None = None) -> list:
    """Re-extractions a lasting refusal kept out in the last seven days (``ledger.queries.RefusalEvent``s)."""
    return ledger_queries.refusal_events(owner=owner, since=(now or timezone.now()) - RECENT, limit=200)


def refused_this_week_count(owner, now: datetime | None = None) -> int:
    return ledger_queries.refusal_event_count(owner=owner, since=(now or timezone.now()) - RECENT)


@dataclass
class Stats:
    """The Review page's numbers. Also the API's answer (``review.schemas.StatsOut`` is made from it)."""

    queue_size: int
    waiting: int
    held_back: int
    snoozed: int
    budget: int
    budget_used: int
    decided_today_by_person: int
    decided_today_by_timeout: int
    decided_this_week_by_timeout: int
    refused_this_week: int
    new_today: int
    by_band: dict[str, int]


def stats(owner, *, plan: QueuePlan | None = None, now: datetime | None = None) -> Stats:
    plan = plan or queue_plan(owner, now=now)
    counts = _fact_counts(owner, plan)
    return Stats(
        queue_size=len(plan.surfaced),
        waiting=len(plan.rows),
        held_back=plan.held_back,
        snoozed=plan.snoozed,
        budget=plan.budget,
        budget_used=min(plan.decided_today, plan.budget),
        decided_today_by_person=plan.decided_today,
        decided_today_by_timeout=counts["timeout_today"],
        decided_this_week_by_timeout=counts["timeout_week"],
        refused_this_week=refused_this_week_count(owner, plan.now),
        new_today=counts["new_today"],
        by_band=band_counts(owner, plan, counts),
    )


def digest(owner) -> dict:
    """The dashboard line: "12 new memories, 3 need you"."""
    plan = queue_plan(owner)
    new = (
        Fact.objects.owned_by(owner)
        .filter(recorded_at__gte=plan.today_start, status__in=permitted_uses.ACTIVE_STATUSES)
        .count()
    )
    return {"new_today": new, "need_you": len(plan.surfaced), "held_back": plan.held_back}
