"""Features: what the gate's model reads of each candidate (its claim, its turn, what supports it).

First the turn reader (``distill.turn_reader``) reads the day's turns that gave a candidate, with their
neighbours, and each candidate's claim after its turn, writing ``turn_logit`` and ``claim_logit`` into the
candidate's features (kept candidates that carry them are not read again). Then the hashed features of
``distill.gate_model`` (``view`` then ``featurize``, where those logits are ``t:turn`` and ``t:claim``). The
contract with the model step: ``item.view`` is the plain dict of the candidate and its support
(``gate_model.view``; the decision step's attribution check reads it too), ``item.features`` is whatever the model
step reads.
"""

from __future__ import annotations

from distill import gate_model, turn_reader
from distill.steps.context import Item, PassContext

NAME = "features"


def run(ctx: PassContext) -> PassContext:
    if ctx.day is not None:
        unread = [item.candidate for item in ctx.items if "turn_logit" not in item.candidate.features]
        turn_reader.annotate(ctx.day, unread)
    for item in ctx.items:
        describe(item)
    return ctx


def describe(item: Item) -> Item:
    """Fill ``item.view`` and ``item.features`` from the candidate and its support."""
    item.view = gate_model.view(
        item.candidate,
        corroborating_sources=item.corroborating_sources,
        judge_verdict=item.judge_verdict,
        supporting_memory_id=item.supporting_memory_id,
    )
    item.features = gate_model.featurize(item.view)
    return item
