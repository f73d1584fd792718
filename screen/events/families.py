"""Activity families: what a span is *doing* (``travel.check_in``, ``purchase.order``, ``software.ci``,
``game.match``, ``meeting.call``, ...), not which program showed it. Pure, no database.

The mapping is data (``screen/data/app_families.json``, provenance beside it): well-known programs and sites
to a family or a namespace, each family's general cue words, the outcomes each namespace's activities can have,
and the families one only reads or watches. A span is scored by the cues in its window titles (the page's own
part: never the program's, the site's or the browser's name) and URL path (twice) and its lines (once); a family
needs two different cues (one stray word, a "job" on an application form, types nothing) unless the data maps
the program or site to it. With no family clearly ahead, the program's namespace (or ``task``) and the head
noun of the page's title make a generic family: an unknown program still gets a type that says what was going
on, never its own name as the namespace.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from screen.events.outcomes import ALL_WORDS, CONFIRMED, CONTEST, CONTROL_VERBS, PROGRESS, SENT, SUCCESS
from screen.text import SCREEN_STOPWORDS, slug

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "app_families.json"
MIN_SCORE = 2
HEADLINE_WORDS = 6
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
    mirrors: frozenset[str]
    observational: frozenset[str]
    outcome_words: dict[str, dict[str, str]]


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
        mirrors=frozenset(m.lower() for m in data["mirrors"]),
        observational=frozenset(data["observational"]),
        outcome_words=data["outcome_words"],
    )


def _norm(text: str) -> str:
    text = (text or "").lower().replace("\u200b", "").replace("\u200c", "").replace("\ufeff", "")
    return re.sub(r"[\s_\-–—/·|:]+", " ", text).strip()


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


@functools.lru_cache(maxsize=1)
def _public_suffixes():
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True)  # the list ships with the package: no download


_ADDRESS = re.compile(r"[\d.]+|[0-9a-f:]*:[0-9a-f:]*")  # an IP address names no registered domain


@functools.lru_cache(maxsize=8192)  # every frame's URL asks
def site_of(url: str) -> str:
    """The registered domain: ``app.example.com`` -> ``example.com``, ``shop.kelp.co.nz`` -> ``kelp.co.nz`` (the
    public suffix from the Public Suffix List, so two sites under ``co.nz`` or ``com.au`` are two sites)."""
    host = host_of(url).strip(".")
    if not host or "." not in host or _ADDRESS.fullmatch(host):
        return host
    return _public_suffixes().privatesuffix(host) or host


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


def mapped_by_a_word(app: str, url: str) -> bool:
    """The program's family comes from one word of a longer name ("Obsidian Tactics" -> a notes program's):
    a guess, which what the screen shows may overrule."""
    m = mapping()
    if any(c and c in m.domains for c in (host_of(url), site_of(url))):
        return False
    name = _norm(app.lower().replace(".app", ""))
    return name not in m.apps and any(word in m.apps for word in app_words(app))


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


@functools.lru_cache(maxsize=1)
def cue_words() -> frozenset[str]:
    """Every word of every family's cues, and the words of every screen's controls: vocabulary any two
    activities of a kind share, so it never ties one span to another."""
    data = json.loads(DATA_FILE.read_text())
    words = {w for cues in data["families"].values() for cue in cues for w in _norm(cue).split()}
    return frozenset(words | CONTROL_VERBS)


def is_mirror(app: str) -> bool:
    """A program showing another device's screen: its window title names the device, not the activity."""
    return _norm(app) in mapping().mirrors or bool(app_words(app) & mapping().mirrors)


def is_observational(family: str) -> bool:
    """A family one reads or watches (news, feeds, videos): its pages report other people's outcomes."""
    return family in mapping().observational


def family_outcome(word: str, family: str) -> str:
    """The family's own word for a generic outcome (a payment that went through is ``paid``), or "" when an
    activity of this family cannot have that outcome. Unknown namespaces take every outcome but contests."""
    words = mapping().outcome_words.get(family.split(".", 1)[0])
    if words is None:
        return "" if word in CONTEST else {SENT: CONFIRMED, PROGRESS: SUCCESS}.get(word, word)
    return words.get(word, "")


_PROMPT = re.compile(r"^\s*[$%] \S")  # a command typed at a shell prompt: a terminal, whatever it is called
# A message's header block: its sender with an address, and a recipient, subject or date header. An email read
# in any program, whatever its subject says ("Booking confirmation", "Your order has shipped").
_SENDER = re.compile(r"^\s*from\s*:\s*\S.*@", re.I)
_HEADER = re.compile(r"^\s*(?:to|cc|subject|date|sent)\s*:\s*\S", re.I)


