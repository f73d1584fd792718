"""Speech-recognition text to clauses: fillers and stutters out (digits read one by one kept), sentences split
into clauses with their question and condition context, verbless date fragments joined to the clause before."""

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
_LIKE_NUMBER = re.compile(
    r"\blike\s+(?=(?:a |an )?(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|a few|a couple|half)\b)",
    re.IGNORECASE,
)


@lru_cache(maxsize=50_000)
def clean(text: str) -> str:
    """Speech-recognition noise out (cached: speakers, decisions and the extractor clean the same turns)."""
    text = _ABBREV.sub(lambda m: m.group(1) + " ", text or "")
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
_CLAUSE = re.compile(
    r"[;:]\s+|\s+[-–—]+\s+|\s+(?=(?:and|but)\s+(?:it|it's|that's|he|he's|she|she's|they|they're|i|i'm|i've)\s)|,\s+(?=(?:so|and|but|because|which|though)\b)|,\s+(?=(?:i|i'm|i've|i'll|my|we|we're|you're|you'll)\b)|,\s+(?=that(?:'s|\s+is|\s+was)\s)"
    r"|,\s+(?=(?:is|are|do|does|did|can|could|will|would|was|were|have|has)\s+(?:that|it|this|there|you|he|she|they|"
    r"we|i)\b)",
    re.IGNORECASE,
)
_ABBREV = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Mt|Jr|Sr|Prof)\.\s", re.IGNORECASE)
_DISCOURSE = re.compile(
    r"(?:^|(?<=[,.!?]\s))(?:i mean|you know|i know|like),?\s+|,\s*(?:you know|i mean),?", re.IGNORECASE
)
_LEAD = re.compile(
    r"^(?:(?:so|and|but|because|which|though|oh|okay|ok|yeah|yes|no|well|honestly|anyway|also|actually|"
    r"right|sure|plus|then)\b[,\s]*)+",
    re.IGNORECASE,
)
_TRAILING_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+$")
# Discourse markers closing a clause add nothing to the claim: "…, by the way", "…, actually".
_TRAILING_DISCOURSE = re.compile(
    r",\s*(?:by the way|actually|though|honestly|anyway|i guess|you know|i think|for what it's worth)\s*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“”][^\"“”]*[\"“”]")


_CONDITION = re.compile(r"\b(?:if|unless|assuming|provided|in case|once)\b", re.IGNORECASE)


def clauses(text: str) -> list[tuple[str, bool]]:
    """Split into clauses; returns (clause, is_question). Quoted speech is removed (it is somebody else's)."""
    return [(part, question) for part, question, _ in clauses_with_context(text)]


def clauses_with_context(text: str) -> list[tuple[str, bool, bool]]:
    """(clause, is_question, is_conditional): a clause whose sentence opened with a condition ("so if it goes
    through, I'm moving in on the twentieth") is conditional even though the split dropped the "if"."""
    out = []
    for sentence in _SENTENCE.split(text):
        asked = sentence.rstrip().endswith("?")
        sentence = _QUOTED.sub(" ", sentence)
        conditional = False
        parts = _CLAUSE.split(sentence)
        for n, part in enumerate(parts):
            part = _LEAD.sub("", part.strip())
            part = _TRAILING_VOCATIVE.sub("", part.strip(" ,.!")).strip(" ,.!")
            part = _TRAILING_DISCOURSE.sub("", part).strip(" ,.!")
            question = asked and _asks(part, last=n == len(parts) - 1)
            if asked and not question:
                part = _CONFIRM_TAG.sub("", part).strip(" ,.!?")
            if part and out and is_time_fragment(part) and not out[-1][1]:
                # "I'm coming to Tulsa. The ninth to the twelfth.": a verbless date completes the clause before.
                prev, prev_q, prev_cond = out[-1]
                part = part[:1].lower() + part[1:] if part[:4].lower() == "the " else part
                out[-1] = (f"{prev}, {part}", prev_q or question, prev_cond)
                continue
            if part:
                out.append((part, question, conditional))
                if _CONDITION.search(part):
                    conditional = True
    return out


# A speaker's own statement followed by a confirmation tag ("I switched to tea, remember?") or a question about
# something else ("I'm allergic to latex, is that on my chart?") is still their statement; a second- or
# third-person clause in a question is what the speaker is unsure of ("You're a nurse, right?").
_CONFIRM_TAG = re.compile(r",?\s*(?:right|remember|you know|okay|ok|yeah|yes|no|see)\s*\??$", re.IGNORECASE)


def _asks(part: str, *, last: bool) -> bool:
    first_person = bool(re.match(r"^(?:i|i'm|i've|i'll|i'd|my|we|we're|we've|our)\b", part, re.IGNORECASE))
    if not first_person:
        return True
    if last:
        return not _CONFIRM_TAG.search(part)
    return False


_TIME_WORDS = set(
    """the to from on at until till through thru and of a in by around about between
    morning evening night noon afternoon midnight am pm a.m p.m o'clock half quarter past
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays
    sundays january february march april may june july august september october november december
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty first second third fourth fifth sixth seventh eighth ninth tenth
    eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth
    next this week weekend month""".split()
)
_DATE_ANCHOR = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|"
    r"august|september|october|november|december|\d{1,2}(?:st|nd|rd|th)?|\w+(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)


def is_time_fragment(text: str) -> bool:
    """A verbless run of date and time words ("Saturday the twentieth", "the 9th to the 12th", "July 4")."""
    words = re.findall(r"[a-z0-9.:'-]+", text.lower())
    if not words or len(words) > 10:
        return False
    ok = all(
        w.strip(".") in _TIME_WORDS or re.fullmatch(r"\d{1,4}(?:st|nd|rd|th)?|\d{1,2}:\d{2}|[a-z]+-[a-z]+", w)
        for w in words
    )
    return ok and bool(_DATE_ANCHOR.search(text))
