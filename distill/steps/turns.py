"""Turns in: a pass's neutral conversations become the extractors' day (turns numbered across the pass) and the
map back from each turn to its conversation, source reference and role.

A pass in mode off, or with no turns, stops here. A caller that already holds a ``DayInput`` (the bench) passes it
as ``ctx.day`` and this step only checks the mode.
"""

from __future__ import annotations

from distill.conversation import Role
from distill.inputs import day_input
from distill.models import Mode
from distill.steps.context import PassContext

NAME = "turns"
MODE_OFF_WARNING = "memory mode off: the talk is kept, no memories are made"


def run(ctx: PassContext) -> PassContext:
    if ctx.policy.mode == Mode.OFF:
        ctx.warnings.append(MODE_OFF_WARNING)
        ctx.stopped = True
        return ctx
    if ctx.day is not None:
        return ctx
    conversations = [c for c in ctx.conversations if c.turns]
    if not conversations:
        ctx.stopped = True
        return ctx
    ctx.day, ctx.turn_map = day_input(conversations, ctx.owner_name, source_kind=ctx.source_kind)
    ctx.day.owner_key = ctx.owner_key  # the LLM extractor's daily call cap is per owner
    ctx.day.timezone = ctx.timezone
    ctx.not_a_person = {
        i for i, (_, turn) in ctx.turn_map.turns.items() if turn.speaker.role not in Role.SPEAKS_FOR_SOMEONE
    }
    return ctx
