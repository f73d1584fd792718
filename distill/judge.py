"""The LLM judge: accept, reject or defer per candidate, one call per pass, cached per proposition.

Without an LLM there is no judge (verdict None) and the trust decision runs without it. Every failure (cap,
configuration, timeout, HTTP error, invalid answer, an answer about no candidate) gives no verdicts, a warning
and a counted fallback. Claims and quotes (the claim text was written by a model from the talk) travel
only inside the call's fence. The call counts against the owner's daily cap, also for native-memory imports.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from django.core.cache import cache
from pydantic import BaseModel, ConfigDict, Field

from distill.extraction.base import Candidate
from ledger import llm

CALL = llm.CallType.JUDGE
VERDICTS = ("accept", "reject", "defer")
PROMPT_VERSION = "judge-3"
CACHE_SECONDS = 60 * 60 * 24 * 30
MAX_CANDIDATES = 60


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=0)
    verdict: Literal["accept", "reject", "defer"]
    reason: str = Field(default="", max_length=300)


class Verdicts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdicts: list[Verdict] = Field(default_factory=list, max_length=MAX_CANDIDATES)


SYSTEM = (
    "You judge candidate memories extracted from a conversation. The data is a list of candidates, each with id, "
    "subject, kind, claim (a sentence written by an extraction step) and quote (the words actually said). For each "
    "candidate answer one verdict, exactly one of the words accept, reject or defer: accept for a durable, "
    "correctly attributed fact that the quote clearly supports, written as a correct third-person sentence; reject "
    "for something unsupported, a joke or figure of speech, a hypothetical, a question, a greeting, a quote of "
    "media or of someone else, a small offer or pleasantry, a passing action, a fragment, an object nobody can "
    "resolve, misattributed or misheard; defer when it is plausible but you are unsure. Answer one JSON object "
    "with verdicts, a list of {id, verdict, reason}, one per candidate id."
)
_SCHEMA_DIGEST = hashlib.sha256(json.dumps(Verdicts.model_json_schema(), sort_keys=True).encode()).hexdigest()[:12]


def cache_key(candidate: Candidate) -> str:
    return f"llm:judge:{PROMPT_VERSION}:{_SCHEMA_DIGEST}:{llm.model_name()}:{candidate.proposition_key}"


def _listing(pending: list[Candidate]) -> dict:
    return {
        "candidates": [
            {"id": i, "subject": c.subject, "kind": c.kind, "claim": c.content,
             "quote": c.evidence.quote if c.evidence else ""}
            for i, c in enumerate(pending)
        ]
    }  # fmt: skip


def judge(candidates: list[Candidate], *, owner=None, owner_key: str = "") -> tuple[dict[str, str | None], list[str]]:
    """Verdicts keyed by proposition key (None when no judge ran), plus warnings. ``owner`` (a user or its id;
    ``owner_key`` is the same as a string) is the one whose daily cap pays for the call."""
    owner = owner if owner is not None else owner_key
    verdicts: dict[str, str | None] = {c.proposition_key: None for c in candidates}
    if not candidates:
        return verdicts, []
    if not llm.llm_configured(CALL):
        return verdicts, ["no LLM judge configured: trust = confidence × prior + corroboration"]
    pending = []
    for cand in candidates:
        cached = cache.get(cache_key(cand))
        if cached in VERDICTS:
            verdicts[cand.proposition_key] = cached
        else:
            pending.append(cand)
    pending = pending[:MAX_CANDIDATES]  # the rest waits for the next pass (no verdict: the gate decides alone)
    if not pending:
        return verdicts, []
    attempt = llm.ask_or_fall_back(call=CALL, owner=owner, system=SYSTEM, data=_listing(pending), answer=Verdicts,
                                   prompt_version=PROMPT_VERSION, use=lambda answer: _named(answer, pending),
                                   cache_answer=False)  # fmt: skip
    if attempt.failed:
        return verdicts, [f"LLM judge failed ({attempt.why}); judged by confidence × prior + corroboration"]
    if not attempt.useful:
        return verdicts, ["LLM judge gave no usable verdict; judged by confidence × prior + corroboration"]
    for cand, verdict in attempt.value:  # cached per proposition, not per answer: the next pass asks only the rest
        verdicts[cand.proposition_key] = verdict
        cache.set(cache_key(cand), verdict, CACHE_SECONDS)
    return verdicts, []


def _named(answer: Verdicts, pending: list[Candidate]) -> tuple[list[tuple[Candidate, str]], str]:
    """(candidate, verdict) for each pending candidate the answer names, the first verdict per proposition."""
    named: dict[str, tuple[Candidate, str]] = {}
    for item in answer.verdicts:
        if item.id < len(pending) and pending[item.id].proposition_key not in named:
            named[pending[item.id].proposition_key] = (pending[item.id], item.verdict)
    return list(named.values()), "" if named else "the judge's answer named no candidate"