def shows_message(lines: list[str]) -> bool:
    """The screen shows an email (its sender's address and another header): what it says is a message's."""
    return any(_SENDER.match(line) for line in lines) and any(_HEADER.match(line) for line in lines)


_TITLE_SEPARATORS = re.compile(r"\s+[—–|·-]\s+")


def page_titles(windows: list[str], app: str, url: str) -> list[str]:
    """The page's own part of each window title: its first part that names neither the program, the site nor
    the browser ("Cabins in Bergen | Fjordstays — Mozilla Firefox" -> "Cabins in Bergen"; "Kiln: Emberhaus
    Control" -> "Kiln"), none for a mirror."""
    if is_mirror(app):
        return []
    names = _NameTest(app, url)
    out = []
    for window in windows:
        parts = [p for p in _TITLE_SEPARATORS.split(window or "") if p.strip()]
        kept = []
        for i, part in enumerate(parts):
            if names(part) and (i or len(parts) > 1):
                continue
            kept.append(_without_named_tail(part, names))
        if kept:
            out.append(kept[0])  # "Page — Site": what precedes the site's name is the page's own
    return out


class _NameTest:
    """Does a title part name the program or the site ("Mozilla Firefox", "Fjordstays")?"""

    def __init__(self, app: str, url: str):
        self.own = app_words(app)
        self.app = re.sub(r"[^a-z0-9]", "", app.lower())
        self.host = re.sub(r"[^a-z0-9]", "", host_of(url))

    def __call__(self, part: str) -> bool:
        words = set(_norm(part).split())
        squashed = re.sub(r"[^a-z0-9]", "", _norm(part))
        names_program = bool(words & self.own) or bool(squashed and squashed in self.app)
        return names_program or (bool(self.host) and len(squashed) >= 4 and squashed in self.host)


def _without_named_tail(part: str, names: _NameTest) -> str:
    """A part joined to the program's or site's name by a colon ("Garden irrigation: Emberhaus Control") is
    the part before it; a colon inside the page's own words ("Week 3: Knitting cables") stays."""
    head, sep, tail = part.rpartition(": ")
    return head if sep and head.strip() and names(tail) else part


def _score(fields: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Per family: (weighted score, number of different cues found)."""
    scores: dict[str, tuple[int, int]] = {}
    for family, pattern in mapping().cues.items():
        total, distinct = 0, set()
        for text, weight in fields:
            found = set(pattern.findall(text))
            total += weight * len(found)
            distinct |= found
        if total:
            # A cue of two words or more ("brew install", "boarding pass") is as telling as two cues.
            scores[family] = (total, sum(min(2, len(cue.split())) for cue in distinct))
    return scores


def head_noun(text: str, exclude: set[str]) -> str:
    """The last content word of a title-like phrase (English noun phrases end in their head)."""
    words = [w for w in re.findall(r"[a-z][a-z']{2,}", _norm(text)) if w not in _HEAD_NOUN_STOP and w not in exclude]
    words = [w for w in words if w not in ALL_WORDS]
    return words[-1] if words else ""


def classify(*, app: str, url: str, windows: list[str], lines: list[str], outcome_lines: list[str] = ()) -> str:
    """The span's activity family, ``namespace.name`` (always valid for ``validate_event_type``)."""
    titles = page_titles(windows, app, url)
    paths = " ".join(urlsplit(u).path for u in ([url] if url else []))
    # A title that is a sentence (an article's, a post's headline) tells what one reads, not what one does.
    names = [t for t in titles if len(t.split()) <= HEADLINE_WORDS]
    headlines = [t for t in titles if len(t.split()) > HEADLINE_WORDS]
    fields = [(_norm(" ".join(names)), 2), (_norm(paths), 2), (_norm("\n".join([*headlines, *lines])), 1)]
    scores = _score(fields)
    given = mapped(app, url) or ("software" if any(_PROMPT.match(line) for line in lines) else "")
    if not given and shows_message(lines):
        given = "communication.email"  # an unknown program showing a message: a mail client
    if given and "." in given:
        total, distinct = scores.get(given, (0, 0))
        scores[given] = (total + 4, distinct + 2)
    elif given:
        for family, (total, distinct) in list(scores.items()):
            if family.split(".", 1)[0] == given:
                scores[family] = (total + 1, distinct + 1)
    ranked = sorted(((v, k) for k, v in scores.items() if v[1] >= 2 and v[0] >= MIN_SCORE), reverse=True)
    if ranked:
        return ranked[0][1]
    namespace = slug(given.split(".", 1)[0], "task") if given else "task"
    exclude = app_words(app) | set(site_of(url).split("."))
    title = next((t for t in titles if t), "")
    activity = head_noun(title, exclude) or head_noun(" ".join(outcome_lines), exclude) or "session"
    return f"{namespace}.{slug(activity, 'session')}"
