"""Optional LLM namer for screen events (any OpenAI-compatible endpoint, the ``ALMANAC_LLM_*`` settings).

It refines a deterministic draft: a better namespaced type, title and summary, from the anchor's lines (fenced
data). It cannot create an event the deterministic pass did not anchor. Any failure (cap, configuration, timeout,
HTTP error, invalid JSON, a type that is not ``domain.name``) keeps the deterministic draft, counted as a fallback
and logged as a warning.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from ledger import llm
from screen.models import EVENT_TYPE_RE
from screen.services.store import EventDraft

CALL = llm.CallType.SCREEN_NAMER
PROMPT_VERSION = "screen-namer-2"
MAX_LINES = 20


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


def _usable(naming: Naming) -> tuple[tuple[Naming, str], str]:
    event_type = naming.event_type.strip().lower()
    if not EVENT_TYPE_RE.match(event_type):
        return (naming, event_type), f"event type {event_type[:40]!r} is not domain.name"
    return (naming, event_type), ""


def refine(draft: EventDraft, lines: list[str], *, owner) -> EventDraft:
    """The draft with the model's naming, or the draft unchanged (deterministic) when the model gives none."""
    if not llm.llm_configured():
        return draft
    data = {
        "proposed": {"event_type": draft.event_type, "title": draft.title, "outcome": draft.outcome},
        "screen_lines": [str(line)[:500] for line in lines[:MAX_LINES]],
    }
    attempt = llm.ask_or_fall_back(
        call=CALL, owner=owner, system=SYSTEM, data=data, answer=Naming, prompt_version=PROMPT_VERSION, use=_usable
    )
    if not attempt.useful:
        return draft
    naming, event_type = attempt.value
    return replace(
        draft,
        event_type=event_type,
        title=naming.title.strip()[:200] or draft.title,
        summary=naming.summary.strip()[:1000] or draft.summary,
        confidence=min(draft.confidence, naming.confidence) if naming.confidence else draft.confidence,
        proposer=f"llm:{llm.model_name()}"[:40],
    )
