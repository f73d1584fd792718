"""Screen fixtures: scripted ScreenPipe sessions served by the local imitation, and a collect helper."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from screen.collector.client import ScreenPipeClient
from screen.imitation import ScreenPipeImitation, build, scripts

DAY = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)


def serve(segments, *, start=DAY, first_id=1, now=None):
    session = build(start, segments, first_id=first_id)
    return ScreenPipeImitation(session, now=now or session.end + timedelta(minutes=1)).start()


@pytest.fixture
def game_server():
    """The game session (lobby, defeat, lobby, victory, dev work) on a free loopback port."""
    server = serve(scripts.game_segments())
    yield server
    server.stop()


@pytest.fixture
def screen_client():
    """A factory of ScreenPipe clients with no retry backoff (closed after the test)."""
    made = []

    def make(server):
        client = ScreenPipeClient(server.base_url, backoff=0.0, timeout=10)
        made.append(client)
        return client

    yield make
    for c in made:
        c.close()


def run_collect(user, server, client, now=None, **kw):
    from screen import services

    services.update_source(owner=user, base_url=server.base_url, backfill_days=kw.pop("backfill_days", 2))
    source = services.get_source(user)
    from screen.services.collect import collect

    return collect(source=source, client=client, now=now or server.now, **kw)


def collected_events(user, screen_client, segments):
    """The visible events, oldest first, after ``segments`` are served and collected once after their end."""
    from screen.models import ScreenEvent

    server = serve(segments)
    try:
        run_collect(user, server, screen_client(server), now=server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    return list(ScreenEvent.objects.filter(owner=user).visible().order_by("started_at"))
