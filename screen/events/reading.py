"""Reading a span: its family, its outcome (from the FINAL anchors), who the outcome applies to, the lines that
tie it to an earlier event, and the speech heard during it with each speaker's role. Pure, no database.

The family comes first, from what the span shows (titles, URL, lines), never from its outcome words; then the
outcome is read from the anchors an activity of that family can have (``families.family_outcome``): a news
headline's "draw" on a shopping page, a friend's "we won!" in a chat or a quiz's score are not the span's result.
A contest result counts only where the owner takes part (the screen names their side, speaks to them, or names an
opponent). Pages one only reads (news, feeds) have no outcome. A call's outcome is whether something was decided
(``decisions.py``), never that it ended.

Roles, end to end: a title, an outcome and a user action rest only on what the system confirmed (anchor lines
of the span's own program, its window titles) or on what the user did (commands typed at a prompt); assistant
text never becomes one (assistant spans make no event; assistant pane lines are never anchors). Speech from
the Output device is other people (named when ScreenPipe names the speaker), speech on the Input device is the
owner unless ScreenPipe names someone else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta

from screen.collector.client import parse_ts
from screen.events import decisions, families
from screen.events.outcomes import (
    ALL_WORDS,
    COMPLETED,
    CONTEST,
    CONTROL_VERBS,
    DECIDED,
    DELIVERED,
    FAILURE,
    MIXED,
    NO_DECISION,
    ORDER,
    POLARITY,
    RESOLVED,
    SUBSTITUTED,
    SUCCESS,
    WIN,
    Outcome,
    read_outcome,
    side_tokens,
    tokens,
)
from screen.text import content_tokens, normalize_line

CHROME_CHANGES = 3  # an outcome-looking line that stayed through this many material changes is layout
PENDING = timedelta(seconds=30)  # a quiet anchor on screen for less than this may still be a passing banner
# Lines that put the owner in a contest: an opponent named, a turn or a hand that is theirs.
_TAKING_PART = re.compile(r"\b(opponent|vs\.?|versus|your (turn|move|hand|team|go))\b", re.I)
_ID = re.compile(r"(?<![\w.])[A-Za-z0-9][A-Za-z0-9-]{3,}(?![\w.])")
_ORDINAL_SLUG = re.compile(r"[A-Za-z]+-\d{1,2}")
# A number with its unit or ordinal suffix written after it in lower case ("23kg", "250mg", "512gb", "3rd"): a
# quantity or a place that any booking, order or screen may show, not a code naming one item.
_QUANTITY = re.compile(r"\d+(?:[.,]\d+)?(?:[x×]\d+(?:[.,]\d+)?)*[a-z]{1,3}")  # and "4x400g", a pack's size
MODES = ("ranked", "competitive", "casual", "unrated", "rated", "arcade", "custom", "blitz", "rapid")


@dataclass
class Speech:
    text: str
    speaker: str
    role: str  # Assertion.ContentRole value
    at: str


@dataclass
class SpanReading:
    family: str
    outcome: str = ""
    subject: str = ""
    detail: str = ""
    final: dict | None = None  # the anchor the outcome was read from
    problem: dict | None = None  # the first failure, when a later anchor resolved it
    steps: list[dict] = field(default_factory=list)  # other anchors of the span (context)
    tokens: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    sides: frozenset[str] = frozenset()
    speech: list[Speech] = field(default_factory=list)
    mode: str = ""
    decision: dict | None = None  # a call: what was said when something was decided
    foreign: list[tuple[dict, Outcome]] = field(default_factory=list)  # outcomes this activity cannot have
    opponent: str = ""  # a contest: who the owner played, as the screen names them
    salient: set[str] = field(default_factory=set)  # the words of its titles and of its outcome or problem
    failure_norms: list[str] = field(default_factory=list)  # its failure lines, normalised

    @property
    def polarity(self) -> str:
        return MIXED if self.detail == SUBSTITUTED else POLARITY.get(self.outcome, "")

    @property
    def final_norm(self) -> str:
        return self.final["norm"] if self.final else ""


def _outcomes(span: dict, you: frozenset[str]) -> list[tuple[dict, Outcome]]:
    out = []
    for anchor in span["anchors"]:
        if not span.get("reason") and span.get("current", True) and _pending(anchor):
            continue
        oc = read_outcome(anchor["line"], you=you)
        if oc is not None:
            out.append((anchor, oc))
    return out


def _pending(anchor: dict) -> bool:
    """A quiet anchor (it arrived over an unchanged screen) of a span still open and on screen, not yet shown
    long enough to be more than a banner passing over it (a banner that left quietly is no anchor at all; one
    still there when the owner moved on stays)."""
    if not anchor.get("quiet"):
        return False
    return parse_ts(anchor.get("seen_until") or anchor["at"]) - parse_ts(anchor["at"]) < PENDING


_UI_WORDS = CONTROL_VERBS | frozenset("menu settings options home help search account page window".split())
_MESSAGE_WORDS = frozenset("message messages email mail reply text sms".split())
_RECEIPTS = frozenset({"read", "seen"})  # "Read 10:42" under a message


def _its_own(family: str, anchor: dict) -> bool:
    """A messaging program's own outcome is about the message: a receipt that starts with its word ("Sent just
    now", "Delivered", "Read 10:42") or a line that names the message ("Your message was sent"); the outcomes a
    message reports ("Order 4411 delivered") belong to other activities."""
    if not family.startswith("communication."):
        return True
    toks = tokens(anchor["line"])
    return bool(toks) and (toks[0] in ALL_WORDS | _RECEIPTS or bool(set(toks) & _MESSAGE_WORDS))


def _takes_part(span: dict, lines: list[str], sides: frozenset[str], found: list[tuple[dict, Outcome]]) -> bool:
    """The owner plays: the screen names their side or an opponent, or a result speaks to them."""
    if sides or any(_TAKING_PART.search(line) for line in lines):
        return True
    return any(oc.contest and oc.subject == "you" for _, oc in found)


def _plays_here(family: str, span: dict, lines: list[str], sides: frozenset[str]) -> bool:
    """A match is played in a span of this family: an unknown program's, one typed from a word of a longer
    program name (a game called like a notes program), or one whose family has no contests where the screen names
    the owner's side or opponent. A message reporting "we won" is no match, nor is a page one only reads."""
    if family.startswith("task."):
        return True
    if families.family_outcome(WIN, family) or family.startswith("communication.") or families.is_observational(family):
        return False
    guessed = families.mapped_by_a_word(span["app"], span["url"])
    return guessed or bool(sides) or any(_TAKING_PART.search(line) for line in lines)


