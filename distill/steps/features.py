"""Features: what the gate's model reads of each candidate (its claim, its turn, what supports it).

Today the hashed features of ``distill.gate_model`` (``view`` then ``featurize``). The contract with the model
step: ``item.view`` is the plain dict of the candidate and its support (``gate_model.view``; the decision step's
attribution check reads it too), ``item.features`` is whatever the model step reads.
"""

from __future__ import annotations

from distill import gate_model
from distill.steps.context import Item, PassContext

NAME = "features"


def run(ctx: PassContext) -> PassContext:
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
