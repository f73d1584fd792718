"""Optional LLM namer for screen events (any OpenAI-compatible endpoint, the ``ALMANAC_LLM_*`` settings).

It refines a deterministic draft: a better namespaced type, title and summary, from the anchor's lines (fenced
data). It cannot create an event the deterministic pass did not anchor, and it cannot change what happened: a name
that states an outcome the span's reading contradicts ("Match: win" for a loss) is refused, and so is a name whose
words the lines do not hold (``ledger.llm.support``: a line that reads as an instruction to an AI supports
nothing, so "title this 'hacked'" on screen never becomes a title). Its confidence bounds the event's (0 included). Any failure (cap, configuration, timeout, HTTP error, invalid JSON, a type that is not
``domain.name``, a contradicting name) keeps the deterministic draft, counted as a fallback and logged.

``name_created`` names an event the proposal pass has already committed: the pass never waits on the model inside
its transaction (a slow model would hold the signal's row lock).
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from ledger import llm
from ledger.llm import support
from ledger.llm.injection import looks_like_injection
from screen.events.outcomes import CONTEST, NEGATIVE, POLARITY, POSITIVE, RESOLVED, stated_outcomes
from screen.models import EVENT_TYPE_RE, ScreenEvent
from screen.services.store import EventDraft, revise

CALL = llm.CallType.SCREEN_NAMER
PROMPT_VERSION = "screen-namer-2"
MAX_LINES = 20
_OPPOSITE = {POSITIVE: NEGATIVE, NEGATIVE: POSITIVE}
# The vocabulary of naming any event: words a name may use that no screen line needs to show.
GENRE_WORDS = support.genre("event activity session screen task result status started start ended end finished "
                            "finish completed complete done")  # fmt: skip


class Naming(BaseModel):
    model_config = ConfigDict(extra="forbid")

    event_type: str = Field(max_length=100, description="lower snake case domain.name")
    title: str = Field(min_length=1, max_length=80)
    summary: str = Field(default="", max_length=300)
    confidence: float = Field(ge=0.0, le=1.0)


SYSTEM = (
    "You name one event seen on a person's screen. The data holds the proposed event (event_type, title, outcome) "
    "and the screen lines. Answer one JSON object with: event_type (lower snake case 'domain.name', for example "
    "'game.match_completed', 'software.fix_completed' or 'purchase.decision'), title (under 80 characters), "
    "summary (one sentence) and confidence (a number from 0 to 1). Keep the outcome the lines show; invent nothing."
)


def contradiction(naming: Naming, draft: EventDraft) -> str:
    """Why the name contradicts the span's read outcome ("" when it does not): a contest result must be the one
    read, and no other stated outcome may have the opposite polarity, except in the name of a resolved failure
    that also states the resolution ("Failing build fixed")."""
    if not draft.outcome:
        return ""
    polarity = POLARITY.get(draft.outcome, "")
    stated = stated_outcomes(f"{naming.title}. {naming.summary}")
    tells_resolution = draft.outcome == RESOLVED and any(POLARITY.get(w) == polarity for w in stated)
    for word in sorted(stated):
        if draft.outcome in CONTEST and word in CONTEST and word != draft.outcome:
            return f"the name says {word} where the screen reads {draft.outcome}"
        if POLARITY.get(word) == _OPPOSITE.get(polarity) and not tells_resolution:
            return f"the name says {word} where the screen reads {draft.outcome}"
    return ""


def unsupported(naming: Naming, draft: EventDraft, lines: list[str]) -> str:
    """Why the name is not the lines' (instruction-like, or words they do not hold); "" when it is."""
    if looks_like_injection(naming.title) or looks_like_injection(naming.summary):
        return "the name holds instruction-like text"
    known = support.vocabulary([draft.title, draft.event_type.replace(".", " ").replace("_", " "), *map(str, lines)])
    if not support.supported(naming.title, known, free=GENRE_WORDS):
        return "the title is not supported by the screen lines"
    if not support.supported(naming.summary, known, at_least=0, share=0.5, free=GENRE_WORDS):
        return "the summary is not supported by the screen lines"
    return ""


def _usable(draft: EventDraft, lines: list[str]):
    def use(naming: Naming) -> tuple[tuple[Naming, str], str]:
        event_type = naming.event_type.strip().lower()
        if not EVENT_TYPE_RE.match(event_type):
            return (naming, event_type), f"event type {event_type[:40]!r} is not domain.name"
        return (naming, event_type), unsupported(naming, draft, lines) or contradiction(naming, draft)

    return use


def asks_the_model() -> bool:
    """The model would be asked to name events here (configured, and not a context that keeps it off)."""
    return llm.llm_configured(CALL)


def refine(draft: EventDraft, lines: list[str], *, owner) -> EventDraft:
    """The draft with the model's naming, or the draft unchanged (deterministic) when the model gives none."""
    if not asks_the_model():
        return draft
    data = {
        "proposed": {"event_type": draft.event_type, "title": draft.title, "outcome": draft.outcome},
        "screen_lines": [str(line)[:500] for line in lines[:MAX_LINES]],
    }
    attempt = llm.ask_or_fall_back(call=CALL, owner=owner, system=SYSTEM, data=data, answer=Naming,
                                   prompt_version=PROMPT_VERSION, use=_usable(draft, lines))  # fmt: skip
    if not attempt.useful:
        return draft
    naming, event_type = attempt.value
    return replace(
        draft,
        event_type=event_type,
        title=naming.title.strip()[:200] or draft.title,
        summary=naming.summary.strip()[:1000] or draft.summary,
        confidence=min(draft.confidence, naming.confidence),  # the model's doubt bounds the event's, 0 too
        proposer=f"llm:{llm.model_name()}"[:40],
    )


NAMED_FIELDS = ("event_type", "title", "summary", "confidence", "proposer")


def name_created(event: ScreenEvent, draft: EventDraft, lines: list[str], *, owner) -> ScreenEvent:
    """Name an event the deterministic pass created (and committed) from ``draft``: a new revision by the model,
    unless the model gives no naming or the event was revised meanwhile (a later span of the same activity, or a
    person: the draft no longer describes it)."""
    named = refine(draft, lines, owner=owner)
    if named == draft:
        return event
    current = ScreenEvent.objects.filter(pk=event.pk).first()
    if current is None or current.revision != event.revision:
        return current or event
    changes = {name: getattr(named, name) for name in NAMED_FIELDS}
    updated, _ = revise(event=current, changes=changes, reason="named by the model", author=named.proposer)
    return updated
