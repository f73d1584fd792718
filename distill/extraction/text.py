"""Speech-recognition cleanup before the parse: fillers and stutters out (digits read one by one kept), "like"
as a filler out (the quotative "I was like, …" kept), discourse fillers ("you know", "I mean") out."""

from __future__ import annotations

import re
from functools import lru_cache

# --- cleanup ------------------------------------------------------------------------------------------
# "er" only in lower or sentence case: an upper-case "ER" is an acronym (the emergency room), not a filler.
_FILLERS = re.compile(r"(?<![\w'])(?:um+|uh+|(?-i:[Ee]r+m?)|hmm+|mm+|ah+)(?![\w'])[,.]?\s*", re.IGNORECASE)
# "like" as a filler, but not the quotative after a form of "be" ("I was like, …", "she's like, …").
_NOT_QUOTATIVE = r"(?<!\bwas)(?<!\bwere)(?<!\bis)(?<!'s)(?<!'m)(?<!\bam)(?<!\bare)(?<!'re)(?<!\ball)"
_LIKE_FILLER = re.compile(rf",\s*like,\s*|{_NOT_QUOTATIVE}\s\blike,\s+|^like,\s+|,\s*like\s+(?=\w)", re.IGNORECASE)
_STUTTER = re.compile(r"\b(\w+(?:'\w+)?)(?:[,\s]+\1\b)+", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
# "I'ma" / "I'mma" (African American and Southern US English) is "I'm going to" (spaCy's own norms read "ima" as
# "i am gonna", and "gonna" as "going to"): said so, the parser finds the speaker and the verb ("I'ma give her my
# letter Monday"). Written without its apostrophe it may be a name (Ima).
_IMMA = re.compile(r"\b(I)['’]m?ma\b", re.IGNORECASE)
_LIKE_NUMBER = re.compile(
    r"\blike\s+(?=(?:a |an )?(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|a few|a couple|half)\b)",
    re.IGNORECASE,
)


@lru_cache(maxsize=50_000)
def clean(text: str) -> str:
    """Speech-recognition noise out (cached: speakers, decisions and the extractor clean the same turns)."""
    text = _ABBREV.sub(lambda m: m.group(1) + " ", text or "")
    text = _IMMA.sub(r"\1'm going to", text)
    text = _FILLERS.sub("", text)
    text = _LIKE_FILLER.sub(" ", text)
    # Repeated words are stutters, but digits read one by one ("1 1 0 4") must survive unchanged.
    text = _STUTTER.sub(lambda m: m.group(0) if m.group(1).isdigit() else m.group(1), text)
    text = _DISCOURSE.sub(" ", text)
    text = _LIKE_NUMBER.sub("", text)
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    text = re.sub(r"^[,.\s]+", "", text)
    return _SPACES.sub(" ", text).strip()


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_ABBREV = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Mt|Jr|Sr|Prof)\.\s", re.IGNORECASE)
_DISCOURSE = re.compile(
    r"(?:^|(?<=[,.!?]\s))(?:i mean|you know|i know|like),?\s+|,\s*(?:you know|i mean),?", re.IGNORECASE
)
_LEAD = re.compile(
    r"^(?:(?:so|and|but|because|which|though|oh|okay|ok|yeah|yes|no|well|honestly|anyway|also|actually|"
    r"right|sure|plus|then)\b[,\s]*)+",
    re.IGNORECASE,
)
