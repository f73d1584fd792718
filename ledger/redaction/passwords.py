"""Passwords are words: find the value a sentence gives for a password, and the answer to a question asking for one.

    "The wifi password is otter15."            -> after the copula that follows the cue
    "For the password for the router, it's …"  -> the same, with words between
    "tiger51 is the network password."         -> before the copula, when the cue comes after
    "Use tiger51 for the wifi password."       -> "use X for"
    "otter15. That's the wifi password."       -> the sentence before "that's the password"
    "What's the wifi password?" / "It's otter15."  -> a short answer in the next turns

A value runs to the end of its clause (a comma pause, "and", the sentence's end), at most a few words, and
never opens with a function word ("it's on the fridge", "the same as before"). Pure: no Django.
"""

from __future__ import annotations

from accounts.wordforms import lemmas_of  # an English lexicon: a bare answer that is no English word is made up
from ledger.redaction import cues
from ledger.redaction.numbers import Token

MAX_VALUE_WORDS = 4
ASKED_TURNS = 2
OPENERS = frozenset("it's its it is yes yeah yep sure okay ok so um uh oh right well hmm er erm".split())
# What may stand before a short answer ("Sorry, …", "Okay, ready? …", "Hang on… right, …").
ANSWER_LEAD = OPENERS | frozenset("sorry ready hang hold on go ahead here ah mm just a sec second one got".split())
MAX_ANSWER_WORDS = 2  # an answer that is a password is short: "It's otter15." / "Um, quartzvelvet, I think."
ENDERS = frozenset("and but if now then okay ok i think please thanks".split())
COPULA_WORDS = frozenset({"is", "was", "it's", "its", "are"})


def sentences(tokens: list[Token]) -> list[tuple[int, int]]:
    """Token ranges [start, end) of the sentences of a turn (the closing mark included)."""
    out, start = [], 0
    for i, t in enumerate(tokens):
        if t.kind == "mark" and t.text in cues.SENTENCE_END:
            out.append((start, i + 1))
            start = i + 1
    if start < len(tokens):
        out.append((start, len(tokens)))
    return out


def _is_cue(t: Token) -> bool:
    return t.kind == "word" and cues.base(t) in cues.PASSWORD_WORDS


def _copula(t: Token) -> bool:
    return (t.kind == "word" and t.lower in COPULA_WORDS) or (t.kind == "mark" and t.text in ":=")


def _value(tokens: list[Token], k: int, end: int) -> tuple[int, int] | None:
    """The value starting at token ``k`` up to the end of its clause, as character offsets."""
    while k < end and tokens[k].kind == "mark":
        k += 1
    if k >= end or tokens[k].kind == "placeholder":
        return None
    if tokens[k].kind == "word" and (cues.base(tokens[k]) in cues.STOPWORDS or tokens[k].lower in OPENERS):
        return None
    last, words = k, 0
    j = k
    while j < end and words < MAX_VALUE_WORDS:
        t = tokens[j]
        if t.kind == "mark" and t.text not in "-_.@#!$*&":
            break
        if t.kind == "mark" and t.text == "." and (j + 1 >= end or tokens[j + 1].start > t.end):
            break
        if t.kind == "word" and words and (t.lower in ENDERS or cues.base(t) in cues.STOPWORDS):
            break
        if t.kind != "mark":
            words += 1
            last = j
        j += 1
    return tokens[k].start, tokens[last].end


def _in_sentence(tokens: list[Token], start: int, end: int) -> tuple[int, int] | None:
    """A value given in a sentence that names a password (cue, then copula, then value; or the other way)."""
    cue = next((i for i in range(start, end) if _is_cue(tokens[i])), None)
    if cue is None:
        return None
    if tokens[cue].lower.endswith("'s"):
        return _value(tokens, cue + 1, end)
    copula = next((i for i in range(cue + 1, end) if _copula(tokens[i]) or tokens[i].lower.endswith("'s")), None)
    if copula is not None:
        return _value(tokens, copula + 1, end)
    commas = [i for i in range(cue + 1, end) if tokens[i].text == ","]
    if commas:
        after = _first_content(tokens, commas[-1] + 1, end, skip_fillers=True)
        if after is not None:
            return _value(tokens, after, end)  # "the wifi password, hang on, otter15"
    first = _first_content(tokens, start, cue)
    if first is not None:
        t = tokens[first]
        if t.lower == "use":
            return _value(tokens, first + 1, cue)
        if any(_copula(tokens[i]) for i in range(first + 1, cue)):
            return _value(tokens, first, cue)
    return None


def _first_content(tokens: list[Token], start: int, end: int, *, skip_fillers: bool = False) -> int | None:
    for i in range(start, end):
        t = tokens[i]
        if t.kind == "mark" or t.lower in OPENERS:
            continue
        if skip_fillers and cues.is_filler(t):
            continue
        return i
    return None


def _answer(tokens: list[Token], start: int, end: int) -> tuple[int, int] | None:
    """A short answer: one made-up word right after the sentence's openers ("It's otter15.", "Sorry, Maple-7?",
    "Um, quartzvelvet, I think."). A word of English ("Brilliant, cheers.") answers nothing."""
    first = next(
        (i for i in range(start, end) if tokens[i].kind != "mark" and tokens[i].lower not in ANSWER_LEAD), None
    )
    if first is None or not _made_up(tokens, first):
        return None
    return _value(tokens, first, end)


def _made_up(tokens: list[Token], i: int) -> bool:
    """Digits, dashes or capitals inside a word, or letters that are no English word: what passwords look like."""
    t = tokens[i]
    if t.kind == "alnum" or (i + 1 < len(tokens) and tokens[i + 1].text in "-_" and tokens[i + 1].start == t.end):
        return True
    if t.kind != "word":
        return False
    return "-" in t.text or any(ch.isupper() for ch in t.text[1:]) or (len(t.text) >= 6 and not lemmas_of(t.lower))


def password_spans(turns_tokens: list[list[Token]], i: int) -> list[tuple[int, int]]:
    """Character spans of password values in turn ``i`` of a conversation."""
    tokens = turns_tokens[i]
    spans: list[tuple[int, int]] = []
    ranges = sentences(tokens)
    pending = any(_is_cue(t) for k in range(max(0, i - ASKED_TURNS), i) for t in turns_tokens[k])
    for n, (start, end) in enumerate(ranges):
        named = any(_is_cue(tokens[j]) for j in range(start, end))
        span = _in_sentence(tokens, start, end) if named else None
        if span is None and named and n > 0 and _points_back(tokens, start, end):
            span = _answer(tokens, *ranges[n - 1])
        if span is None and pending and not named:
            span = _answer(tokens, start, end)
        if span is not None:
            spans.append(span)
        elif named:
            pending = True  # "they changed the wifi password. It's otter15 now."
    return spans


def _points_back(tokens: list[Token], start: int, end: int) -> bool:
    first = _first_content(tokens, start, end)
    return first is not None and tokens[first].lower in ("that's", "thats", "this", "that")
