"""Step 2: zero-LLM cleanup. Strip fillers, collapse ASR stutters, drop garbage, merge fragmented turns.

Digits and number words are never collapsed: "unit 1 1 0 4" and "3 1 2, 5 5 5" are read-out numbers, not
stutters. Only plain words repeated back to back ("I I I think", "the the") are.
"""

from __future__ import annotations

import re
from datetime import timedelta

from wearables.pipeline.types import Convo, Turn

FILLERS = r"(?:u+m+|u+h+|uhm+|erm+|er|e+h|hmm+|mm+|mhm|ah+)"
_FILLER_RE = re.compile(rf"(?<![\w'])(?:{FILLERS})(?![\w'])[,.…]*", re.IGNORECASE)
# "you know" / "like" / "I mean" only when set off by commas on both sides: ", you know," is filler,
# "do you know" and "I know you like it" are not.
_COMMA_FILLER_RE = re.compile(r",\s*(?:you know|like|i mean|sort of|kind of)\s*,", re.IGNORECASE)
_ONLY_FILLER_RE = re.compile(rf"^[\W_]*(?:(?:{FILLERS}|you know|like|okay|ok|so)[\W_]*)*$", re.IGNORECASE)

NUMBER_WORDS = set(
    "zero oh one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "double triple".split()
)
# Grammatical doubles that are not stutters ("I had had enough", "I think that that works").
LEGIT_DOUBLES = {"had", "that"}

_WORD = r"[A-Za-z][A-Za-z']*"
# A word repeated back to back, optionally with a comma between ("we're, we're").
_REPEAT_RE = re.compile(rf"\b({_WORD})(?:,?\s+\1\b)+", re.IGNORECASE)
# Two- and three-word phrases repeated ("in the in the", "I think, I think").
_REPEAT_PHRASE_RE = re.compile(rf"\b({_WORD}(?:\s+{_WORD}){{1,2}}),?\s+\1\b", re.IGNORECASE)

MERGE_GAP = timedelta(seconds=3)
MAX_MERGED_CHARS = 1200


def _collapse_word(m: re.Match) -> str:
    word = m.group(1)
    low = word.lower()
    if low in NUMBER_WORDS:
        return m.group(0)
    if low in LEGIT_DOUBLES and len(re.findall(r"[A-Za-z']+", m.group(0))) == 2:
        return m.group(0)
    return word


def _collapse_phrase(m: re.Match) -> str:
    phrase = m.group(1)
    if any(w.lower() in NUMBER_WORDS for w in phrase.split()):
        return m.group(0)
    return phrase


def collapse_stutters(text: str) -> str:
    text = _REPEAT_PHRASE_RE.sub(_collapse_phrase, text)
    return _REPEAT_RE.sub(_collapse_word, text)


def _tidy_punctuation(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s+([,.;:!?…])", r"\1", text)
    text = re.sub(r",(?:\s*,)+", ",", text)
    text = re.sub(r"([.!?…])\s*,", r"\1", text)
    text = re.sub(r",\s*([.!?…])", r"\1", text)
    text = re.sub(r"([.!?])(?:\s*\.)+", r"\1", text)
    text = text.strip(" ,;:")
    return text


def _capitalize_sentences(original: str, text: str) -> str:
    """Re-capitalize a sentence start a removed filler used to hold ("Um so intake" -> "So intake")."""
    if original[:1].isupper() and text[:1].islower():
        text = text[0].upper() + text[1:]
    return re.sub(r"([.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def _drop_filler(match: re.Match) -> str:
    word = match.group(0).rstrip(",.…")
    # An all-caps token is an acronym ("an ER nurse", "UM Health"), not a hesitation.
    return match.group(0) if len(word) > 1 and word.isupper() else " "


def strip_fillers(text: str) -> str:
    out = _COMMA_FILLER_RE.sub(",", text)
    out = _FILLER_RE.sub(_drop_filler, out)
    out = _tidy_punctuation(out)
    return _capitalize_sentences(text, out) if out != text else out


def clean_text(text: str) -> str:
    """Fillers out, stutters collapsed, punctuation tidied. Digit sequences come out unchanged."""
    out = strip_fillers(text)
    out = collapse_stutters(out)
    return _tidy_punctuation(out)


def is_garbage(text: str) -> bool:
    """Empty, punctuation-only, or nothing but fillers."""
    return not re.search(r"\w", text) or bool(_ONLY_FILLER_RE.match(text))


def _same_speaker(a: Turn, b: Turn) -> bool:
    return a.speaker_label == b.speaker_label and a.is_wearer == b.is_wearer and a.person_id == b.person_id


def _close_in_time(a: Turn, b: Turn) -> bool:
    if a.ended_at is None or b.started_at is None:
        return True
    return b.started_at - a.ended_at <= MERGE_GAP


def merge_fragments(turns: list[Turn]) -> list[Turn]:
    """Join consecutive turns of the same speaker that follow closely (ASR cuts one sentence into pieces)."""
    merged: list[Turn] = []
    for turn in turns:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and _same_speaker(prev, turn)
            and _close_in_time(prev, turn)
            and len(prev.text) + len(turn.text) < MAX_MERGED_CHARS
        ):
            prev.text = f"{prev.text} {turn.text}".strip()
            prev.ended_at = turn.ended_at or prev.ended_at
        else:
            merged.append(Turn(**turn.__dict__))
    return merged


def clean_conversation(convo: Convo) -> Convo:
    turns = []
    for turn in convo.turns:
        text = clean_text(turn.text)
        if not is_garbage(text):
            turns.append(Turn(**{**turn.__dict__, "text": text}))
    return Convo(**{**convo.__dict__, "turns": merge_fragments(turns)})


def cleanup(convos: list[Convo]) -> list[Convo]:
    return [clean_conversation(c) for c in convos]
