"""What the dashboard shows: a few counts from each area, owner-scoped, in a handful of queries."""

from __future__ import annotations

from ledger import queries as ledger_queries
from ledger.models import Status
from review import queries as review_queries
from wearables.models import DayTranscript, Source, SyncRun


def summary(user) -> dict:
    counts = ledger_queries.pending_counts(owner=user)
    digest = review_queries.digest(user)  # "12 new memories, 3 need you"
    sources = list(Source.objects.owned_by(user).order_by("kind"))
    last_runs = {}
    for run in SyncRun.objects.owned_by(user).order_by("source_id", "-started_at").distinct("source_id"):
        last_runs[run.source_id] = run
    return {
        "memories_accepted": counts.get(Status.ACCEPTED, 0),
        "memories_waiting": digest["need_you"],
        "review_digest": digest,
        "memories_rejected": counts.get(Status.REJECTED, 0),
        "transcript_days": DayTranscript.objects.owned_by(user).count(),
        "sources": [{"source": s, "last_run": last_runs.get(s.pk)} for s in sources],
    }
