"""Step 3: redaction. Every secret the structural redactor finds (``ledger.redaction``: cards, IBANs, SSNs,
codes, PINs, account, routing, ID and passport numbers, passwords, from the words around them over a few turns,
echoes included) and the user's own patterns become ``[redacted]``.

A conversation is redacted as a whole, so a code said in one turn and read back in the next is caught both
times. Idempotent: redacting twice changes nothing.
"""

from __future__ import annotations

import re

from ledger.redaction import REDACTED, luhn_valid, redact_turns

__all__ = ["REDACTED", "compile_user_pattern", "luhn_valid", "redact_conversation_texts", "redact_text"]


def _user_patterns(text: str, patterns) -> str:
    for pattern in patterns:
        text = pattern.sub(lambda m: m.group() if m.group() == REDACTED else REDACTED, text)
    return text


def redact_conversation_texts(texts: list[str], patterns: list[re.Pattern] | tuple = ()) -> list[str]:
    """The turns of one conversation, in order: structural secrets, then the user's patterns."""
    return [_user_patterns(t, patterns) if t else t for t in redact_turns([t or "" for t in texts])]


def redact_text(text: str, patterns: list[re.Pattern] | tuple = ()) -> str:
    """One text on its own (a title, a provider memory, a provider's error message)."""
    if not text:
        return text
    return redact_conversation_texts([text], patterns)[0]


def compile_user_pattern(pattern: str) -> re.Pattern:
    """Compile a user's redaction regex; raises ValueError with a readable reason when it is not valid."""
    if not pattern or not pattern.strip():
        raise ValueError("pattern is empty")
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from exc
    if compiled.search(""):
        raise ValueError("pattern matches the empty string")
    return compiled
