"""A machine's second run after a failed one: another run when its labelled field names another item, the fix
when it names the same. On a laboratory instrument, a domain no generated session uses."""

from __future__ import annotations

from datetime import timedelta

import pytest

from screen.imitation import scripts
from tests.screen.conftest import DAY, collected_events

pytestmark = pytest.mark.django_db
Seg = scripts.Segment
CYCLER = {"app": "LabRun", "window": "Thermocycler — LabRun"}


def _runs(first: str, second: str) -> list[scripts.Segment]:
    return [
        Seg(**CYCLER, text=f"Protocol: {first}\nCycle {{n}} of 30\nBlock 95.0 C", seconds=400),
        Seg(**CYCLER, text=f"Protocol: {first}\nLid heater fault. Run aborted", seconds=60),
        Seg(app="Notes", window="Notes", text="plate layout\nline {n}", seconds=300),
        Seg(**CYCLER, text=f"Protocol: {second}\nCycle {{n}} of 30\nBlock 72.0 C", seconds=400),
        Seg(**CYCLER, text=f"Protocol: {second}\nRun complete", seconds=60),
        Seg(app="Notes", window="Notes", text="plate layout\nline {n}", seconds=300),
    ]


def test_a_run_of_another_protocol_after_a_failed_one_is_its_own_event(user, screen_client):
    failed, other = collected_events(user, screen_client, _runs("Colony screen", "Gradient anneal"))
    assert (failed.outcome, other.outcome) == ("failure", "success")
    assert failed.ended_at < DAY + timedelta(minutes=9) < other.started_at


def test_the_same_protocol_run_again_after_a_failure_resolves_it(user, screen_client):
    (event,) = collected_events(user, screen_client, _runs("Colony screen", "Colony screen"))
    assert event.outcome == "resolved"
