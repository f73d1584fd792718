"""The memory pass: the one place that lists its steps, in order. (The steps live in ``distill/steps/``, one module
each, each with one entry point ``run(ctx) -> ctx`` over a ``PassContext``; this module, not the package, says
the order.)

    turns       neutral conversations → the day's numbered turns and the way back to each (``steps.turns``)
    candidates  what was said that may be a memory: the parse, or the LLM with the parse behind each chunk
    support     another device's hearing, an active memory that says it, the optional judge's verdict
    features    what the model reads of each candidate                                (``steps.features``)
    model       the calibrated probability that it is a durable, true statement about the right person
    decision    the source's trust, the owner's learning, modes, hard rules, lines and gates
    text        the words the memory is written with                                  (``steps.text``)
    write       near-duplicates, the review budget, the ledger (only when ``ctx.write`` says where)

``distill.services`` reads what the pass needs from the database (policy, other devices' turns, active memories,
kept candidates, the owner's learning), runs every step, and reads the report. The bench and the tests run the
same steps on labelled files, without ``ctx.write``. A provider's own memories enter at ``support``
(``SCORING``), with their candidates already made.
"""

from __future__ import annotations

from collections.abc import Sequence

from distill import trust
from distill.extraction.base import Candidate
from distill.steps import candidates, decision, features, support, text, turns, write
from distill.steps import model as model_step
from distill.steps.context import ActiveMemory, Item, PassContext, SiblingTurn, WriteTarget
from distill.steps.support import DISAGREEMENT_CAPTURE, cross_check, find_support
from distill.steps.turns import MODE_OFF_WARNING

STEPS = (turns, candidates, support, features, model_step, decision, text, write)
SCORING = STEPS[STEPS.index(support) :]  # for candidates made elsewhere (a provider's own memories)

# The names the bench and earlier callers use for the pass's input and its other types.
PassInput = PassContext
__all__ = [
    "DISAGREEMENT_CAPTURE",
    "MODE_OFF_WARNING",
    "STEPS",
    "SCORING",
    "ActiveMemory",
    "Item",
    "PassContext",
    "PassInput",
    "SiblingTurn",
    "WriteTarget",
    "cross_check",
    "find_support",
    "run",
    "run_steps",
    "score",
]


def run(ctx: PassContext) -> PassContext:
    """The whole pass over ``ctx``."""
    return run_steps(ctx, STEPS)


def run_steps(ctx: PassContext, steps: Sequence) -> PassContext:
    """Run ``steps`` in order over ``ctx``; a step that finds nothing to do (mode off, no turns) stops the pass."""
    for step in steps:
        ctx = step.run(ctx)
        if ctx.stopped:
            break
    ctx.warnings = list(dict.fromkeys(ctx.warnings))
    return ctx


def score(
    candidate: Candidate,
    *,
    source_trust: float = trust.DEFAULT_SOURCE_TRUST,
    judge_verdict: str | None = None,
    corroborating_sources: list[str] | None = None,
    supporting_memory_id: str | None = None,
    model=None,
) -> trust.Scored:
    """One candidate through features and model: its probability p (``Scored.score``), moved by the source's
    trust, with what produced it (``Scored.components``); not yet decided (``decision.decide``)."""
    item = Item(
        candidate=candidate,
        corroborating_sources=list(corroborating_sources or []),
        supporting_memory_id=supporting_memory_id,
        judge_verdict=judge_verdict,
    )
    ctx = run_steps(PassContext(policy=trust.Policy(source_trust=source_trust), items=[item], model=model),
                    (features, model_step))  # fmt: skip
    return decision.scored_of(item, source_trust=source_trust, model=model_step.current(ctx))
