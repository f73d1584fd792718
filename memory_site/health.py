"""What /api/v1/health reports: the database, pgvector, the worker heartbeat and the task backlog."""

from __future__ import annotations

from django.core.cache import cache
from django.db import connection
from django.utils import timezone


def database_status() -> dict:
    try:
        with connection.cursor() as cur:
            cur.execute("SHOW server_version")
            pg_version = cur.fetchone()[0]
            cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cur.fetchone()
        return {"ok": True, "postgresql": pg_version, "pgvector": row[0] if row else None}
    except Exception as exc:  # the health check must answer even when the database does not
        return {"ok": False, "error": exc.__class__.__name__}


LAST_SEEN_KEY = "almanac:worker-last-seen"


def worker_status() -> dict:
    """The newest heartbeat of any django-q2 cluster.

    django-q2 keeps each cluster's stat in the shared cache for only a few seconds and refreshes it from its
    guard loop; on a busy machine it can lapse between refreshes. The newest heartbeat seen is remembered so
    a momentary lapse reads as "seen 4 s ago", not as "no worker".
    """
    try:
        from django_q.status import Stat

        stats = Stat.get_all()
    except Exception:
        stats = []
    newest = max((s.timestamp for s in stats), default=None)
    if newest is not None:
        cache.set(LAST_SEEN_KEY, newest, 24 * 3600)
    else:
        newest = cache.get(LAST_SEEN_KEY)
    if newest is None:
        return {"alive": False, "heartbeat_age_s": None, "clusters": 0}
    age = (timezone.now() - newest).total_seconds()
    return {"alive": age < 60, "heartbeat_age_s": round(age, 1), "clusters": len(stats)}


def task_status() -> dict:
    try:
        from django_q.models import OrmQ

        return {"pending": OrmQ.objects.count()}
    except Exception:
        return {"pending": None}


def health() -> dict:
    db = database_status()
    return {
        "status": "ok" if db["ok"] else "degraded",
        "database": db,
        "worker": worker_status(),
        "tasks": task_status() if db["ok"] else {"pending": None},
    }
