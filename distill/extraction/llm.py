"""LLM extraction for any OpenAI-compatible endpoint: one chunk of turns in, the model's screened candidates out.

- **Chunks**: each conversation is cut into chunks of ``CHUNK_TURNS`` turns; one call per chunk.
- **Structured, fenced, once**: the chunk goes once, as a JSON object of turns inside a fence it cannot close
  (``ledger.llm.Fence``); the answer is the ``Answer`` schema sent as ``response_format``, with item limits and the
  allowed ``kind``/``importance``/``subject`` values listed in the prompt too.
- **Same parse and model as every candidate**: an item becomes a normal ``Candidate`` only after the quoted turn
  is parsed as the deterministic path parses it: the claim of the turn that says it (``parse_claims``) must
  exist, its parse features become the candidate's (so the gate model scores it like any other) and its hard
  rules set the ``ceiling`` (``deterministic.parse_ceiling``); speaker attribution is checked too. The model's own
  confidence is stored as ``features["llm_confidence"]``, one feature among others: alone it never decides.
- **A useless answer is not an answer**: a failed call, a call the cap refused, or an answer with nothing usable
  (no items, items pointing outside the chunk, every item stopped by the claim screen) gives ``why`` instead of
  candidates and is never cached; the candidates step (``distill.steps.candidates``) then takes the deterministic
  extractor's candidates for those turns. Only useful answers are cached (key: prompt version, schema, model, data).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from distill.extraction import nlp
from distill.extraction.base import (
    ATTRIBUTIONS,
    IMPORTANCE,
    KINDS,
    Candidate,
    ConversationIn,
    DayInput,
    Evidence,
    TurnIn,
    normalize_text,
)
from distill.extraction.deterministic import DROPPED, parse_ceiling
from distill.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection
from distill.extraction.parse_claims import claims_from_doc
from distill.extraction.speakers import is_real_name
from distill.extraction.text import clean
from ledger import llm
from ledger.lexicon import claim_stem

CALL = llm.CallType.EXTRACTOR
CHUNK_TURNS = 40
MAX_ITEMS = 60
PROMPT_VERSION = "extractor-4"
# An LLM-only claim's extraction confidence lies in [LLM_FLOOR, LLM_PRIOR] × (its own confidence): with the default
# source trust (0.8) its score stays below auto-approve (0.7) until the judge or another source backs it.
LLM_PRIOR = 0.75
LLM_FLOOR = 0.45
MIN_SUPPORT = 0.5  # share of the claim's content words the quoted clause must contain


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn_index: int = Field(ge=0, description="the i of the turn where it is said")
    subject: Literal[ATTRIBUTIONS]  # type: ignore[valid-type]
    person: str | None = Field(default=None, max_length=120)
    content: str = Field(min_length=1, max_length=300)
    kind: Literal[KINDS]  # type: ignore[valid-type]
    importance: Literal[IMPORTANCE]  # type: ignore[valid-type]
    confidence: float = Field(ge=0.0, le=1.0)


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS)


SYSTEM = (
    "You extract durable personal memories from a conversation. The data holds owner (the name of the person whose "
    "memories these are) and turns, a list of {i, speaker, is_owner, text}. Answer one JSON object "
    '{"candidates": [...]} with at most ' + str(MAX_ITEMS) + " items, one per fact a careful person would "
    "remember. Each item has: turn_index (the i of the turn that says it; only an i from the data), subject "
    f"(one of: {', '.join(ATTRIBUTIONS)}; user means the owner, third_party someone else named in person, unknown "
    "when unsure), person (the third party's name, or null), content (one short grammatical third-person sentence "
    f"naming the person), kind (one of: {', '.join(KINDS)}), importance (one of: {', '.join(IMPORTANCE)}) and "
    "confidence (a number from 0 to 1). First-person statements are about their speaker; second-person statements "
    "are about the one addressed. Skip hypotheticals, jokes, figurative speech, sarcasm, quotes of shows or other "
    "people, questions, greetings, small offers and pleasantries, passing actions, fragments, plans cancelled "
    "later, and anything unclear. No facts: an empty list."
)


def chunks(day: DayInput, size: int = CHUNK_TURNS) -> list[tuple[ConversationIn, list[TurnIn]]]:
    out = []
    for conv in day.conversations:
        for start in range(0, len(conv.turns), size):
            out.append((conv, conv.turns[start : start + size]))
    return out


def chunk_data(owner: str, chunk: list[TurnIn]) -> dict:
    turns = [
        {"i": u.index, "speaker": owner if u.is_owner else (u.speaker_name or "speaker"), "is_owner": u.is_owner,
         "text": u.text}
        for u in chunk
    ]  # fmt: skip
    return {"owner": owner, "turns": turns}


def configured() -> bool:
    return llm.llm_configured(CALL)


class LLMExtractor:
    """The model's candidates for one chunk of turns (``ask``); the caller decides what stands in for a chunk
    the model could not answer."""

    ID = "llm"
    VERSION = "3.0"

    @classmethod
    def version(cls) -> str:
        return f"{cls.VERSION}+{llm.model_name()}"

    def ask(self, day: DayInput, conv: ConversationIn, chunk: list[TurnIn]) -> llm.Attempt:
        """One call for ``chunk``: ``Attempt.value`` is its screened candidates when ``useful``, else ``why``
        says why none can be used (never raises)."""
        owner = (day.owner_name or "the user").split()[0]
        span = f"turns {chunk[0].index}-{chunk[-1].index}" if chunk else "an empty chunk"

        def use(answer: Answer):
            return self._usable(answer, conv=conv, chunk=chunk, version=self.version(), owner=owner)

        return llm.ask_or_fall_back(call=CALL, owner=day.owner_key, system=SYSTEM, answer=Answer, use=use,
                                    data=chunk_data(owner, chunk), prompt_version=PROMPT_VERSION,
                                    where=span)  # fmt: skip

    def _usable(self, answer: Answer, conv, chunk, version, owner) -> tuple[list[Candidate], str]:
        """(candidates, "") from a useful answer, or ([], why the deterministic path must run)."""
        by_index = {u.index: u for u in chunk}
        out = [c for item in answer.candidates if (c := self._candidate(item, by_index, conv, version, owner))]
        if not out:
            items = len(answer.candidates)
            return [], f"the model's answer had nothing usable ({items} items)" if items else "the model found nothing"
        if all(c.ceiling == DROPPED for c in out):
            # Nothing of it can become a memory: the parse must not lose what it would have found in these turns.
            return [], f"every candidate of the model's answer failed the claim screen ({len(out)} items)"
        return out, ""

    def _candidate(self, item: Item, by_index: dict, conv: ConversationIn, version: str, owner: str):
        utt = by_index.get(item.turn_index)
        if utt is None:
            return None  # the model pointed outside its chunk: not evidence
        content = " ".join(item.content.split())
        attribution, person, ceiling, reason = attribute(item, utt, owner)
        cand = Candidate(
            subject="user" if attribution == "user" else (f"person:{person}" if person else "unknown"),
            predicate=f"{item.kind}:statement",
            args=[],
            content=content,
            kind=item.kind,
            importance=item.importance,
            extraction_confidence=LLM_FLOOR + (LLM_PRIOR - LLM_FLOOR) * float(item.confidence),
            capture_confidence=0.9,
            attribution=attribution,
            person=person,
            evidence=Evidence(first_index=utt.index, last_index=utt.index, quote=utt.text),
            valid_from=utt.started_at or conv.started_at,
            extractor=self.ID,
            extractor_version=version,
            ceiling=ceiling,
            ceiling_reason=reason,
            features={"llm_confidence": round(float(item.confidence), 4)},
        )
        screen(cand, utt, drop_words={owner, person})
        if looks_like_injection(utt.text):
            cand.capture_confidence = INJECTION_CAPTURE_CONFIDENCE
            cand.flags.append("instruction-like text")
        return cand


def attribute(item: Item, utt: TurnIn, owner: str) -> tuple[str, str, str, str]:
    """(attribution, person, ceiling, reason) after checking the model's attribution against the turn."""
    attribution = item.subject
    person = " ".join((item.person or "").split()) if attribution == "third_party" else ""
    if attribution == "third_party":
        first = person.split()[0] if person else ""
        named_here = bool(first) and (first.lower() in utt.text.lower() or first == (utt.speaker_name or "").split()[0])
        if not is_real_name(person) or not named_here:
            return "unknown", "", "pending_review", "the person is not named in the quoted turn"
    if attribution == "unknown":
        return "unknown", "", "pending_review", "speaker not identified"
    if attribution == "user" and not utt.is_owner:
        return "user", "", "pending_review", "said about the owner by someone else"
    return attribution, person, "", ""


