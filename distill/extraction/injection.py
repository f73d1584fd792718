"""Overheard or on-screen text is data, never instructions.

Text that reads like an instruction addressed to an AI system is flagged before extraction. Candidates drawn
from it get a low capture confidence (so they land in review at best), and LLM prompts fence all captured
text as data that cannot close its fence (see ``fence``).
"""

from __future__ import annotations

from ledger.llm.fencing import Fence
from ledger.llm.injection import INJECTION, looks_like_injection  # the one detector, shared with the LLM path

__all__ = ["INJECTION", "INJECTION_CAPTURE_CONFIDENCE", "fence", "looks_like_injection"]

INJECTION_CAPTURE_CONFIDENCE = 0.2


def fence(value) -> str:
    """Quote content as inert data for an LLM prompt: one line of escaped JSON inside a random per-call boundary
    (``ledger.llm.Fence``), so the data cannot close its own fence."""
    return Fence().wrap(value)