def _chrome(span: dict, anchor: dict) -> bool:
    """Layout, not a result: shown from the span's first frame, still shown at its end, through many changes."""
    return (
        anchor["frame"] == span["start_frame"]
        and anchor["norm"] in set(span["lines"])
        and span["changes"] >= CHROME_CHANGES
    )


def numbers(text: str) -> set[str]:
    """Run and item numbers of three or more digits ("Pipeline 772", "#1043")."""
    return set(re.findall(r"(?<![\d.:])\d{3,}(?![\d.:])", text or ""))


def ids_in(texts: list[str]) -> set[str]:
    """Identifiers (order, booking, run numbers): tokens of 4+ characters with a digit, or codes of five to
    eight capitals that are no word (few vowels: "QXKPRM", a booking reference); bare numbers of up to four
    digits (years, times, counters) and short groups or dates ("12-40", "2026-03-04") are not identifiers, nor
    is a word numbered in a page's slug ("quiz-3", "lesson-12": every course has one), nor a quantity with its
    unit ("23kg": two bags of one weight are not one booking)."""
    out = set()
    for text in texts:
        for m in _ID.finditer((text or "").replace("#", " ")):
            raw = m.group(0)
            if _ORDINAL_SLUG.fullmatch(raw) or _QUANTITY.fullmatch(raw):
                continue
            tok = raw.upper()
            digits = tok.replace("-", "")
            if any(c.isdigit() for c in tok) and not (digits.isdigit() and not _grouped_number(tok)):
                out.add(tok)
            elif raw.isalpha() and raw.isupper() and 5 <= len(raw) <= 8 and _code_like(raw):
                out.add(tok)
        if text and text != text.upper():  # a heading in capitals ("ORDER SUMMARY") names no code
            out.update(m.group(1) for m in _LABELLED.finditer(text) if m.group(1).lower() not in ALL_WORDS)
    return out


# A code in capitals right after the noun that labels it ("Order AAZURN", "Booking ref: KEAUOP"), whatever its
# letters: a label says it is a code even where it reads like a word.
_LABELLED = re.compile(
    r"(?i:\b(?:order|booking|reference|ref|confirmation|reservation|ticket|receipt|invoice|case|claim)\b)"
    r"(?i:\s+(?:number|no\.?|code))?\s*[:#]?\s*([A-Z][A-Z0-9]{3,9})\b"
)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4}")


