"""Text: the words a memory is written with.

(The faithfulness check comes in the next change; today the candidate's text is kept as the extractor wrote it.)
"""

from __future__ import annotations

from distill.steps.context import PassContext

NAME = "text"


def run(ctx: PassContext) -> PassContext:
    return ctx
