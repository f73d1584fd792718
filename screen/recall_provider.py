"""Recall's adapter over screen events: the "events" scope (registered in ScreenConfig.ready()).

Rejected events never reach recall. Events are observations of the screen, not beliefs about the owner: they
may answer "what did I do / what happened on my screen" with a disclaimer saying where they came from.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ledger.recall.planner import RecallItem
from ledger.recall.providers import RecallProvider
from screen.models import ScreenEvent

USES = ["answers_with_disclaimer"]


def event_text(event: ScreenEvent) -> str:
    parts = [f"{event.title}", event.summary.strip()]
    if event.outcome:
        parts.append(f"outcome: {event.outcome}")
    return f"[{event.event_type}] " + " — ".join(p for p in parts if p)


class EventProvider(RecallProvider):
    kind = "event"
    search_field = "search"
    date_field = "started_at"

    def queryset(self, owner):
        return ScreenEvent.objects.owned_by(owner).visible()

    def documents(self, rows: Iterable[ScreenEvent]) -> list[tuple[int, str]]:
        return [(e.pk, event_text(e)) for e in rows]

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        out = {}
        for e in self.queryset(owner).filter(pk__in=ref_ids):
            disclaimers = (
                ["seen on screen (OCR), not confirmed by you"] if e.status != "confirmed" else ["seen on screen (OCR)"]
            )
            out[e.pk] = RecallItem(
                id=str(e.public_id),
                kind="event",
                text=event_text(e),
                permitted_uses=list(USES),
                disclaimers=disclaimers,
                source_ref=f"screen_event:{e.public_id}",
                occurred_at=e.started_at.isoformat(timespec="minutes"),
                strength=e.confidence,
                ref_id=e.pk,
            )
        return out

    def prune(self, owner, before: datetime) -> int:
        return 0  # events are the record of what happened; the user rejects, nothing ages out silently