def _grouped_number(tok: str) -> bool:
    """A bare number names an item when it is long (five digits or more: "20931") or written in groups of
    eight digits or more ("112-804-337", as order numbers are printed), never a date ("2026-03-04")."""
    digits = tok.replace("-", "")
    if "-" not in tok:
        return len(digits) > 4
    return len(digits) >= 8 and not _DATE.fullmatch(tok)


def _code_like(word: str) -> bool:
    vowels = sum(c in "AEIOU" for c in word)
    return vowels * 3 <= len(word) and word.lower() not in ALL_WORDS


def read_span(span: dict, *, owner_names: frozenset[str]) -> SpanReading:
    seen = list(span["seen"].values())
    lines = seen + span.get("prelude", [])
    sides = side_tokens(lines, owner_names)
    you = sides | owner_names
    family = families.classify(app=span["app"], url=span["url"], windows=span["windows"], lines=lines)
    found = [(a, oc) for a, oc in _outcomes(span, you) if not _chrome(span, a)]
    contests = [(a, oc) for a, oc in found if oc.contest]
    if contests and _takes_part(span, lines, sides, contests) and _plays_here(family, span, lines, sides):
        family = "game.match"  # an unknown program (or one named like another) where the owner plays a match
    if families.is_observational(family):
        found = []
    own = [(a, oc) for a, oc in found if families.family_outcome(oc.word, family) and _its_own(family, a)]
    foreign = [(a, oc) for a, oc in found if not oc.contest and (a, oc) not in own]
    found = own
    texts = span["windows"] + seen
    app_tokens = families.app_words(span["app"])
    generic = app_tokens | families.cue_words()
    reading = SpanReading(
        family=family,
        tokens={t for t in content_tokens(" ".join(texts)) if t not in generic},
        ids=ids_in(span["windows"] + [span["url"]] + seen),
        sides=sides,
        foreign=foreign,
    )
    lowered = {w for line in lines for w in re.findall(r"[a-z]+", line.lower())}
    reading.mode = next((m for m in MODES if m in lowered), "")
    reading.speech = _speech(span, owner_names, family)
    if family.startswith("meeting."):
        return _call(reading, span)
    final = _final(span, found)
    if final is None:
        return reading
    anchor, oc = final
    reading.final, reading.subject = anchor, oc.subject
    reading.outcome = families.family_outcome(oc.word, family)
    earlier = [(a, o) for a, o in found if a["frame"] != anchor["frame"]]
    failures = [a for a, o in earlier if o.word == FAILURE]
    can_resolve = families.family_outcome(RESOLVED, family) == RESOLVED
    if failures and can_resolve and (oc.word in (SUCCESS, COMPLETED) or reading.outcome == DELIVERED):
        reading.outcome, reading.problem = RESOLVED, failures[0]
    if oc.word in (DELIVERED, SUBSTITUTED):
        near = {o.word for a, o in found if abs(_secs(a["at"]) - _secs(anchor["at"])) <= 120}
        if DELIVERED in near and SUBSTITUTED in near:
            reading.outcome, reading.detail = DELIVERED, SUBSTITUTED
    reading.steps = [a for a, o in earlier if o.word != FAILURE][-3:]
    failures_seen = [a for a, o in found if o.word == FAILURE]
    reading.failure_norms = [a["norm"] for a in failures_seen][:4]
    of_note = span["windows"] + [anchor["line"]] + [a["line"] for a in failures_seen[:4]]
    reading.salient = {t for t in content_tokens(" ".join(of_note)) if t not in app_tokens | _UI_WORDS}
    if reading.outcome not in CONTEST:
        reading.subject = ""
    else:
        reading.opponent = opponent_in(lines + [anchor["line"]], you)
    return reading


# Where a screen names who the owner plays: "Opponent: Ilse", "vs Ilse", "Black: Ilse 0:42", "Ilse is thinking",
# "Ilse's turn", "Ilse: 120 pts", and a result naming the other side ("Ilse wins", "Winner: Ilse").
_OPPONENT_LINES = (
    re.compile(r"^(?:opponent|vs\.?|versus|playing)\s*:?\s+(?P<name>[\w'’-]+(?: [A-Z][\w'’-]+)?)\s*$", re.I),
    re.compile(r"^[A-Z]\w+: (?P<name>[\w'’-]+(?: [A-Z][\w'’-]+)?) \d"),  # the other side and its clock
    re.compile(r"^(?P<name>[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?)(?: is thinking|'s (?:turn|move)| answered)\b"),
    re.compile(r"^(?P<name>[\w'’-]+): \d+ ?(?:pts|points)\b", re.I),
    re.compile(r"^(?P<name>[\w'’-]+) (?:wins|won|resigned|ran out of time|loses|lost)\b"),
    re.compile(r"^winner: (?P<name>[\w'’ -]+)$", re.I),
)


