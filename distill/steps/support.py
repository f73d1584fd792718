"""Support: what else the pass knows about each candidate besides its own words.

- another device that heard the same moment agrees (its source kind is recorded) or heard it differently, or gave
  it to another speaker (then the capture is doubtful: ``DISAGREEMENT_CAPTURE``, and a flag says why);
- an active memory of the owner's already says it (``supporting_memory_id``);
- the optional LLM judge's verdict (smart mode only; none without an LLM).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from distill import trust
from distill.extraction.base import Candidate
from distill.judge import judge as run_judge
from distill.models import Mode
from distill.steps.context import ActiveMemory, PassContext, SiblingTurn

NAME = "support"
SIBLING_WINDOW = timedelta(seconds=150)
DISAGREEMENT_CAPTURE = 0.35


def run(ctx: PassContext) -> PassContext:
    owner = ctx.owner
    turns = {u.index: u for conv in ctx.day.conversations for u in conv.turns} if ctx.day is not None else {}
    for item in ctx.items:
        cand = item.candidate
        turn = turns.get(cand.evidence.first_index) if cand.evidence else None
        agreeing, disagreement = cross_check(
            cand, turn.started_at if turn else None, bool(turn and turn.is_owner), ctx.siblings, owner
        )
        if disagreement:
            cand.capture_confidence = min(cand.capture_confidence, DISAGREEMENT_CAPTURE)
            cand.flags.append(disagreement)
        item.corroborating_sources = sorted(agreeing)
        item.supporting_memory_id = find_support(cand, ctx.active, owner)
    if ctx.use_judge and ctx.policy.mode == Mode.SMART and ctx.items:
        owner_key = ctx.day.owner_key if ctx.day is not None else ctx.owner_key  # whose daily cap pays
        verdicts, warnings = run_judge([i.candidate for i in ctx.items], owner_key=owner_key)
        ctx.warnings += warnings
        for item in ctx.items:
            item.judge_verdict = verdicts.get(item.candidate.proposition_key)
    return ctx


def _subject_words(cand: Candidate, owner: str) -> set[str]:
    words = {owner.lower()}
    if cand.person:
        words |= {w.lower() for w in cand.person.split()}
    return words


def cross_check(
    cand: Candidate, utt_time: datetime | None, utt_is_owner: bool, siblings: list[SiblingTurn], owner: str
) -> tuple[list[str], str]:
    """Compare a candidate with what other devices heard around the same moment.

    Returns (corroborating source kinds, disagreement flag or ""). A sibling that heard the same speech
    (most of the quote's words) but not the claim's words, or gave it to a different speaker, makes the claim
    doubtful: mis-hearing or a diarization slip on one device.
    """
    drop = {trust._stem(w) for w in _subject_words(cand, owner)}
    agreeing: set[str] = set()
    disagreement = ""
    by_source: dict[str, list[SiblingTurn]] = {}
    for sib in siblings:
        if utt_time is not None and sib.started_at is not None and abs(sib.started_at - utt_time) > SIBLING_WINDOW:
            continue
        by_source.setdefault(sib.source_kind, []).append(sib)
    quote = cand.evidence.quote if cand.evidence else cand.content
    for kind, utts in by_source.items():
        window = " ".join(u.text for u in utts)
        claim_cov = trust.coverage(cand.content, window, drop=drop)
        quote_cov = trust.coverage(quote, window)
        if claim_cov >= 0.999:
            best = max(utts, key=lambda u: trust.coverage(cand.content, u.text, drop=drop))
            if (
                cand.attribution != "unknown"
                and best.is_owner != utt_is_owner
                and trust.coverage(quote, best.text) >= 0.5
            ):
                disagreement = f"{kind} gives these words to another speaker"
            else:
                agreeing.add(kind)
        elif quote_cov >= 0.6 and claim_cov < 0.999:
            disagreement = f"{kind} heard this differently"
    return sorted(agreeing), disagreement


def find_support(cand: Candidate, active: list[ActiveMemory], owner: str) -> str | None:
    """The active memory (same subject) that holds most of this claim's words and is not the same text."""
    drop = {trust._stem(w) for w in _subject_words(cand, owner)}
    mine = trust.claim_tokens(cand.content, drop=drop)
    if not mine:
        return None
    for mem in active:
        if mem.subject != cand.subject:
            continue
        if len(mine & mem.tokens) / len(mine) >= 0.8 and trust.content_hash_differs(cand, mem):
            return mem.memory_id
    return None
