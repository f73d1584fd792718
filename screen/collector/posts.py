"""Other people's posts on a screen: a feed, a comment thread, a review list or a forum shows each post under a
byline, its author and how long ago it was posted ("Ana Ruiz · 2h", "@kiwi_dev · 40m", "u/tern • 5h"). What a
post says ("We won!", "Order confirmed, new bike on its way") is its author's, never an outcome of the owner's
activity nor words that say what the owner is doing. Pure, no database.

A byline is recognised by its shape, not by any site: a short author (a handle, or a few words without digits)
and a relative age in the compact form feeds use (``2h``, ``40m``, ``1d``, ``3w``, ``just now``, ``yesterday``,
``5 hr ago``), joined on one line by a separator dot or bar. A duration ("Rowing · 32 min", "Run · 5 km") is
no age: feeds write ages compactly or with "ago". An author alone over an age alone is left alone: a
notification banner ("Mail" over "1m ago") has that shape too, and banners are judged as banners.
"""

from __future__ import annotations

import re

_AGE = r"(?:\d{1,2}(?:s|m|h|d|w|mo|y|yr|hr|hrs|min|mins)\b\.?|\d{1,2}\s?\w+\.? ago|just now|yesterday)"
_AUTHOR = r"(?:[@]\w[\w.]{1,30}|u/\w{2,30}|[A-Za-zÀ-ÿ][\w'’.-]*(?: [A-Za-zÀ-ÿ@][\w'’.-]*){0,3})"
_BYLINE = re.compile(rf"^{_AUTHOR}\s*[·•|]\s*{_AGE}(?:\s*[·•|].*)?$", re.I)
_SELF = frozenset({"you", "me"})
MAX_POST_LINES = 4  # a post's text as OCR gives it: a few lines, never the rest of the page
# What every post carries under its text: controls and counters, where its text has ended.
_POST_CONTROLS = re.compile(
    r"^(?:like|likes|comment|comments|reply|replies|share|shares|repost|reposts|retweet|follow|report|"
    r"see more|show more|more|view \d+ (?:more )?(?:comments|replies)|\d+ (?:likes|comments|replies|shares))$",
    re.I,
)


def _author(line: str) -> str:
    return re.split(r"\s*[·•|]\s*", line, maxsplit=1)[0].strip()


def is_byline(line: str) -> bool:
    """Another person's byline: "Ana Ruiz · 2h" (the owner's own, "You · 2h", is not)."""
    line = line.strip()
    author = _author(line)
    return bool(_BYLINE.match(line)) and not any(c.isdigit() for c in author) and author.lower() not in _SELF


def others_posts(lines: list[str]) -> set[str]:
    """The lines of a frame that are other people's posts: each byline and the text under it, up to the next
    byline, the post's controls ("Like", "Reply", "12 comments") or ``MAX_POST_LINES`` lines."""
    out: set[str] = set()
    i = 0
    while i < len(lines):
        if not is_byline(lines[i]):
            i += 1
            continue
        out.add(lines[i])
        i += 1
        for _ in range(MAX_POST_LINES):
            if i >= len(lines) or is_byline(lines[i]) or _POST_CONTROLS.match(lines[i].strip()):
                break
            out.add(lines[i])
            i += 1
    return out
