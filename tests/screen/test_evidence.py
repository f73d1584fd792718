"""Bounded evidence requests: exact frame timestamps at fractional frame rates, budgets, the frame budget."""

from __future__ import annotations

from datetime import timedelta

import pytest

from screen.collector.client import ScreenPipeClient, parse_ts, rfc3339
from screen.imitation import scripts
from screen.models import EvidenceRequest, ScreenSource
from screen.services import evidence
from tests.screen.conftest import serve

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("every", [0.7, 1 / 3, 2.5])
def test_frames_around_returns_the_frame_at_the_requested_time_not_the_next(user, every):
    server = serve([scripts.Segment(app="Game", window="G", text="HUD {n}", seconds=30, every=every)])
    try:
        client = ScreenPipeClient(server.base_url, backoff=0)
        frames = server.session.frames
        target = frames[10]
        got = evidence.frames_around(owner=user, client=client, at=target.at)
        assert got["before"].frame_id == target.id and got["before"].at == target.at
        assert got["after"].frame_id == frames[11].id and got["after"].at == frames[11].at
        # Halfway to the next frame still means "this frame": no rounding up to the next one.
        between = target.at + (frames[11].at - target.at) / 2
        got = evidence.frames_around(owner=user, client=client, at=between)
        assert got["before"].frame_id == target.id and got["after"].frame_id == frames[11].id
        client.close()
    finally:
        server.stop()


def test_timestamps_survive_the_round_trip_with_microseconds():
    server = serve([scripts.Segment(app="A", window="W", text="x y", seconds=5, every=1 / 3)])
    try:
        for frame in server.session.frames:
            assert parse_ts(rfc3339(frame.at)) == frame.at
        assert parse_ts("2026-03-12T16:15:31.218442123Z").microsecond == 218442
    finally:
        server.stop()


def test_ocr_between_and_audio_respect_their_budgets(user, game_server):
    client = ScreenPipeClient(game_server.base_url, backoff=0)
    start = game_server.session.frames[0].at
    refs = evidence.ocr_between(
        owner=user, client=client, start=start, end=start + timedelta(hours=1), max_items=5, max_chars=120
    )
    assert 1 <= len(refs) <= 5 and sum(len(r.text) for r in refs) <= 120
    audio = evidence.overlapping_audio(owner=user, client=client, start=start, end=start + timedelta(minutes=5))
    assert audio and audio[0]["text"].startswith("okay one more ranked game")
    title = evidence.nearest_stable_title(owner=user, client=client, before=start + timedelta(minutes=30))
    assert title == "Riftfall"
    assert set(EvidenceRequest.objects.filter(owner=user).values_list("kind", flat=True)) == {
        "ocr_between",
        "audio",
        "stable_title",
    }
    assert all(r.returned <= r.budget for r in EvidenceRequest.objects.filter(owner=user))
    client.close()


def test_accessibility_history_reads_ui_items(user):
    seg = scripts.Segment(app="Settings", window="Network", text="Wi-Fi", seconds=30, ui="Wi-Fi: on\nNetwork: home")
    server = serve([seg])
    try:
        client = ScreenPipeClient(server.base_url, backoff=0)
        got = evidence.accessibility_history(owner=user, client=client, at=server.session.frames[-1].at)
        assert [g["text"] for g in got] == ["Wi-Fi: on\nNetwork: home"]
        assert all(r.query.get("content_type") != "ui" for r in server.requests)
        client.close()
    finally:
        server.stop()


def test_frame_images_stay_within_the_budget(user):
    server = serve([scripts.Segment(app="Game", window="G", text="HUD {n}", seconds=60, every=1.0)])
    try:
        client = ScreenPipeClient(server.base_url, backoff=0)
        source = ScreenSource.objects.create(owner=user, frame_budget=3)
        fetched = [
            evidence.fetch_frame(
                owner=user,
                source=source,
                client=client,
                reason="test",
                ref=evidence.FrameRef(f.id, f.at, f.app, f.window, f.text),
            )
            for f in server.session.frames[:10]
        ]
        assert sum(1 for f in fetched if f is not None) == 3
        assert len(server.requests_to("/frames/")) == 3
        client.close()
    finally:
        server.stop()


def test_a_missing_frame_image_is_no_error(user):
    server = serve([scripts.Segment(app="Game", window="G", text="HUD {n}", seconds=10, every=1.0)])
    try:
        frame = server.session.frames[0]
        server.missing_frames.add(frame.id)
        client = ScreenPipeClient(server.base_url, backoff=0)
        source = ScreenSource.objects.create(owner=user)
        ref = evidence.FrameRef(frame.id, frame.at, frame.app, frame.window, frame.text)
        assert evidence.fetch_frame(owner=user, source=source, client=client, ref=ref, reason="t") is None
        client.close()
    finally:
        server.stop()
