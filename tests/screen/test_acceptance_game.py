"""Acceptance: the game session yields exactly two match events with the right outcomes and evidence."""

from __future__ import annotations

import pytest

from screen.models import EventEvidence, EvidenceRequest, ScreenEvent, Signal
from screen.services.rollup import day_rollup, rollup_lines
from tests.screen.conftest import run_collect

pytestmark = pytest.mark.django_db


def test_game_session_stores_two_matches_with_their_results(user, game_server, screen_client):
    run = run_collect(user, game_server, screen_client(game_server))
    assert run.status == "ok", run.error
    matches = list(ScreenEvent.objects.filter(owner=user, event_type="game.match").order_by("started_at"))
    assert [m.outcome for m in matches] == ["loss", "win"]
    for match, word in zip(matches, ("DEFEAT", "VICTORY"), strict=True):
        outcome = match.evidence.get(role=EventEvidence.Role.OUTCOME)
        assert word in outcome.excerpt
        assert outcome.image is not None
        assert match.attributes["mode"] == "ranked"
        assert 18 <= match.attributes["minutes"] <= 27
    assert matches[0].attributes["score"] == "9-13" and matches[1].attributes["score"] == "13-7"
    print([(e.event_type, e.title) for e in ScreenEvent.objects.filter(owner=user)])


def test_game_session_does_not_merge_the_dev_work(user, game_server, screen_client):
    run_collect(user, game_server, screen_client(game_server))
    others = ScreenEvent.objects.filter(owner=user).exclude(event_type="game.match")
    assert all(not e.event_type.startswith("game.") for e in others)
    matches = ScreenEvent.objects.filter(owner=user, event_type="game.match")
    assert all(m.app_name == "Riftfall" for m in matches)
    assert all("pytest" not in m.summary for m in matches)


def test_game_session_asks_only_bounded_evidence(user, game_server, screen_client):
    client = screen_client(game_server)
    run_collect(user, game_server, client)
    frame_requests = game_server.requests_to("/frames/")
    assert 1 <= len(frame_requests) <= 4
    assert all(r.query.get("include_frames") in (None, "false") for r in game_server.requests_to("/search"))
    for req in EvidenceRequest.objects.filter(owner=user):
        assert req.returned <= req.budget
    total_frames = len(game_server.session.frames)
    assert Signal.objects.filter(owner=user).count() < total_frames / 10


def test_game_session_writes_a_one_one_rollup(user, game_server, screen_client):
    run_collect(user, game_server, screen_client(game_server))
    date = ScreenEvent.objects.get(owner=user, outcome="win").local_date
    rollup = day_rollup(owner=user, local_date=date)
    assert rollup["game.match"] == {"loss": 1, "win": 1}
    assert "game.match: 1–1" in rollup_lines(rollup)
    note = user.screen_daynote_set.get(local_date=date)
    assert note.rollup["game.match"] == {"loss": 1, "win": 1}


def test_game_session_around_midnight_in_kolkata_groups_by_start(user, screen_client):
    from datetime import UTC, datetime

    from accounts.services import update_settings
    from screen.imitation import scripts
    from tests.screen.conftest import serve

    update_settings(user=user, timezone_name="Asia/Kolkata")
    # 18:20 UTC = 23:50 IST: the first match starts before local midnight and ends after it.
    server = serve(scripts.game_segments(), start=datetime(2026, 6, 8, 18, 20, tzinfo=UTC))
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    defeat, victory = ScreenEvent.objects.filter(owner=user, event_type="game.match").order_by("started_at")
    assert defeat.local_date.isoformat() == "2026-06-08"  # started 23:52 IST, ended after midnight
    from zoneinfo import ZoneInfo

    assert defeat.ended_at.astimezone(ZoneInfo("Asia/Kolkata")).date().isoformat() == "2026-06-09"
    assert victory.local_date.isoformat() == "2026-06-09"
    assert day_rollup(owner=user, local_date=defeat.local_date)["game.match"] == {"loss": 1}