_WORD = re.compile(r"[a-z0-9']+")


def _content_words(text: str, drop: set[str]) -> set[str]:
    stop = {w.lower() for w in drop if w} | {
        "i",
        "me",
        "my",
        "you",
        "your",
        "he",
        "she",
        "his",
        "her",
        "they",
        "their",
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "to",
        "of",
        "and",
        "in",
        "at",
        "s",
    }
    return {w for w in _WORD.findall(normalize_text(text)) if w not in stop and len(w) > 1}


def screen(cand: Candidate, utt: TurnIn, *, drop_words: set[str]) -> None:
    """The deterministic path's parse of the turn that supports the claim: the claim it finds there lends the
    candidate its parse features and its hard rules (questions, hypotheticals, conditions, quotes…)."""
    mine = _stems(cand.content, drop_words)
    best, best_support = None, 0.0
    for claim in claims_from_doc(nlp.parse([clean(utt.text)])[0]):
        support = len(mine & _stems(claim.text, drop_words)) / len(mine) if mine else 0.0
        if support > best_support:
            best, best_support = claim, support
    if best is None or best_support < MIN_SUPPORT:
        _cap(cand, DROPPED, "the quoted turn does not say it")
        return
    cand.features = {**best.features, **cand.features}  # the LLM's own signals (llm_confidence) stay
    ceiling, reason = parse_ceiling(best.features)
    if ceiling:
        _cap(cand, ceiling, reason)


def _stems(text: str, drop: set[str]) -> set[str]:
    """Content words, stemmed so that "I work" supports "Tove works"."""
    return {claim_stem(w) for w in _content_words(text, drop)}


def _cap(cand: Candidate, ceiling: str, reason: str) -> None:
    cand.flags.append(reason)
    if ceiling == DROPPED or not cand.ceiling:
        cand.ceiling, cand.ceiling_reason = ceiling, reason
