"""Every periodic job, declared once, and ``sync_schedules`` that upserts them as django-q2 ``Schedule`` rows by
name (run by ``manage.py sync_schedules`` and ``manage.py up``).

This is the one place where dotted-path strings name task functions (R14).
"""

from __future__ import annotations

from django_q.models import Schedule

SCHEDULES: list[dict] = [
    # name, func, schedule_type (django_q Schedule constant name), minutes (for MINUTES)
    {"name": "system-heartbeat", "func": "memory_site.tasks.heartbeat", "schedule_type": "MINUTES", "minutes": 5},
    # wearables: re-sync the last 2 local days of enabled sources; once a local day (03:00) a 7-day deep pass.
    {"name": "wearables-sync-recent", "func": "wearables.tasks.sync_recent", "schedule_type": "MINUTES", "minutes": 15},
    {"name": "wearables-deep-sync", "func": "wearables.tasks.deep_sync_due", "schedule_type": "HOURLY"},
    # ledger: decide pending memories nobody reviewed within ALMANAC_LEDGER_PENDING_TIMEOUT_DAYS (counted).
    {"name": "ledger-timeout-decisions", "func": "ledger.tasks.decide_timeouts", "schedule_type": "DAILY"},
    # recall: daily consolidation (decay, merge, promote, evict, retention, task-log purge); lazy (re-)embedding
    # of new rows and of everything after the embedding space changed.
    {"name": "recall-consolidate", "func": "ledger.recall.tasks.consolidate_all", "schedule_type": "DAILY"},
    # screen: pull ScreenPipe since each enabled source's cursor, propose/revise events, then curate them.
    {"name": "screen-collect", "func": "screen.tasks.collect_all", "schedule_type": "MINUTES", "minutes": 10},
    {"name": "recall-reembed", "func": "ledger.recall.tasks.reembed_all", "schedule_type": "MINUTES", "minutes": 10},
    # chats: distil sessions whose idle/retry time has come (also after a restart, or once a model appears);
    # nightly sleep over lessons (decay, merge, consolidate, predictions) and the morning report.
    {"name": "chats-drain-due", "func": "chats.tasks.drain_due", "schedule_type": "MINUTES", "minutes": 1},
    {"name": "chats-sleep", "func": "chats.tasks.sleep_all", "schedule_type": "DAILY"},
    # distill: refit each owner's learned gate adjustment from their review decisions (floor + precision guard).
    {"name": "distill-refit-adjustments", "func": "distill.tasks.refit_adjustments", "schedule_type": "DAILY"},
]


def sync_schedules() -> tuple[int, int]:
    """Upsert the declared schedules by name; returns (created, updated)."""
    created = updated = 0
    for spec in SCHEDULES:
        defaults = {
            "func": spec["func"],
            "schedule_type": getattr(Schedule, spec.get("schedule_type", "MINUTES")),
            "minutes": spec.get("minutes"),
            "cron": spec.get("cron"),
            "repeats": -1,
        }
        _, was_created = Schedule.objects.update_or_create(name=spec["name"], defaults=defaults)
        created += was_created
        updated += not was_created
    return created, updated
