"""Date-aware matching, pure: the calendar windows a question names ("in May 2023", "on 8 May, 2023", "2023").

Rows carry their date as data (a turn's session date, a fact's valid-from), so a question that names a period
boosts the rows of that period instead of searching for the words "May" and "2023". Talk about an event comes on
its day or soon after ("last week I…"), so each window reaches a week past the named period.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
AFTERGLOW = timedelta(days=7)  # how long after a period people still talk about it as news
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_YEAR = r"((?:19|20)\d\d)"
_PATTERNS = (
    ("ymd", re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b", re.I)),
    ("mdy", re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", re.I)),
    ("my", re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b", re.I)),
    ("y", re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b", re.I)),
)


def _month(name: str) -> int:
    return MONTHS[name.lower()[:3]]


def date_windows(question: str) -> list[tuple[date, date]]:
    """Inclusive (first, last) day windows for each calendar period the question names; [] when none."""
    found: list[tuple[date, date]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(question or ""):
            if any(a <= m.start() < b for a, b in taken):
                continue  # "May 2023" inside "8 May, 2023" already counted
            try:
                if kind == "ymd":
                    first = last = date(int(m[1]), int(m[2]), int(m[3]))
                elif kind == "dmy":
                    first = last = date(int(m[3]), _month(m[2]), int(m[1]))
                elif kind == "mdy":
                    first = last = date(int(m[3]), _month(m[1]), int(m[2]))
                elif kind == "my":
                    year, month = int(m[2]), _month(m[1])
                    first = date(year, month, 1)
                    last = date(year, month, calendar.monthrange(year, month)[1])
                else:
                    first, last = date(int(m[1]), 1, 1), date(int(m[1]), 12, 31)
            except (ValueError, KeyError):
                continue
            taken.append((m.start(), m.end()))
            found.append((first, last + AFTERGLOW))
    return found


def in_windows(day: date | None, windows: list[tuple[date, date]]) -> bool:
    return day is not None and any(first <= day <= last for first, last in windows)


def date_words(question: str) -> set[str]:
    """The words that only named a period (month names, years, day numbers): not searched for as text."""
    out: set[str] = set()
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(question or ""):
            out.update(w.lower() for w in re.findall(r"[A-Za-z]+|\d+", m[0]) if kind != "y" or w.isdigit())
    return out


# A "when" question is answered by the turn that places the event in time ("we went yesterday", "last
# Friday", "two weeks ago"), which rarely repeats the question's words. These are English's words for placing an
# event relative to the talk (a closed class of the language, not a list drawn from any data set): a when-question
# also looks for them, at TIME_WORD_WEIGHT of their IDF (time-aware query expansion).
TIME_WORDS = (
    "yesterday today tonight tomorrow ago last recently lately since week weekend month year morning evening "
    "night earlier monday tuesday wednesday thursday friday saturday sunday"
).split()
_ASKS_WHEN = re.compile(
    r"^\s*(?:and\s+|so\s+)?when\b|\bwhat\s+(?:year|month|day|date|time|week)\b|\bhow\s+long\s+ago\b|\bsince\s+when\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """True for a question about when something happened ("When did…", "What year…", "How long ago…")."""
    return bool(_ASKS_WHEN.search(question or ""))
