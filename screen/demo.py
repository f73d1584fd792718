"""Demo (``make up``): a ScreenPipe imitation with a few days of varied scripted work, and the demo user's source.

Days (owner-local): an install that breaks and is fixed, writing, two evenings of ranked matches, a kiln fault
that is fixed, a purchase, a morning of writing today. Frames after "now" appear as time passes, so the
10-minute schedule keeps finding new work while the demo runs.
"""

from __future__ import annotations

from django.utils import timezone

from accounts.services import user_timezone
from screen import services
from screen.imitation import ScreenPipeImitation
from screen.imitation.scripts import demo_session
from screen.services import curate

DEMO_PREFERENCES = ["track all ranked matches", "do not retain shopping research"]


def start(user, first_run: bool, stdout) -> list:
    tz = user_timezone(user)
    today = timezone.now().astimezone(tz).date()
    server = ScreenPipeImitation(demo_session(today, tz)).start()
    services.update_source(owner=user, enabled=True, base_url=server.base_url, backfill_days=4)
    stdout.write(f"Demo screen: ScreenPipe imitation on {server.base_url}")
    if first_run:
        for phrase in DEMO_PREFERENCES:
            services.add_preference(owner=user, text=phrase)
        run = services.run_collect(owner=user, trigger="demo")
        curated = sum(1 for r in curate.curate_pending(owner=user) if r.outcome == "curated")
        stdout.write(f"  screen: {run.status}, {run.signals} signals, {run.events_created} events, {curated} curated")
    return [server]
