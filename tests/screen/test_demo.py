"""The demo: `make up` leaves a Timeline with a few days of varied events."""

from __future__ import annotations

import io

import pytest

from screen import demo
from screen.models import Curation, ScreenEvent, ScreenSource

pytestmark = pytest.mark.django_db


def test_demo_fills_several_days_of_the_timeline(user):
    out = io.StringIO()
    handles = demo.start(user=user, first_run=True, stdout=out)
    try:
        types = set(ScreenEvent.objects.filter(owner=user).values_list("event_type", flat=True))
        days = set(ScreenEvent.objects.filter(owner=user).values_list("local_date", flat=True))
        # Activity families, never a program's name as the namespace.
        assert {"game.match", "software.install", "task.kiln", "purchase.order"} <= types
        assert not any(t.split(".")[0] in ("riftfall", "kilnlink", "safari", "terminal") for t in types)
        assert len(days) >= 3
        assert ScreenEvent.objects.filter(owner=user, event_type="game.match").count() == 4
        source = ScreenSource.objects.get(owner=user)
        assert source.enabled and len(source.preferences) == 2 and source.gaps == 0
        # Preferences as policy: ranked matches tracked into memory, the purchase's screen text not retained.
        assert Curation.objects.filter(owner=user, decision="memory").count() == 4
        purchase = ScreenEvent.objects.get(owner=user, event_type="purchase.order")
        assert purchase.curations.get().decision == "ignore" and purchase.evidence.get().excerpt == ""
        assert "ScreenPipe imitation on http://127.0.0.1:" in out.getvalue()
    finally:
        for h in handles:
            h.stop()
