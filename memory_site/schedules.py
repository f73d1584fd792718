"""Every periodic job, declared once. ``manage.py sync_schedules`` upserts these rows by name.

This is the one place where dotted-path strings name task functions (R14).
"""

from __future__ import annotations

SCHEDULES: list[dict] = [
    # name, func, schedule_type (django_q Schedule constant name), minutes (for MINUTES)
    {"name": "system-heartbeat", "func": "memory_site.tasks.heartbeat", "schedule_type": "MINUTES", "minutes": 5},
]
