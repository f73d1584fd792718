"""Demo (``make up``): three imitation servers with a week of fictional days, and the demo user's sources."""

from __future__ import annotations

from django.utils import timezone

from accounts.services import user_timezone
from wearables import services
from wearables.imitation import start_servers
from wearables.imitation.demo_data import build_demo_days, demo_bee_facts, demo_omi_memories


def start(user, first_run: bool, stdout) -> list:
    """Start the imitation servers for ``user``'s week, point the three sources at them (enabled, fake keys)
    and, on the first run, sync every demo day so transcripts exist immediately. Returns the server handles."""
    today = timezone.now().astimezone(user_timezone(user)).date()
    days = build_demo_days(today, timezone=str(user_timezone(user).key))
    servers = start_servers(days, bee_facts=demo_bee_facts(today), omi_memories=demo_omi_memories(today))
    for kind in ("limitless", "omi", "bee"):
        services.update_source(
            owner=user, kind=kind, enabled=True, base_url=servers.base_urls[kind], credentials=servers.credentials[kind]
        )
    stdout.write(f"Demo wearables: Limitless, Bee and Omi imitations on {', '.join(servers.base_urls.values())}")
    if first_run:
        dates = services.recent_dates(user, 7, end=today)
        runs = services.sync_enabled_sources(owner=user, dates=dates, trigger="demo")
        for run in runs:
            stdout.write(f"  {run.source.kind}: {run.status}, {run.days_changed} days, {run.utterances} utterances")
    return [servers]
