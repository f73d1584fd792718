"""What /api/v1/health reports: the database, pgvector, the worker heartbeat and the task backlog."""

from __future__ import annotations

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


def worker_status() -> dict:
    """The newest heartbeat of any django-q2 cluster (kept in the shared database cache)."""
    try:
        from django_q.status import Stat

        stats = Stat.get_all()
    except Exception:
        stats = []
    if not stats:
        return {"alive": False, "heartbeat_age_s": None, "clusters": 0}
    newest = max(s.timestamp for s in stats)
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
