"""Model: the calibrated probability that a candidate is a durable, true statement about the right person.

Today the shipped logistic regression (``distill.gate_model``). The contract with the decision step:
``item.prediction`` has ``p``, ``logit``, ``attribution_logit``, ``attribution_ok``, ``attribution_reason`` and
``top`` (the largest contributions, named); the model (``ctx.model``, else ``shipped()``) has ``version`` and the
lines ``accept_threshold``, ``review_threshold`` and ``capped_line`` chosen with it.
"""

from __future__ import annotations

from distill import gate_model
from distill.steps.context import Item, PassContext

NAME = "model"


def current(ctx: PassContext):
    """The model this pass uses: the caller's, else the shipped one."""
    return ctx.model or gate_model.shipped()


def run(ctx: PassContext) -> PassContext:
    model = current(ctx)
    for item in ctx.items:
        predict(item, model)
    return ctx


def predict(item: Item, model) -> Item:
    item.prediction = model.predict(item.view, features=item.features)
    return item
