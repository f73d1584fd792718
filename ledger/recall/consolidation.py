"""Consolidation: the daily housekeeping of the memory layers. Never on the request path.

Passes, each reporting a count: decay (pinned facts and episodes, salience × exp(−Δdays/30)), merge of
near-duplicate episodes (Jaccard ≥ 0.9 over summary + topics, the older kept), promotion of facts that recur in
≥ 3 recent episodes into the pinned layer, eviction of pinned facts below 0.2 idle 30+ days, retention pruning
(episodes, transcripts via their provider; 0 = keep forever), orphaned vectors, old task logs.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ledger.models import Episode, Fact, PinnedFact
from ledger.recall.lexical import content_terms, jaccard, stem
from ledger.recall.models import ConsolidationRun, Embedding, Usage
from ledger.recall.providers import providers_for
from ledger.services import layers

DECAY_DAYS = 30.0
MERGE_JACCARD = 0.9
PROMOTE_MIN_EPISODES = 3
PROMOTE_WINDOW_DAYS = 30
PROMOTE_OVERLAP = 0.6  # share of a fact's content words an episode must contain to count as "overlapping"
EVICT_FLOOR = 0.2
EVICT_IDLE_DAYS = 30
TASK_LOG_DAYS = 30
MERGE_WINDOW = 2000  # most recent episodes compared pairwise (quadratic)


def decay_factor(days: float) -> float:
    return math.exp(-max(0.0, days) / DECAY_DAYS)


def _episode_terms(ep: Episode) -> set[str]:
    topics = " ".join(str(t) for t in (ep.topics or []))
    return _terms(f"{ep.summary} {topics}")


def _terms(text: str) -> set[str]:
    return {stem(w) for w in content_terms(text)}


def _previous_pass(owner) -> datetime | None:
    last = ConsolidationRun.objects.owned_by(owner).filter(status=ConsolidationRun.Status.OK).first()
    return last.finished_at if last else None


def decay(*, owner, now: datetime, since: datetime | None) -> int:
    """Decay salience by the time elapsed since the later of the previous pass and the item's last use.

    Bulk-updated here (not row by row through ledger.services.layers.update_pinned) because a user can hold 100k pins.
    """
    usage = dict(
        ((kind, ref), used)
        for kind, ref, used in Usage.objects.owned_by(owner)
        .filter(kind__in=["pinned", "episode"])
        .values_list("kind", "ref_id", "last_used_at")
    )
    changed = 0
    for model, kind in ((PinnedFact, "pinned"), (Episode, "episode")):
        batch = []
        fields = ["pk", "salience", "created_at"] + (["last_used_at"] if model is PinnedFact else [])
        for obj in model.objects.owned_by(owner).only(*fields).iterator(chunk_size=2000):
            last_used = getattr(obj, "last_used_at", None) or usage.get((kind, obj.pk))
            ref = max(d for d in (since, last_used, obj.created_at) if d is not None)
            new = round(obj.salience * decay_factor((now - ref).total_seconds() / 86400), 6)
            if new != obj.salience:
                obj.salience = new
                batch.append(obj)
        model.objects.bulk_update(batch, ["salience"], batch_size=1000)
        changed += len(batch)
    return changed


def merge_episodes(*, owner) -> int:
    """Delete the newer of any two episodes whose summary + topics overlap ≥ MERGE_JACCARD."""
    eps = list(Episode.objects.owned_by(owner).order_by("-created_at")[:MERGE_WINDOW])
    eps.sort(key=lambda e: (e.started_at or e.created_at, e.pk))  # oldest first: the first of a pair is kept
    terms = [_episode_terms(e) for e in eps]
    gone: set[int] = set()
    for i, older in enumerate(eps):
        if older.pk in gone or not terms[i]:
            continue
        for j in range(i + 1, len(eps)):
            newer = eps[j]
            if newer.pk not in gone and terms[j] and jaccard(terms[i], terms[j]) >= MERGE_JACCARD:
                if older.salience < newer.salience:
                    layers.update_episode(owner=owner, episode=older, salience=newer.salience)
                layers.delete_episode(owner=owner, episode=newer)
                gone.add(newer.pk)
    return len(gone)


def promote(*, owner, now: datetime) -> int:
    """Pin accepted facts whose content words recur in ≥ PROMOTE_MIN_EPISODES episodes of the last 30 days."""
    recent = [
        _episode_terms(e)
        for e in Episode.objects.owned_by(owner)
        .licensed_for("answers")
        .filter(
            Q(started_at__gte=now - timedelta(days=PROMOTE_WINDOW_DAYS))
            | Q(started_at__isnull=True, created_at__gte=now - timedelta(days=PROMOTE_WINDOW_DAYS))
        )
    ]
    if len(recent) < PROMOTE_MIN_EPISODES:
        return 0
    vocabulary = set().union(*recent)
    promoted = 0
    facts = Fact.objects.owned_by(owner).licensed_for("answers").filter(pins__isnull=True).only("pk", "content")
    for fact in facts.iterator(chunk_size=2000):
        words = _terms(fact.content)
        if len(words) < 2 or len(words & vocabulary) < PROMOTE_OVERLAP * len(words):
            continue
        hits = sum(1 for ep in recent if len(words & ep) >= PROMOTE_OVERLAP * len(words))
        if hits >= PROMOTE_MIN_EPISODES:
            layers.pin_fact(owner=owner, fact=fact, salience=0.6, source_count=hits, pinned_by="consolidation")
            promoted += 1
    return promoted


def evict(*, owner, now: datetime) -> int:
    cutoff = now - timedelta(days=EVICT_IDLE_DAYS)
    idle = (
        PinnedFact.objects.owned_by(owner)
        .filter(salience__lt=EVICT_FLOOR)
        .filter(Q(last_used_at__lt=cutoff) | Q(last_used_at__isnull=True, created_at__lt=cutoff))
    )
    count = 0
    for pinned in idle:
        layers.unpin_fact(owner=owner, pinned=pinned)
        count += 1
    return count


def prune(*, owner, now: datetime) -> dict[str, int]:
    """Retention per provider (days in settings; 0 = forever)."""
    out = {}
    for provider in providers_for("all"):
        days = int(getattr(settings, provider.retention_setting, 0) or 0) if provider.retention_setting else 0
        if days > 0:
            out[provider.kind] = provider.prune(owner, now - timedelta(days=days))
    return out


def drop_orphan_vectors(*, owner) -> int:
    """Vectors whose row is gone (forgotten, pruned, merged)."""
    dropped = 0
    for provider in providers_for("all"):
        existing = provider.queryset(owner).model.objects.filter(owner=owner).values("pk")
        stale = Embedding.objects.owned_by(owner).filter(kind=provider.kind).exclude(ref_id__in=existing)
        dropped += stale.delete()[0]
        Usage.objects.owned_by(owner).filter(kind=provider.kind).exclude(ref_id__in=existing).delete()
    return dropped


def purge_task_logs(*, now: datetime) -> int:
    """django-q2 keeps every finished task; drop those older than TASK_LOG_DAYS (not per user)."""
    from django_q.models import Task

    return Task.objects.filter(stopped__lt=now - timedelta(days=TASK_LOG_DAYS)).delete()[0]


def consolidate(
    *, owner, trigger: str = "schedule", now: datetime | None = None, purge_logs: bool = False
) -> ConsolidationRun:
    """Run every pass for ``owner``; the run row records the counts (or the failure, and re-raises)."""
    now = now or timezone.now()
    since = _previous_pass(owner)
    run = ConsolidationRun.objects.create(owner=owner, trigger=trigger[:20])
    try:
        counts: dict[str, int] = {}
        with transaction.atomic():
            counts["decayed"] = decay(owner=owner, now=now, since=since)
            counts["merged_episodes"] = merge_episodes(owner=owner)
            counts["promoted"] = promote(owner=owner, now=now)
            counts["evicted"] = evict(owner=owner, now=now)
            for kind, n in prune(owner=owner, now=now).items():
                counts[f"pruned_{kind}"] = n
            counts["orphan_vectors"] = drop_orphan_vectors(owner=owner)
        if purge_logs:
            counts["task_logs_purged"] = purge_task_logs(now=now)
    except Exception as exc:
        ConsolidationRun.objects.filter(pk=run.pk).update(
            status=ConsolidationRun.Status.FAILED, error=exc.__class__.__name__[:300], finished_at=timezone.now()
        )
        raise
    run.counts = counts
    run.status = ConsolidationRun.Status.OK
    run.finished_at = timezone.now()
    run.save(update_fields=["counts", "status", "finished_at"])
    return run
