"""Candidates: what was said that may be a memory, each with the turn it rests on.

The deterministic extractor (``distill.extraction.deterministic``, a spaCy parse) by default. With an LLM
configured, the model is asked chunk by chunk (``distill.extraction.llm``) and every chunk it could not answer
usefully gets the deterministic extractor's candidates for its turns instead, with a warning. Relative days are
then anchored to the owner's local day (``distill.extraction.dates``).

A scope whose talk has not changed since its last pass reuses the candidates kept for it (``ctx.store``, see
``distill.stored_extraction``) or given by the caller (``ctx.extraction``). Claims of turns whose speaker is not a
person (assistant, system, media) are left out: context, never a belief about anyone.
"""

from __future__ import annotations

from distill.extraction import llm as llm_extraction
from distill.extraction.base import DayInput, ExtractionResult
from distill.extraction.dates import anchor_candidates
from distill.extraction.deterministic import DeterministicExtractor
from distill.steps.context import Item, PassContext

NAME = "candidates"
NO_LLM_WARNING = "no LLM configured: deterministic extractor, score = confidence × prior + corroboration"


def run(ctx: PassContext) -> PassContext:
    extraction = ctx.extraction
    if extraction is None and ctx.store is not None:
        extraction = ctx.store.load(ctx.day)
        ctx.reused_extraction = extraction is not None
    if extraction is None:
        extraction = extract(ctx.day)
        if ctx.store is not None:
            ctx.store.keep(ctx.day, extraction)
    ctx.extraction = extraction
    ctx.warnings += extraction.warnings
    ctx.extractor, ctx.extractor_version = extraction.extractor, extraction.extractor_version
    ctx.items = [
        Item(candidate=cand)
        for cand in extraction.candidates
        if not (cand.evidence and cand.evidence.first_index in ctx.not_a_person)
    ]
    return ctx


def extract(day: DayInput) -> ExtractionResult:
    """The day's candidates: the LLM's where it answered usefully, else the deterministic extractor's."""
    if llm_extraction.configured():
        result = _with_model(day)
    else:
        result = DeterministicExtractor().extract(day)
        result.warnings.append(NO_LLM_WARNING)
    anchor_candidates(result.candidates, day)
    return result


def _with_model(day: DayInput) -> ExtractionResult:
    """Each chunk is the model's (screened) candidates or, failing that, the deterministic ones for its turns."""
    model = llm_extraction.LLMExtractor()
    result = ExtractionResult(extractor=model.ID, extractor_version=model.version())
    deterministic: ExtractionResult | None = None
    used_model = False
    for conv, chunk in llm_extraction.chunks(day):
        attempt = model.ask(day, conv, chunk)
        if attempt.useful:
            used_model = True
            result.candidates += attempt.value
            continue
        if deterministic is None:  # the whole day once: speaker names resolve across the conversation
            deterministic = DeterministicExtractor().extract(day)
        indices = {u.index for u in chunk}
        result.candidates += [c for c in deterministic.candidates if c.evidence and c.evidence.first_index in indices]
        span = f"turns {chunk[0].index}-{chunk[-1].index}" if chunk else "an empty chunk"
        result.warnings.append(f"LLM extractor: {attempt.why}; fell back to the deterministic extractor for {span}")
    if not used_model and deterministic is not None:
        result.extractor, result.extractor_version = deterministic.extractor, deterministic.extractor_version
    result.warnings = list(dict.fromkeys(result.warnings))
    return result
