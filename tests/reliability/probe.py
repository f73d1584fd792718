"""Run in a subprocess against a test's own PostgreSQL (``DATABASE_URL``): set a user up, or report what is stored.

    python -m tests.reliability.probe setup USERNAME BASE_URL API_KEY
    python -m tests.reliability.probe state USERNAME

Prints one JSON line (``setup``: the user's id and an API token). ``state`` is what the restart tests assert on: each stored day's counts, duplicates of
anything that has an idempotent key, sync runs and queued tasks left open, the chain's verification and whether
the projection equals a replay of the chain, and sessions or locks left behind in the server.
"""

from __future__ import annotations

import json
import sys

LEFT_BEHIND_SECONDS = 5


def setup(username: str, base_url: str, api_key: str) -> dict:
    from django.contrib.auth import get_user_model

    from accounts import services as accounts
    from wearables import services

    user = get_user_model().objects.create_user(username=username, password="reliability-pass-1")
    accounts.update_settings(user=user, display_name="Alice Example", timezone_name="UTC")
    services.update_source(
        owner=user, kind="limitless", enabled=True, base_url=base_url, credentials={"api_key": api_key}
    )
    _, token = accounts.create_token(owner=user, name="probe")
    return {"user": user.pk, "token": token}


def _duplicates(qs, *fields) -> int:
    from django.db.models import Count

    return qs.values(*fields).annotate(n=Count("pk")).filter(n__gt=1).count()


def _server_leftovers() -> dict:
    """Sessions and locks left behind. A live worker is briefly idle inside its own short transactions (the broker's
    dequeue, a pass's commit), so only what has stayed so for LEFT_BEHIND_SECONDS counts: what a dead process
    left never moves again."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FILTER (WHERE state LIKE 'idle in transaction%%' AND state_change < now() - "
            "make_interval(secs => %s)), count(*) FILTER (WHERE state = 'active' AND pid <> pg_backend_pid()) "
            "FROM pg_stat_activity WHERE datname = current_database()",
            [LEFT_BEHIND_SECONDS],
        )
        idle_in_tx, active = cursor.fetchone()
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
            "AND l.pid <> pg_backend_pid() AND a.state <> 'active' AND a.state_change < now() - "
            "make_interval(secs => %s)",
            [LEFT_BEHIND_SECONDS],
        )
        advisory = cursor.fetchone()[0]
    return {"idle_in_transaction": idle_in_tx, "other_active": active, "advisory_locks": advisory}


def state(username: str) -> dict:
    from django.contrib.auth import get_user_model
    from django_q.models import OrmQ, Task

    from distill.models import Claim
    from ledger import chain
    from ledger.models import Commit, Fact
    from wearables.models import Conversation, DayTranscript, SyncRun, Utterance

    user = get_user_model().objects.get(username=username)
    days = []
    for t in DayTranscript.objects.filter(owner=user).order_by("local_date"):
        indexes = list(Utterance.objects.filter(transcript=t).values_list("index", flat=True))
        days.append([t.local_date.isoformat(), t.conversations.count(), len(indexes), len(set(indexes))])
    facts = Fact.objects.filter(owner=user)
    return {
        "days": days,
        "duplicate_conversations": _duplicates(Conversation.objects.filter(owner=user), "transcript", "external_id"),
        "duplicate_claims": _duplicates(Claim.objects.filter(owner=user), "source_key", "day_key", "claim_hash"),
        "duplicate_active_facts": _duplicates(
            facts.filter(status__in=("accepted", "pending_review", "pending")), "content"
        ),
        "facts": sorted(facts.values_list("content", "status")),
        "claim_days": sorted(set(Claim.objects.filter(owner=user).values_list("day_key", flat=True))),
        "commits": Commit.objects.filter(owner=user).count(),
        "runs": sorted(SyncRun.objects.filter(owner=user).values_list("status", flat=True)),
        "run_errors": [
            e for errors in SyncRun.objects.filter(owner=user).values_list("errors", flat=True) for e in errors
        ],
        "queued_tasks": OrmQ.objects.count(),
        "failed_tasks": list(Task.objects.filter(success=False).values_list("func", "attempt_count")),
        "succeeded_tasks": Task.objects.filter(success=True).count(),
        "chain_ok": chain.verify(user).ok,
        "projection_equals_replay": chain.rebuild(user, write=False).identical_before,
        **_server_leftovers(),
    }


def main(argv: list[str]) -> None:
    import django

    django.setup()
    action, *args = argv
    out = {"setup": setup, "state": state}[action](*args)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
