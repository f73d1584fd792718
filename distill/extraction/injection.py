"""Overheard or on-screen text is data, never instructions.

Text that reads like an instruction addressed to an AI system is flagged before extraction. Candidates drawn
from it get a low capture confidence (so they land in review at best), and LLM prompts fence all captured
text as data that cannot close its fence (see ``fence``).
"""

from __future__ import annotations

import re

from ledger.llm.fencing import Fence

_PATTERNS = [
    r"\bignore (all |any |the )?(previous|prior|above|earlier|preceding) (instructions?|prompts?|messages?|rules?)",
    r"\bdisregard (all |any |the |your )?(previous|prior|above|earlier)?\s*(instructions?|prompts?|rules?)",
    r"\bforget (all |everything |your )?(previous |prior )?(instructions?|rules?|you (were|have been) told)",
    r"\byou are now\b",
    r"\bfrom now on,? you\b",
    r"\bact as (an?|the) (ai|assistant|system|model|chatbot)\b",
    r"\bsystem prompt\b",
    r"\bdeveloper (mode|message|instructions?)\b",
    r"\bjailbreak\b",
    r"\b(remember|note|record|store|memorize) that the (user|wearer|owner)\b",
    r"\bthe (user|wearer) (wants|prefers|has asked|instructs?|authori[sz]es)\b",
    r"\b(assistant|ai|chatbot|model|almanac)[,:] (please )?(remember|store|save|delete|forget|ignore|write|add)\b",
    r"\b(add|save|store|write) (this|that|the following) (to|in|into) (your |the )?(memory|memories|database|notes)\b",
    r"\bnew instructions?\b",
    r"\boverride (your|the) (instructions?|rules?|settings?)\b",
    r"<\s*/?\s*(system|instructions?|prompt)\s*>",
]
INJECTION = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)

INJECTION_CAPTURE_CONFIDENCE = 0.2


def looks_like_injection(text: str) -> bool:
    """True when ``text`` reads as an instruction to an AI (prompt injection), whoever said or showed it."""
    return bool(INJECTION.search(text or ""))


def fence(value) -> str:
    """Quote content as inert data for an LLM prompt: one line of escaped JSON inside a random per-call boundary
    (``ledger.llm.Fence``), so the data cannot close its own fence."""
    return Fence().wrap(value)
