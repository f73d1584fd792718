"""Acceptance: problem -> resolution is one revised event; an unfamiliar domain works through the generic path."""

from __future__ import annotations

import pytest

from screen.imitation import scripts
from screen.models import EventEvidence, EventRevision, ScreenEvent
from tests.screen.conftest import run_collect, serve

pytestmark = pytest.mark.django_db


def test_install_problem_and_later_fix_end_as_one_resolved_event(user, screen_client):
    server = serve(scripts.install_segments())
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    events = list(ScreenEvent.objects.filter(owner=user))
    assert len(events) == 1, [(e.event_type, e.title) for e in events]
    event = events[0]
    assert event.event_type == "software.install"  # the activity, not the program
    assert event.outcome == "resolved" and event.status == ScreenEvent.Status.REVISED
    assert "tokenizers" in event.title
    revisions = list(EventRevision.objects.filter(event=event).values_list("number", "status"))
    assert revisions == [(1, "provisional"), (2, "revised")]
    roles = set(event.evidence.values_list("role", flat=True))
    assert roles == {EventEvidence.Role.PROBLEM, EventEvidence.Role.CONTEXT, EventEvidence.Role.OUTCOME}
    # Installing the Rust compiler on the way was a step of the fix, attached as context.
    assert "rustc" in event.evidence.get(role=EventEvidence.Role.CONTEXT).excerpt
    # The same error read on a web page was more evidence for this problem, not a second problem.
    assert event.evidence.filter(role=EventEvidence.Role.PROBLEM, app_name="Firefox").exists()
    assert event.ended_at > event.started_at


def test_unfamiliar_domain_yields_sensible_events_through_the_generic_path(user, screen_client):
    server = serve(scripts.kiln_segments())
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    events = list(ScreenEvent.objects.filter(owner=user))
    assert len(events) == 1, [(e.event_type, e.title) for e in events]
    event = events[0]
    # The program's name is never the namespace: a generic family describing the activity.
    assert not event.event_type.startswith("kilnlink") and event.event_type.startswith("task.")
    assert event.outcome == "resolved"
    assert "thermocouple" in event.title.lower()
    assert "Firing complete" in event.summary
    assert event.proposer == "deterministic"


def test_a_repeated_outcome_in_the_same_context_is_routine_progress(user, screen_client):
    seg = scripts.Segment
    editor = {"app": "Scrivener", "window": "Novel draft"}
    server = serve(
        [
            seg(**editor, text="Chapter 3\nThe harbour at dawn", seconds=60),
            seg(**editor, text="Chapter 3\nThe harbour at dawn\nAll changes saved", seconds=20),
            seg(**editor, text="Chapter 3\nThe harbour at dawn\nGulls", seconds=60),
            seg(**editor, text="Chapter 3\nThe harbour at dawn\nGulls\nAll changes saved", seconds=20),
            seg(**editor, text="Chapter 3\nThe harbour at dawn\nGulls over the pier {n}", seconds=600),
        ]
    )
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    assert ScreenEvent.objects.filter(owner=user).count() == 1


def test_several_events_come_from_one_long_context(user, screen_client):
    seg = scripts.Segment
    mail = {"app": "Thunderbird", "window": "Inbox"}
    server = serve(
        [
            seg(**mail, text="Inbox\nDraft to Ines", seconds=60),
            seg(**mail, text="Inbox\nYour message to Ines was sent", seconds=30),
            seg(**mail, text="Inbox\nDraft to the landlord", seconds=15 * 60),
            seg(**mail, text="Inbox\nYour message to the landlord was sent", seconds=30),
        ]
    )
    try:
        run_collect(user, server, screen_client(server))
    finally:
        server.stop()
    events = ScreenEvent.objects.filter(owner=user).order_by("started_at")
    assert [e.event_type for e in events] == ["communication.email"] * 2
    assert [e.outcome for e in events] == ["confirmed"] * 2
    assert "Ines" in events[0].title and "landlord" in events[1].title


def test_stale_open_problems_are_closed_by_the_reconciliation_pass(user, screen_client):
    from datetime import timedelta

    seg = scripts.Segment
    server = serve(
        [
            seg(app="Terminal", window="zsh", text="$ make deploy\nError: permission denied (publickey)", seconds=60),
            seg(app="Notes", window="Groceries", text="eggs\nmilk {n}", seconds=120),
        ]
    )
    try:
        run_collect(user, server, screen_client(server), now=server.now + timedelta(hours=7))
    finally:
        server.stop()
    event = ScreenEvent.objects.get(owner=user)
    assert event.event_type == "software.deploy" and event.outcome == "failure"
    assert event.status == ScreenEvent.Status.CLOSED
    assert event.revisions.last().reason.startswith("closed: no outcome")


def test_an_unfolding_problem_keeps_its_id_and_is_revised_by_a_later_collect(user, screen_client):
    from datetime import timedelta

    server = serve(scripts.install_segments())
    try:
        end = server.now
        server.now = server.session.frames[0].at + timedelta(minutes=4)  # the error is on screen, no fix yet
        run_collect(user, server, screen_client(server), now=server.now)
        problem = ScreenEvent.objects.get(owner=user)
        assert problem.outcome == "failure" and problem.status == ScreenEvent.Status.PROVISIONAL
        server.now = end
        run = run_collect(user, server, screen_client(server), now=end)
    finally:
        server.stop()
    assert run.events_created == 0 and run.events_revised == 1
    resolved = ScreenEvent.objects.get(owner=user)
    assert resolved.public_id == problem.public_id and resolved.outcome == "resolved" and resolved.revision == 2
