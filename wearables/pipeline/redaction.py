"""Step 3: redaction. SSNs, Luhn-valid payment card numbers and the user's own patterns become ``[redacted]``.

Cards are found however they are spoken: "4242 4242 4242 4242", "4242-4242-…", one digit at a time
("4 1 1 1 1 …") or with commas where the speaker paused. Any run of digit groups is searched for a window of
13-19 digits that passes the Luhn check. Idempotent: redacting twice changes nothing.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# Digit groups separated by a space, dash, dot or a comma pause ("4 2 4 2, 4 2 4 2").
_GROUP_RUN_RE = re.compile(r"(?<![\w])\d+(?:(?:\s?[-–.]\s?|,?\s+)\d+)*(?![\w])")
_GROUP_RE = re.compile(r"\d+")
_SSN_RE = re.compile(r"(?<![\w-])\d{3}([-\s.]?)\d{2}\1\d{4}(?![\w-])")
# A 9-digit SSN read out any other way ("5 1 2 4 8 3 3 0 7") is caught when the talk is about social security.
_SSN_CONTEXT_RE = re.compile(r"social(?:\s+security)?|\bs\.?\s?s\.?\s?n\b|security number", re.IGNORECASE)


def luhn_valid(digits: str) -> bool:
    total, double = 0, False
    for ch in reversed(digits):
        d = int(ch)
        if double:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
        double = not double
    return total % 10 == 0


def _card_windows(run: str) -> list[tuple[int, int]]:
    """Spans (relative to ``run``) of digit-group windows holding 13-19 Luhn-valid digits."""
    groups = [(m.start(), m.end(), m.group()) for m in _GROUP_RE.finditer(run)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(groups):
        best = None
        digits = ""
        for j in range(i, len(groups)):
            digits += groups[j][2]
            if len(digits) > 19:
                break
            if len(digits) >= 13 and luhn_valid(digits):
                best = j  # keep the longest valid window starting at i
        if best is not None:
            spans.append((groups[i][0], groups[best][1]))
            i = best + 1
        else:
            i += 1
    return spans


def redact_cards(text: str) -> str:
    out, last = [], 0
    for m in _GROUP_RUN_RE.finditer(text):
        run = m.group()
        if sum(c.isdigit() for c in run) < 13:
            continue
        for start, end in _card_windows(run):
            out.append(text[last : m.start() + start])
            out.append(REDACTED)
            last = m.start() + end
    out.append(text[last:])
    return "".join(out)


def redact_ssns(text: str) -> str:
    text = _SSN_RE.sub(REDACTED, text)
    if _SSN_CONTEXT_RE.search(text):

        def nine_digits(m: re.Match) -> str:
            run = m.group()
            return REDACTED if sum(c.isdigit() for c in run) == 9 else run

        text = _GROUP_RUN_RE.sub(nine_digits, text)
    return text


def redact_text(text: str, patterns: list[re.Pattern] | tuple = ()) -> str:
    """Redact cards, SSNs, then the user's patterns. Safe to call any number of times."""
    if not text:
        return text
    if any(c.isdigit() for c in text):
        text = redact_cards(text)
        text = redact_ssns(text)
    for pattern in patterns:
        text = pattern.sub(lambda m: m.group() if m.group() == REDACTED else REDACTED, text)
    return text


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
