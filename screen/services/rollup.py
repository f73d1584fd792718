"""The daily rollup on each local day's note: counts of events by type and outcome (e.g. matches 1-1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.db import transaction

from screen.models import DayNote, ScreenEvent

CONTEST_WORDS = {"win": "win", "victory": "win", "loss": "loss", "defeat": "loss", "draw": "draw"}


def day_rollup(*, owner, local_date) -> dict[str, dict[str, int]]:
    """``{event_type: {outcome: count}}`` over the day's visible events (rejected ones do not count)."""
    counts: dict[str, Counter] = {}
    rows = ScreenEvent.objects.owned_by(owner).visible().on_date(local_date).values_list("event_type", "outcome")
    for event_type, outcome in rows:
        counts.setdefault(event_type, Counter())[outcome or "none"] += 1
    return {t: dict(c) for t, c in sorted(counts.items())}


def rollup_lines(rollup: dict[str, dict[str, int]]) -> list[str]:
    """Human lines: contests as wins-losses ("game.match: 1–1"), other types as outcome counts."""
    out = []
    for event_type, outcomes in rollup.items():
        if outcomes and set(outcomes) <= set(CONTEST_WORDS):
            tally = {"win": 0, "loss": 0, "draw": 0}
            for word, n in outcomes.items():
                tally[CONTEST_WORDS[word]] += n
            wins, losses, draws = tally["win"], tally["loss"], tally["draw"]
            out.append(f"{event_type}: {wins}–{losses}" + (f" ({draws} draws)" if draws else ""))
        else:
            out.append(f"{event_type}: " + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())))
    return out


def refresh_rollups(*, owner, dates: Iterable) -> None:
    for local_date in set(dates):
        rollup = day_rollup(owner=owner, local_date=local_date)
        with transaction.atomic():
            note, _ = DayNote.objects.select_for_update().get_or_create(owner=owner, local_date=local_date)
            if note.rollup != rollup:
                note.rollup = rollup
                note.save(update_fields=["rollup", "updated_at"])
