"""Acceptance (issue 21): five sessions in domains the code names nowhere, through the public API, collected in
phases as a new user would. Each must give the right number of events with their family, outcome and polarity,
start and end within two minutes of the truth, the owner-local date, outcome evidence showing the outcome (with
its frame image), and no assistant text in any title, outcome or user action."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest

from accounts.services import update_settings
from screen.imitation import ScreenPipeImitation, build
from screen.models import Assertion, EventEvidence, ScreenEvent
from tests.screen import sessions_unscripted as sessions

pytestmark = pytest.mark.django_db
TOLERANCE = timedelta(minutes=2)


def _play(client, user, scripted: sessions.Scripted):
    """Serve the session and collect it in phases through the public API (``POST /api/v1/screen/collect``)."""
    from screen import services

    update_settings(user=user, display_name=scripted.display_name, timezone_name=scripted.tz)
    session = build(scripted.start.astimezone(UTC), scripted.segments)
    server = ScreenPipeImitation(session, now=scripted.collects[0].astimezone(UTC)).start()
    try:
        resp = client.put("/screen/source", {"base_url": server.base_url, "backfill_days": 3})
        assert resp.status_code == 200, resp.content
        for at in scripted.collects:
            server.now = at.astimezone(UTC)
            # The service behind POST /screen/collect, at the scripted moment instead of the wall clock.
            run = services.run_collect(owner=user, now=server.now, trigger="api")
            assert run.status == "ok", run.error
    finally:
        server.stop()


def _day_events(client, user, truths):
    """Every event of the truth's local dates, as the API lists them."""
    seen = {}
    for date in sorted({t.start.date().isoformat() for t in truths} | {t.end.date().isoformat() for t in truths}):
        resp = client.get(f"/screen/events?date={date}")
        assert resp.status_code == 200, resp.content
        for e in resp.json():
            seen[e["id"]] = e
    return sorted(seen.values(), key=lambda e: e["started_at"])


def _check(client, user, scripted: sessions.Scripted):
    _play(client, user, scripted)
    listed = _day_events(client, user, scripted.truths)
    events = list(ScreenEvent.objects.filter(owner=user).visible().order_by("started_at"))
    described = [(e.event_type, e.outcome, e.title) for e in events]
    assert len(events) == len(scripted.truths) == len(listed), described
    assert [e["family"] for e in listed] == [t.family for t in scripted.truths]
    assert [e["polarity"] for e in listed] == [t.polarity for t in scripted.truths]
    for event, truth in zip(events, scripted.truths, strict=True):
        assert event.event_type == truth.family, described
        assert event.outcome == truth.outcome, described
        assert event.attributes["polarity"] == truth.polarity, described
        for key, value in truth.attrs.items():
            assert event.attributes[key] == value, (key, event.attributes)
        assert abs(event.started_at - truth.start) <= TOLERANCE, (event.started_at, truth.start)
        assert abs(event.ended_at - truth.end) <= TOLERANCE, (event.ended_at, truth.end)
        assert event.local_date == truth.start.date(), (event.local_date, truth.start)
        outcome = event.evidence.filter(role=EventEvidence.Role.OUTCOME).order_by("-occurred_at").first()
        assert outcome is not None and truth.evidence.lower() in outcome.excerpt.lower(), event.evidence.all()
        assert outcome.image is not None
        shown = " ".join([event.title, event.outcome, *event.user_actions])
        for text in scripted.forbidden:
            assert text.lower() not in shown.lower(), shown
        for assertion in event.assertions.exclude(content_role=Assertion.ContentRole.ASSISTANT_OUTPUT):
            for text in scripted.forbidden:
                assert text.lower() not in assertion.text.lower(), assertion.text
    return events


def test_an_order_that_changes_over_two_days_is_one_delivered_event_with_its_substitution(api, user):
    (event,) = _check(api, user, sessions.grocery_order())
    outcomes = [r.snapshot["outcome"] for r in event.revisions.order_by("number")]
    assert outcomes[0] == "confirmed" and outcomes[-1] == "delivered"  # the same event, revised


def test_a_failed_pipeline_fixed_hours_later_is_one_resolved_event(api, user):
    (event,) = _check(api, user, sessions.pipeline_fix())
    assert event.evidence.filter(role=EventEvidence.Role.PROBLEM, excerpt__icontains="771 failed").exists()
    # Between the failure and the fix the sidebar's older green runs never resolved it.
    history = [r.snapshot["outcome"] for r in event.revisions.order_by("number")]
    assert history == ["failure", "resolved"]


def test_two_fullscreen_board_games_read_their_own_results(api, user):
    win, draw = _check(api, user, sessions.board_games())
    assert "Black resigned" in win.title and win.attributes["sides"] == ["white"]
    assert draw.attributes["sides"] == ["black"]


def test_a_check_in_across_midnight_and_a_bill_keep_their_own_local_days(api, user):
    check_in, bill = _check(api, user, sessions.checkin_and_bill())
    assert check_in.local_date.isoformat() == "2026-06-14" and bill.local_date.isoformat() == "2026-06-15"
    assert bill.sensitivity == ScreenEvent.Sensitivity.HIGH


def test_a_call_with_an_assistant_open_keeps_everyone_in_their_role(api, user):
    (call,) = _check(api, user, sessions.call_with_assistant())
    roles = {(a.content_role, a.evidence[0].get("speaker")) for a in call.assertions.all() if a.evidence}
    assert (Assertion.ContentRole.OTHER_PERSON, "Ines") in roles
    assert (Assertion.ContentRole.OTHER_PERSON, "Teodor") in roles
    assert (Assertion.ContentRole.USER_AUTHORED, "Wren") in roles
    assistant = call.assertions.filter(content_role=Assertion.ContentRole.ASSISTANT_OUTPUT)
    assert assistant.count() == 2 and all(("4,800" in a.text) or ("signs" in a.text) for a in assistant)
    assert not ScreenEvent.objects.filter(owner=user, event_type__startswith="purchase").exists()
