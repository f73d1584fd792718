"""Step 4: the user's fix-ups for words ASR keeps getting wrong ("Mya" -> "Maya").

Whole words only, matched case-insensitively; the replacement takes the case shape of what it replaces
(ALL CAPS stays all caps, a Capitalized sentence start stays capitalized); otherwise the user's spelling.
"""

from __future__ import annotations

import re
from functools import lru_cache

from wearables.pipeline.types import Convo, Turn


@lru_cache(maxsize=512)
def _pattern(wrong: str) -> re.Pattern:
    return re.compile(r"(?<![\w])" + r"\s+".join(re.escape(w) for w in wrong.split()) + r"(?![\w])", re.IGNORECASE)


def _shape(found: str, right: str) -> str:
    if right != right.lower() and right != right.capitalize() and right != right.upper():
        return right  # deliberate mixed case, keep as written
    if found.isupper() and len(found) > 1:
        return right.upper()
    if found[:1].isupper():
        return right[:1].upper() + right[1:]
    return right  # lower-case find: the user's spelling as written ("mya" -> "Maya" stays a name)


def apply_corrections(text: str, corrections: list[tuple[str, str]]) -> str:
    for wrong, right in corrections:
        if wrong.strip():
            text = _pattern(wrong.strip()).sub(lambda m, r=right: _shape(m.group(), r), text)
    return text


def correct_conversations(convos: list[Convo], corrections: list[tuple[str, str]]) -> list[Convo]:
    if not corrections:
        return convos
    out = []
    for c in convos:
        turns = [Turn(**{**t.__dict__, "text": apply_corrections(t.text, corrections)}) for t in c.turns]
        out.append(Convo(**{**c.__dict__, "turns": turns, "title": apply_corrections(c.title, corrections)}))
    return out
