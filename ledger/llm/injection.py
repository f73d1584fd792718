"""Text that reads as an instruction addressed to an AI system (prompt injection), whoever said or showed it.

The one detector, below every layer that needs it: the memory pass flags such turns (``distill.extraction``),
the chats digest and the screen namer count no word of them as support, and the recall gate never lets a question
carrying one steer its model. Pure: no database, no Django.
"""

from __future__ import annotations

import re

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


def looks_like_injection(text: str) -> bool:
    """True when ``text`` reads as an instruction to an AI (prompt injection), whoever said or showed it."""
    return bool(INJECTION.search(text or ""))
