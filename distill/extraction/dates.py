"""Relative day words in a claim, anchored to the day they were said.

"I'm moving next Saturday", said on Friday 12 June, is stored as "… is moving next Saturday (June 20)": a week
later the memory still says when. Only words that name one day are anchored (today, tonight, tomorrow,
yesterday, last night, this morning, a weekday with or without next / last / this / on); "next month" or "a few
weeks ago" name no day and stay as said, and so does a weekday that already has its date ("Monday the
twenty-second", "Friday August fourteenth") or names a habit ("on Saturdays").

Conventions (English usage, not any one speaker's): "next Saturday" is the Saturday of next week (said on a
Wednesday or a Friday, 10 or 8 days on, never tomorrow); "last Friday" is the Friday of last week. Weeks start
on a Sunday for some speakers and on a Monday for others, so "next/last <weekday>" is left as said when the two
disagree (when exactly one of the day it is said and the day it names is a Sunday); a bare or
"this" weekday is the coming one in a plan. In a claim about the past a bare weekday may belong to something
still to come ("I got called for a gig, Friday night"), so it is left as said, like one in a habit or in a claim
with no tense (another extractor's).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from distill.extraction.base import Candidate, DayInput

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SUNDAY = 6
_MONTHS = "january february march april may june july august september october november december".split()
_OFFSET = {"tomorrow": 1, "yesterday": -1, "last night": -1}  # today, tonight, this morning …: 0
_PART = r"(?:morning|afternoon|evening|night)"
_EXPRESSION = re.compile(
    rf"\b(?:(?P<relative>today|tonight|tomorrow(?: {_PART})?|yesterday(?: {_PART})?|last night|this {_PART})"
    rf"|(?:(?P<modifier>next|last|this|on) )?(?P<weekday>{'|'.join(WEEKDAYS)})(?: {_PART})?)\b"
    # not a weekday that has its date already, a habit ("Saturdays"), a possessive or a date given already
    rf"(?!'s|s\b|,? (?:the )?[\w-]+(?:st|nd|rd|th)\b|,? (?:{'|'.join(_MONTHS)})\b| \()",
    re.IGNORECASE,
)


def said_on(moment: datetime | None, timezone: str = "") -> date | None:
    """The local calendar day of a moment: in ``timezone`` (IANA) when it is known and the moment is aware."""
    if moment is None:
        return None
    if timezone and moment.tzinfo is not None:
        try:
            moment = moment.astimezone(ZoneInfo(timezone))
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return moment.date()


def day_named(expression: re.Match, said: date, tense: str) -> date | None:
    """The day one matched expression names, said on ``said``; None when it does not name one for sure."""
    relative = (expression.group("relative") or "").lower()
    if relative:
        return said + timedelta(days=next((n for word, n in _OFFSET.items() if relative.startswith(word)), 0))
    target = WEEKDAYS.index(expression.group("weekday").lower())
    modifier = (expression.group("modifier") or "").lower()
    week_start = said - timedelta(days=said.weekday())
    if modifier in ("next", "last") and (said.weekday() == SUNDAY) != (target == SUNDAY):
        return None  # a week from Sunday or from Monday: "next Monday" said on a Sunday is tomorrow or in 8 days
    if modifier == "next":
        return week_start + timedelta(days=7 + target)
    if modifier == "last":
        return week_start - timedelta(days=7 - target)
    if tense == "future":
        return said + timedelta(days=(target - said.weekday() - 1) % 7 + 1)
    return None  # "I got called for a gig, Friday night": the Friday may be the gig's, still to come


def anchor(content: str, said: date | None, tense: str = "") -> str:
    """``content`` with each relative day it names followed by its date ("… next Saturday (June 20)")."""
    if said is None or not content:
        return content
    out, last = [], 0
    for m in _EXPRESSION.finditer(content):
        day = day_named(m, said, tense)
        if day is None:
            continue
        label = f"{day:%B} {day.day}" + (f", {day.year}" if day.year != said.year else "")
        out += [content[last : m.end()], f" ({label})"]
        last = m.end()
    return "".join(out) + content[last:] if out else content


def _tense(cand: Candidate) -> str:
    f = cand.features or {}
    if f.get("habitual") or f.get("aspect") == "habitual":
        return ""
    tense = f.get("tense") or ""
    if tense == "present" and f.get("aspect") == "progressive":
        return "future"  # "I'm moving on Saturday": a plan
    return tense if tense in ("past", "future") else ""


def anchor_candidates(candidates: list[Candidate], day: DayInput) -> None:
    """Anchor every candidate's relative days to the local day its turn was said (in place)."""
    when = {t.index: t.started_at or conv.started_at for conv in day.conversations for t in conv.turns}
    for cand in candidates:
        moment = when.get(cand.evidence.first_index) if cand.evidence else None
        anchored = anchor(cand.content, said_on(moment or cand.valid_from, day.timezone), _tense(cand))
        if anchored != cand.content:
            cand.content = anchored
            cand.features["date_anchored"] = True
