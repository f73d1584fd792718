"""Restart mid-session: no signal lost, no event duplicated; cursor reconciliation counts gaps."""

from __future__ import annotations

from datetime import timedelta

import pytest

from screen.imitation import build, scripts
from screen.models import ScreenEvent, ScreenSource, Signal
from screen.services import collect as collect_module
from tests.factories import UserFactory
from tests.screen.conftest import DAY, run_collect, serve

pytestmark = pytest.mark.django_db


def _fingerprint(user):
    signals = sorted(Signal.objects.filter(owner=user).values_list("key", flat=True))
    events = sorted(ScreenEvent.objects.filter(owner=user).values_list("event_type", "outcome", "started_at"))
    return signals, events


def test_restart_mid_session_loses_no_signal_and_duplicates_no_event(user, game_server, screen_client, monkeypatch):
    reference = UserFactory(username="reference")
    run_collect(reference, game_server, screen_client(game_server))

    end = game_server.now
    game_server.now = DAY + timedelta(minutes=20)  # the first match is still being played
    run_collect(user, game_server, screen_client(game_server), now=game_server.now)
    # The next collect crashes after committing a window's signals, before proposing events from them.
    game_server.now = DAY + timedelta(minutes=45)  # the second match is on
    calls = {"n": 0}
    real = collect_module.propose

    def crash_once(**kw):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("worker killed")
        return real(**kw)

    monkeypatch.setattr(collect_module, "propose", crash_once)
    with pytest.raises(RuntimeError):
        run_collect(user, game_server, screen_client(game_server), now=game_server.now)
    assert Signal.objects.filter(owner=user, processed=False).exists()
    game_server.now = end
    run_collect(user, game_server, screen_client(game_server), now=end)
    run_collect(user, game_server, screen_client(game_server), now=end)  # nothing new: nothing changes

    assert _fingerprint(user) == _fingerprint(reference)
    assert ScreenEvent.objects.filter(owner=user, event_type="game.match").count() == 2
    assert not Signal.objects.filter(owner=user, processed=False).exists()


def test_missing_frames_count_as_gaps_on_the_source(user, screen_client):
    seg = scripts.Segment
    server = serve(
        [
            seg(app="Notes", window="Plan", text="Plan\nstep {n}", seconds=60, skip_ids=12),
            seg(app="Notes", window="Plan", text="Plan\nstep {n}\nmore", seconds=60),
        ]
    )
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    source = ScreenSource.objects.get(owner=user)
    assert source.gaps == 1 and source.missing_frames == 12
    gap = Signal.objects.get(owner=user, kind=Signal.Kind.SOURCE_GAP)
    assert gap.data["missing"] == 12 and gap.before_frame is not None and gap.after_frame == gap.before_frame + 13


def test_a_source_reset_is_reconciled_as_a_restart(user, screen_client):
    seg = scripts.Segment
    first = build(DAY, [seg(app="Notes", window="Plan", text="Plan\nstep {n}", seconds=120)], first_id=500)
    server = serve([seg(app="Notes", window="Plan", text="Plan\nstep {n}", seconds=120)], first_id=500)
    try:
        run_collect(user, server, screen_client(server))
        # ScreenPipe's database was wiped: new ids from 1, nothing at the cursor, newest frame before it.
        server.replace_session(
            build(DAY - timedelta(hours=1), [seg(app="Mail", window="Inbox", text="Inbox", seconds=60)])
        )
        run_collect(user, server, screen_client(server), now=first.end + timedelta(minutes=5))
    finally:
        server.stop()
    source = ScreenSource.objects.get(owner=user)
    assert source.restarts == 1 and source.missing_frames == 1
    assert Signal.objects.filter(owner=user, kind=Signal.Kind.SOURCE_RESTART).count() == 1


def test_idle_and_resume_are_signals_with_frame_pointers(user, screen_client):
    seg = scripts.Segment
    server = serve(
        [
            seg(app="Notes", window="Plan", text="Plan\nstep one", seconds=30, pause=900),
            seg(app="Notes", window="Plan", text="Plan\nstep one\nstep two", seconds=30),
        ]
    )
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    idle = Signal.objects.get(owner=user, kind=Signal.Kind.IDLE)
    resume = Signal.objects.get(owner=user, kind=Signal.Kind.RESUME)
    assert resume.before_frame == idle.before_frame and resume.after_frame == idle.before_frame + 1
    assert resume.data["seconds"] >= 900


def test_a_second_concurrent_collect_of_the_same_source_steps_aside(user, game_server, screen_client):
    from django.db import connections

    from screen import services
    from screen.services.collect import LOCK_NAMESPACE, collect

    source = services.get_source(user)
    other = connections.create_connection("default")  # another session, like a worker running a collect
    try:
        with other.cursor() as cur:
            cur.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, source.pk])
        run = collect(source=source, client=screen_client(game_server), now=game_server.now)
        assert run.status == "failed" and "another collect" in run.error
        assert not Signal.objects.filter(owner=user).exists()
    finally:
        other.close()
    run = collect(source=source, client=screen_client(game_server), now=game_server.now)
    assert run.status == "ok" and run.signals > 0
