"""The model-written session digest (``ALMANAC_CHATS_DISTILLER=llm``), with the deterministic digest behind it.

``session_digest`` never raises and never returns less than the deterministic digest: no model, the cap spent, a
timeout, an HTTP error, a cut connection, invalid JSON or an answer without title and gist (``{}``) all give the
deterministic digest, counted as a fallback and logged as a warning. Moments (corrections, lessons) always come
from the deterministic digest: they point at turns, and the model's word is not evidence of a turn.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from chats.episodes import Digest, digest
from ledger import llm

CALL = llm.CallType.DIGEST
PROMPT_VERSION = "chats-digest-2"
MAX_TURN_CHARS = 2000
MAX_CHARS = 24000

Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class DigestAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=120)]
    gist: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=800)]
    topics: list[Short] = Field(default_factory=list, max_length=8)
    entities: list[Short] = Field(default_factory=list, max_length=12)
    decisions: list[Short] = Field(default_factory=list, max_length=8)
    action_items: list[Short] = Field(default_factory=list, max_length=8)


SYSTEM = (
    "You summarise one conversation between a person and an AI agent. The data is the list of turns, each with "
    "speaker and text. Answer one JSON object with: title (under 120 characters), gist (two or three sentences), "
    "topics (at most 8 short phrases), entities (at most 12 names of people, projects or things), decisions (at "
    "most 8, each one sentence) and action_items (at most 8, each one sentence). Use only what the turns say."
)


def transcript_data(turns) -> dict:
    rows, used = [], 0
    for t in turns:
        text = (t.text or "")[:MAX_TURN_CHARS]
        if not text.strip():
            continue
        if used + len(text) > MAX_CHARS:
            break
        used += len(text)
        rows.append({"speaker": t.speaker or t.role, "text": text})
    return {"turns": rows}


def session_digest(turns, *, title: str, owner, project: str = "") -> Digest:
    """The model's digest when it gives a valid one, else the deterministic digest (see the module docstring)."""
    base = digest(turns, title=title, project=project)
    if not llm.llm_configured(CALL):
        llm.fell_back(owner, CALL, "no LLM available for the digest")
        return base
    attempt = llm.ask_or_fall_back(call=CALL, owner=owner, system=SYSTEM, data=transcript_data(turns),
                                   answer=DigestAnswer, prompt_version=PROMPT_VERSION)  # fmt: skip
    if not attempt.useful:
        return base
    answer: DigestAnswer = attempt.value
    return Digest(
        title=answer.title[:300],
        gist=answer.gist,
        topics=list(answer.topics),
        entities=list(answer.entities),
        decisions=list(answer.decisions),
        action_items=list(answer.action_items),
        moments=base.moments,
    )
