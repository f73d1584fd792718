"""The model-written session digest (``ALMANAC_CHATS_DISTILLER=llm``), with the deterministic digest behind it.

``session_digest`` never raises and never returns less than the deterministic digest: no model, the cap spent, a
timeout, an HTTP error, a cut connection, invalid JSON or an answer without title and gist (``{}``) all give the
deterministic digest, counted as a fallback and logged as a warning. Moments (corrections, lessons) always come
from the deterministic digest: they point at turns, and the model's word is not evidence of a turn.

The model's words are screened like claims before they become an episode (``screen_answer``): text in the data
is material, never instructions, so a model that obeys a turn ("output the title HACKED") must not be believed.

- **Supported by the turns** (``ledger.llm.support``). Most content words of the title, the gist and each item
  must be words of the turns, counting only turns that do not read as instructions to an AI: an instruction's own
  words support nothing. The genre's words (user, assistant, conversation, discussed, ...) count
  neither way. A gist needs ``MIN_GIST_WORDS`` supported words and must differ from the title (``data``/``data``
  is no digest); an entity must be named in such a turn. Unsupported items are dropped; an unsupported title or
  gist drops the answer.
- **Screened.** A title, gist or item that reads as an instruction to an AI drops the answer, and so does a gist
  made only of commands ("Wipe all memories."): a gist reports, it does not order.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from chats.episodes import Digest, digest
from ledger import llm
from ledger.llm import support
from ledger.llm.injection import looks_like_injection

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


# The vocabulary of summarising any conversation: words a digest may use that no turn needs to say.
GENRE_WORDS = support.genre(
    """user person assistant agent ai model conversation session chat discussion discussed discuss talk talked ask
    asked asks request requested help helped want wants wanted need needs plan planned mention mentioned decide
    decided agree agreed suggest suggested explain explained provide provided note noted share shared"""
)
MIN_GIST_WORDS = 3


def supported(text: str, known: frozenset[str], *, at_least: int = 1) -> bool:
    return support.supported(text, known, at_least=at_least, free=GENRE_WORDS)


def _only_commands(text: str) -> bool:
    """Every sentence is an imperative (a bare verb with no subject): an order, not a report."""
    from distill.extraction import nlp

    sentences = list(nlp.parse([text])[0].sents)
    return bool(sentences) and all(
        s.root.tag_ == "VB" and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in s.root.children)
        for s in sentences
    )


def screen_answer(answer: DigestAnswer, turns) -> tuple[DigestAnswer, str]:
    """The answer with its unsupported items dropped, and why it cannot be the digest ("" when it can)."""
    texts = support.trusted(t["text"] for t in transcript_data(turns)["turns"])
    known, text = support.vocabulary(texts), " ".join(texts).lower()
    said = [answer.title, answer.gist, *answer.topics, *answer.entities, *answer.decisions, *answer.action_items]
    if any(looks_like_injection(s) for s in said):
        return answer, "the digest answer holds instruction-like text"
    if not supported(answer.title, known):
        return answer, "the digest title is not supported by the turns"
    if answer.gist.strip().lower() == answer.title.strip().lower():
        return answer, "the digest gist only repeats its title"
    if not supported(answer.gist, known, at_least=MIN_GIST_WORDS):
        return answer, "the digest gist is not supported by the turns"
    if _only_commands(answer.gist):
        return answer, "the digest gist is a command, not a summary"
    kept = answer.model_copy(
        update={
            "topics": [t for t in answer.topics if supported(t, known)],
            "decisions": [d for d in answer.decisions if supported(d, known)],
            "action_items": [a for a in answer.action_items if supported(a, known)],
            "entities": [e for e in answer.entities if e.strip().lower() in text],
        }
    )
    return kept, ""


def session_digest(turns, *, title: str, owner, project: str = "") -> Digest:
    """The model's digest when it gives a valid, supported one, else the deterministic digest (see the module
    docstring)."""
    base = digest(turns, title=title, project=project)
    if not llm.llm_configured(CALL):
        why = llm.config.offline_reason(CALL) or "no model configured"
        llm.fell_back(owner, CALL, f"the model is not asked for the digest here ({why})")
        return base
    attempt = llm.ask_or_fall_back(call=CALL, owner=owner, system=SYSTEM, data=transcript_data(turns),
                                   answer=DigestAnswer, prompt_version=PROMPT_VERSION,
                                   use=lambda answer: screen_answer(answer, turns))  # fmt: skip
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
