from __future__ import annotations

from django_q.models import Schedule

from memory_site.schedules import SCHEDULES


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
