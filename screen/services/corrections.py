"""The owner's corrections of an event: rename, (un)important, reject, confirm; each a revision by the user."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.exceptions import DomainError
from screen.models import ScreenEvent
from screen.services.rollup import refresh_rollups
from screen.services.store import revise


class CorrectionError(DomainError):
    status_code = 422


@dataclass(frozen=True)
class Correction:
    action: str  # rename | important | unimportant | reject | confirm
    title: str = ""


CORRECTIONS = ("rename", "important", "unimportant", "reject", "confirm")


def correct_event(*, owner, event: ScreenEvent, correction: Correction) -> ScreenEvent:
    """User feedback on an event, recorded as a revision by the user. A rejection hides the event from the
    timeline, recall and rollups (it is never deleted)."""
    if event.owner_id != owner.pk:
        raise CorrectionError("not your event")
    action = correction.action
    if action not in CORRECTIONS:
        raise CorrectionError(f"action must be one of {', '.join(CORRECTIONS)}")
    if action == "rename":
        title = (correction.title or "").strip()
        if not title or len(title) > 200 or not title.isprintable():
            raise CorrectionError("title must be 1 to 200 printable characters")
        changes = {"title": title}
    elif action in ("important", "unimportant"):
        changes = {"important": action == "important"}
    elif action == "reject":
        changes = {"status": ScreenEvent.Status.REJECTED}
    else:
        changes = {"status": ScreenEvent.Status.CONFIRMED}
    updated, _ = revise(event=event, changes=changes, reason=f"user: {action}", author="user")
    refresh_rollups(owner=owner, dates=[updated.local_date])
    return updated