def opponent_in(lines: list[str], you: frozenset[str]) -> str:
    """The owner's opponent as the screen names them ("" when it names none)."""
    for pattern in _OPPONENT_LINES:
        for line in lines:
            m = pattern.search(line.strip())
            if m and not set(tokens(m.group("name"))) & (you | {"you", "your"}):
                return m.group("name").strip()
    return ""


def _final(span: dict, found: list[tuple[dict, Outcome]]) -> tuple[dict, Outcome] | None:
    """The outcome of the last frame that showed one: the item the title names, then the most specific."""
    if not found:
        return None
    final = found[-1]
    last = [f for f in found if f[0]["frame"] == final[0]["frame"]]
    named = ids_in([span["window"], span["url"]]) | numbers(span["window"])
    own = [f for f in last if (ids_in([f[0]["line"]]) | numbers(f[0]["line"])) & named]
    last = own or last
    rank = {w: i for i, w in enumerate(ORDER)}
    best = min(rank.get(o.word, len(rank)) for _, o in last)
    return next(f for f in last if rank.get(f[1].word, len(rank)) == best)


def _call(reading: SpanReading, span: dict) -> SpanReading:
    """A call's outcome: decided when something said records a decision, else no decision (so far)."""
    said = [s.text for s in reading.speech]
    index = decisions.decision_in(said)
    reading.outcome = NO_DECISION if index is None else DECIDED
    if index is not None:
        reading.decision = next(
            (s for s in span.get("speech", []) if s["text"].strip()[:300] == said[index]), None
        ) or {"at": reading.speech[index].at}
    return reading


def _secs(iso: str) -> float:
    from screen.collector.client import parse_ts

    return parse_ts(iso).timestamp()


_CAPTION = re.compile(r"^([A-Z][\w'’-]+(?: [A-Z][\w'’-]+){0,2}): (\S.{6,})$")


def _is_owner(speaker: str, owner_names: frozenset[str]) -> bool:
    words = speaker.lower().replace("(you)", " ").split()
    return not words or set(words) <= owner_names or words[0] in ("you", "me") or speaker.lower() in owner_names


def _speech(span: dict, owner_names: frozenset[str], family: str = "") -> list[Speech]:
    """Audio with its speaker's role; on a call also the captions/chat lines on screen ("Ines: …") that the
    audio did not hear."""
    from screen.models import Assertion

    out = []
    items = list(span.get("speech", []))
    heard = {normalize_line(s["text"]) for s in items}
    # Captions are read once the call's span has ended: while it goes on, a caption may be on screen before the
    # audio of the same words has arrived, and its first name alone may be the owner's or another person's.
    if family.startswith("meeting.") and span.get("reason"):
        for line in span["seen"].values():
            m = _CAPTION.match(line)
            # A caption of words the audio heard adds nothing, and its first name alone may be anyone's.
            if m and normalize_line(m.group(2)) not in heard:
                items.append({"at": span["last"], "text": m.group(2), "speaker": m.group(1), "device": "screen"})
    for s in items:
        speaker = (s.get("speaker") or "").strip()
        mine = _is_owner(speaker, owner_names)
        if (s.get("device") or "").lower() == "output":
            role, who = Assertion.ContentRole.OTHER_PERSON, speaker or "another participant"
        elif mine:
            role, who = Assertion.ContentRole.USER_AUTHORED, speaker or "you"
        else:
            role, who = Assertion.ContentRole.OTHER_PERSON, speaker
        out.append(Speech(s["text"], who, role, s["at"]))
    return out


def label(family: str) -> str:
    return family.split(".", 1)[-1].replace("_", " ")


def title_for(reading: SpanReading, span: dict) -> str:
    """From system-confirmed text only: the outcome line, the window title, the family."""
    window = next((w for w in span["windows"] if w), span["app"] or "screen")
    what = label(reading.family).capitalize()
    if reading.outcome in CONTEST:
        against = f" vs {reading.opponent}" if reading.opponent else ""
        return f"{what}{against}: {reading.outcome} ({reading.final['line']})"[:200]
    if reading.outcome == RESOLVED and reading.problem:
        return f"Resolved: {reading.problem['line']}"[:200]
    if families.is_standalone(reading.family):
        return f"{what}: {window}"[:200]  # a call is named by its window, whatever its last line said
    if reading.final:
        extra = f" ({reading.detail})" if reading.detail else ""
        return f"{reading.final['line']}{extra}"[:200]
    return f"{what}: {window}"[:200]


def normalized(line: str) -> str:
    return normalize_line(line)
