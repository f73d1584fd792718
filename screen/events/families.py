"""Activity families: what a span is *doing* (``travel.check_in``, ``purchase.order``, ``software.ci``,
``game.match``, ``meeting.call``, ...), not which program showed it. Pure, no database.

The mapping is data (``screen/data/app_families.json``, provenance beside it): well-known programs and sites
to a family or a namespace, and each family's general cue words. A span is scored by the cues in its window
titles and URL path (twice), its lines (once) and its outcome lines (twice); a win/loss/draw is a contest.
With no family clearly ahead, the program's namespace (or ``task``) and a word describing the activity (the
head noun of the window title without the program's name, else of the outcome line) make a generic family:
an unknown program still gets a type that says what was going on, never its own name as the namespace.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from screen.events.outcomes import ALL_WORDS, CONTEST
from screen.text import SCREEN_STOPWORDS, slug

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "app_families.json"
MIN_SCORE = 2
# A head noun is never the window's own chrome ("Untitled window", "Home page").
_HEAD_NOUN_STOP = SCREEN_STOPWORDS | frozenset("app window page home untitled dashboard".split())


@dataclass(frozen=True)
class Mapping:
    apps: dict[str, str]
    domains: dict[str, str]
    assistants: frozenset[str]
    assistant_markers: frozenset[str]
    assistant_ui: re.Pattern
    media: frozenset[str]
    notifications: frozenset[str]
    standalone: frozenset[str]
    cues: dict[str, re.Pattern]


@functools.lru_cache(maxsize=1)
def mapping() -> Mapping:
    data = json.loads(DATA_FILE.read_text())
    cues = {
        family: re.compile(r"\b(?:" + "|".join(re.escape(_norm(w)) for w in words) + r")\b")
        for family, words in data["families"].items()
    }
    return Mapping(
        apps={k.lower(): v for k, v in data["apps"].items()},
        domains={k.lower(): v for k, v in data["domains"].items()},
        assistants=frozenset(a.lower() for a in data["assistants"]),
        assistant_markers=frozenset(a.lower() for a in data["assistant_markers"]),
        assistant_ui=re.compile(r"\b(?:" + "|".join(re.escape(_norm(w)) for w in data["assistant_ui"]) + r")\b"),
        media=frozenset(m.lower() for m in data["media"]),
        notifications=frozenset(n.lower() for n in data["notifications"]),
        standalone=frozenset(data["standalone"]),
        cues=cues,
    )


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-–—/·|:]+", " ", (text or "").lower()).strip()


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


def site_of(url: str) -> str:
    """The registered domain, roughly (last two labels): ``app.example.com`` -> ``example.com``."""
    parts = [p for p in host_of(url).split(".") if p]
    return ".".join(parts[-2:]) if len(parts) >= 2 else (parts[0] if parts else "")


def app_words(app: str) -> set[str]:
    return set(_norm(app.lower().replace(".app", "")).split())


def mapped(app: str, url: str) -> str:
    """The family or namespace the data gives this program or site ('' when unknown)."""
    m = mapping()
    host = host_of(url)
    for candidate in (host, site_of(url)):
        if candidate and candidate in m.domains:
            return m.domains[candidate]
    name = _norm(app.lower().replace(".app", ""))
    if name in m.apps:
        return m.apps[name]
    for word in app_words(app):
        if word in m.apps:
            return m.apps[word]
    return ""


def is_assistant(app: str, window: str, url: str) -> bool:
    """A program, window or site whose text is model output (ChatGPT, an "AI Assistant" window)."""
    m = mapping()
    if host_of(url) in m.assistants or site_of(url) in m.assistants:
        return True
    name = _norm(app)
    words = app_words(app) | set(_norm(window).split())
    return name in m.assistants or bool(words & m.assistant_markers)


def is_assistant_header(line: str) -> bool:
    """A short pane header naming an assistant ("AI Assistant", "Copilot suggestions")."""
    words = _norm(line).split()
    return 0 < len(words) <= 4 and bool(set(words) & mapping().assistant_markers)


def is_assistant_frame(lines: list[str]) -> bool:
    """A frame of an assistant's own window, whatever the program is called: its disclaimer or composer."""
    pattern = mapping().assistant_ui
    return any(len(line) < 80 and pattern.search(_norm(line)) for line in lines)


def is_notification(app: str) -> bool:
    """The system's notification centre: its banners are system output about another program's activity."""
    return bool(app_words(app) & mapping().notifications) or _norm(app) in mapping().notifications


def is_media(app: str, url: str) -> bool:
    m = mapping()
    return bool(app_words(app) & m.media) or site_of(url).split(".")[0] in m.media


def is_standalone(family: str) -> bool:
    return family in mapping().standalone


def _score(fields: list[tuple[str, int]]) -> dict[str, int]:
    scores: dict[str, int] = {}
    for family, pattern in mapping().cues.items():
        total = 0
        for text, weight in fields:
            total += weight * len(set(pattern.findall(text)))
        if total:
            scores[family] = total
    return scores


def head_noun(text: str, exclude: set[str]) -> str:
    """The last content word of a title-like phrase (English noun phrases end in their head)."""
    words = [w for w in re.findall(r"[a-z][a-z']{2,}", _norm(text)) if w not in _HEAD_NOUN_STOP and w not in exclude]
    words = [w for w in words if w not in ALL_WORDS]
    return words[-1] if words else ""


def classify(
    *, app: str, url: str, windows: list[str], lines: list[str], outcome_lines: list[str], outcome: str = ""
) -> str:
    """The span's activity family, ``namespace.name`` (always valid for ``validate_event_type``)."""
    paths = " ".join(urlsplit(u).path for u in ([url] if url else []))
    fields = [
        (_norm(" ".join(windows)), 2),
        (_norm(paths), 2),
        (_norm("\n".join(lines)), 1),
        (_norm("\n".join(outcome_lines)), 2),
    ]
    scores = _score(fields)
    if outcome in CONTEST:
        scores["game.match"] = scores.get("game.match", 0) + 3
    given = mapped(app, url)
    if given and "." in given:
        scores[given] = scores.get(given, 0) + 4
    elif given:
        for family in list(scores):
            if family.split(".", 1)[0] == given:
                scores[family] += 1
    if scores:
        best = max(scores.items(), key=lambda kv: kv[1])
        if best[1] >= MIN_SCORE:
            return best[0]
    namespace = slug(given.split(".", 1)[0], "task") if given else "task"
    exclude = app_words(app) | set(site_of(url).split("."))
    title = next((w for w in windows if w), "")
    activity = head_noun(title, exclude) or head_noun(" ".join(outcome_lines), exclude) or "session"
    return f"{namespace}.{slug(activity, 'session')}"
