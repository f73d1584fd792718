"""Redaction by structure: the one redactor every source runs before anything reaches disk.

A number is secret when its shape says so on its own (a Luhn-valid card, a valid IBAN, an SSN written
NNN-NN-NNNN) or when the words around it do, over a few turns of a conversation:

1. **Beside it**: the nearest cue word in its sentence ("the code's 4719", "account number 1047 2268",
   "BSB 063-184", "4719 is the door code"). A plain cue (a price, a time, an address, a phone, a flight, a
   quantity) beside it keeps it ("unit 1104", "at 6 30", "2650 North Street", "in 2019", "300 people").
2. **In the question it answers**: a number said on its own ("Yes, it's, um, 946 207 313.", "7319, then
   star.") is secret when the last few turns asked for one ("can you confirm your SIN?", "what's the new
   code?"), unless the nearest cue there asked for something plain ("Expiration?").
3. **Echoed**: once a number is secret, the same digits said again in the conversation (the listener reading it
   back, spoken or written any other way) are secret too.

Passwords are words too: what follows "password is" in its sentence is redacted, and so is a short answer to a
question that asked for one. ``cues`` holds the lexicon (generic English, nothing from any recorded day),
``numbers`` the shapes. Pure: no Django, no I/O. Idempotent: redacting twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.redaction import cues
from ledger.redaction.cues import PLAIN, SECRET
from ledger.redaction.numbers import (
    SSN_RE,
    Run,
    Token,
    card_window,
    iban_spans,
    luhn_valid,
    number_runs,
    tokenize,
)

__all__ = ["REDACTED", "luhn_valid", "redact_text", "redact_turns", "secret_spans"]

REDACTED = "[redacted]"
CONTEXT_TURNS = 3  # how far back a question reaches ("what's the new one?" two turns after "the alarm code")
CARD_TURNS = 6  # how long a card read out keeps "the three on the back" a security code
SHORT_ECHO_TURNS = 4  # a 3-digit secret is looked for only this close (a 4+ digit one in the whole conversation)
MIN_DIGITS = 3
CONTEXT_TOKENS = 80  # how much of a turn before a number is read for the question it answers (bounds the work)
LEFT_WORDS = 4  # content words looked at before a number in its sentence
RIGHT_WORDS = 3


@dataclass
class _Turn:
    text: str
    tokens: list[Token]
    runs: list[Run]
    secret: list[bool]
    extra: list[tuple[int, int]]  # spans found by other means (IBANs, SSNs, password values)


def redact_text(text: str) -> str:
    """One text with no conversation around it (a title, a memory, a message)."""
    return redact_turns([text])[0]


def redact_turns(texts: list[str]) -> list[str]:
    """The turns of one conversation, in order, with their secrets replaced by ``[redacted]``."""
    return [_apply(t, spans) for t, spans in zip(texts, secret_spans(texts), strict=True)]


def secret_spans(texts: list[str]) -> list[list[tuple[int, int]]]:
    """Character spans of the secrets in each turn (merged, sorted)."""
    turns = [_parse(t or "") for t in texts]
    cards = _card_turns(turns)
    for i, turn in enumerate(turns):
        turn.secret = [_is_secret(turns, i, n, card_context=cards[i]) for n in range(len(turn.runs))]
        turn.extra += _password_spans(turns, i)
    _echo(turns)
    return [_merge([_span(t, r) for r, s in zip(t.runs, t.secret, strict=True) if s] + t.extra) for t in turns]


def _span(turn: _Turn, run: Run) -> tuple[int, int]:
    """A card is cut out alone, without the expiry said after it in the same breath."""
    window = card_window(run)
    if window is None:
        return (run.start, run.end)
    return (turn.tokens[window[0]].start, turn.tokens[window[1]].end)


def _parse(text: str) -> _Turn:
    tokens = tokenize(text)
    runs = number_runs(tokens)
    extra = iban_spans(text) + [(m.start(), m.end()) for m in SSN_RE.finditer(text)]
    return _Turn(text, tokens, runs, [False] * len(runs), extra)


def _card_turns(turns: list[_Turn]) -> list[bool]:
    """Per turn: whether a card was named or read out in it or in the few turns before."""
    named = [
        any(t.kind == "word" and cues.base(t) in cues.CARD_WORDS for t in turn.tokens)
        or any(card_window(r) is not None for r in turn.runs)
        for turn in turns
    ]
    return [any(named[max(0, i - CARD_TURNS) : i + 1]) for i in range(len(turns))]


def _is_secret(turns: list[_Turn], i: int, n: int, *, card_context: bool) -> bool:
    turn, run = turns[i], turns[i].runs[n]
    if run.amount:
        return False
    if card_window(run) is not None:
        return True
    if len(run.digits) < MIN_DIGITS and not (run.has_letters and len(run.value) >= 6 and len(run.digits) >= 4):
        return False
    if _next_is_time_or_decimal(turn.tokens, run):
        return False
    left = _left_cue(turn.tokens, run, card_context)
    if left is not None:
        return left == SECRET
    right = _right_cue(turn.tokens, run, card_context)
    if right is not None:
        return right == SECRET
    if run.clock or not _stands_alone(turn.tokens, run):
        return False
    return _asked_for(turns, i, run, card_context) == SECRET


def _next_is_time_or_decimal(tokens: list[Token], run: Run) -> bool:
    """ "1:45", "9:30": a clock time, whatever the cues say."""
    j = run.last + 1
    before = run.first - 1
    return (j + 1 < len(tokens) and tokens[j].text == ":" and tokens[j + 1].kind == "digits") or (
        before - 1 >= 0 and tokens[before].text == ":" and tokens[before - 1].kind == "digits"
    )


HEAD_NOUNS = frozenset({"number", "numbers", "no", "num", "#", "digits", "details"})


def _left_cue(tokens: list[Token], run: Run, card_context: bool) -> str | None:
    """The nearest cue before the number in its sentence. A plain word counts only right beside it (one word
    between at most, and no other number in between); a secret word up to LEFT_WORDS content words away."""
    words_seen = content = 0
    crossed_number = False
    touching = True  # no mark between the word and the number: "unit 1104", not "hold on, 602"
    j = run.first - 1
    while j >= 0 and content < LEFT_WORDS:
        t = tokens[j]
        if t.kind == "mark":
            if t.text in cues.SENTENCE_END:
                return None
            touching = touching and t.text in "#-"
            j -= 1
            continue
        if t.kind in ("digits", "alnum", "placeholder") or t.spoken is not None:
            crossed_number = True
            j -= 1
            continue
        w = cues.base(t)
        if w in HEAD_NOUNS:
            qualifier = _word_before(tokens, j)
            if qualifier is not None:
                cue = cues.word_cue(tokens, qualifier, card_context=card_context)
                if cue is not None:
                    return cue
            if words_seen == 0 and touching and not crossed_number:
                return PLAIN  # "number 2", "room no. 12"
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue == SECRET:
            return SECRET
        if cue == PLAIN:
            return PLAIN
        if words_seen < 2 and touching and not crossed_number and w in cues.PLAIN_BESIDE:
            return PLAIN
        words_seen += 1
        if not cues.is_filler(t):
            content += 1
        j -= 1
    return None


def _word_before(tokens: list[Token], j: int) -> int | None:
    k = j - 1
    while k >= 0 and tokens[k].kind == "mark" and tokens[k].text not in cues.SENTENCE_END:
        k -= 1
    return k if k >= 0 and tokens[k].kind == "word" else None


def _right_cue(tokens: list[Token], run: Run, card_context: bool) -> str | None:
    """After the number: a content word right after it makes it a quantity or a place ("300 people", "2650
    North Street"); a secret cue within RIGHT_WORDS words makes it a secret ("4719 is the door code"); words
    of keying it in ("then pound", "and the tick") say nothing. A next sentence "That's the code" counts too."""
    j, seen = run.last + 1, 0
    while j < len(tokens) and seen < RIGHT_WORDS:
        t = tokens[j]
        if t.kind == "mark":
            if t.text in cues.SENTENCE_END:
                return _anaphora(tokens, j + 1, card_context)
            j += 1
            continue
        if t.kind != "word" or t.spoken is not None:
            return None
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue is not None:
            return cue
        w = cues.base(t)
        if seen == 0 and w in cues.PLAIN_BESIDE:
            return PLAIN
        if seen == 0 and not (cues.is_filler(t) or w in cues.KEYPAD_WORDS):
            return PLAIN  # a counted thing, a unit, a street name
        seen += 1
        j += 1
    return None


def _anaphora(tokens: list[Token], j: int, card_context: bool) -> str | None:
    """ "4719. That's the code." — the next sentence opens by pointing back at the number."""
    words = []
    while j < len(tokens) and len(words) < 5:
        t = tokens[j]
        if t.kind == "mark" and t.text in cues.SENTENCE_END:
            break
        if t.kind == "word":
            words.append(j)
        j += 1
    if not words or cues.base(tokens[words[0]]) not in ("that", "that's", "thats", "this", "it's", "which"):
        return None
    for k in words[1:]:
        cue = cues.word_cue(tokens, k, card_context=card_context)
        if cue is not None:
            return cue
    return None


def _stands_alone(tokens: list[Token], run: Run) -> bool:
    """Whether the number is what its sentence says: only answer words before it ("Yes, it's, um, …")."""
    j = run.first - 1
    while j >= 0:
        t = tokens[j]
        if t.kind == "mark":
            if t.text in cues.SENTENCE_END:
                return True
        elif t.kind == "word" and t.spoken is None and not cues.is_filler(t):
            return False
        j -= 1
    return True


def _asked_for(turns: list[_Turn], i: int, run: Run, card_context: bool) -> str | None:
    """The nearest cue in what came before: this turn's earlier sentences, then the last few turns."""
    turn = turns[i]
    cue = _last_cue(turn.tokens, run.first, card_context, questions_only=False)
    if cue is not None:
        return cue
    for k in range(i - 1, max(-1, i - 1 - CONTEXT_TURNS), -1):
        cue = _last_cue(turns[k].tokens, len(turns[k].tokens), card_context, questions_only=True)
        if cue is not None:
            return cue
    return None


def _last_cue(tokens: list[Token], end: int, card_context: bool, *, questions_only: bool) -> str | None:
    for j in range(end - 1, max(-1, end - 1 - CONTEXT_TOKENS), -1):
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue == SECRET:
            return SECRET
        if cue == PLAIN and (not questions_only or cues.base(tokens[j]) in cues.PLAIN_CONTEXT_IN_QUESTIONS):
            return PLAIN
    return None


# --- passwords -------------------------------------------------------------------------------------------------
PASSWORD_VALUE_WORDS = 8


def _password_spans(turns: list[_Turn], i: int) -> list[tuple[int, int]]:
    """What follows "password is" up to the end of its clause; or a short answer to "what's the password?"."""
    tokens = turns[i].tokens
    spans = []
    for j, t in enumerate(tokens):
        if t.kind == "word" and cues.base(t) in cues.PASSWORD_WORDS:
            k = j + 1
            if t.lower.endswith("'s"):
                k = j + 1
            elif k < len(tokens) and (tokens[k].lower in cues.COPULAS or tokens[k].text in ":="):
                k += 1
            else:
                continue
            span = _value_span(tokens, k)
            if span:
                spans.append(span)
    asked = any(
        t.kind == "word" and cues.base(t) in cues.PASSWORD_WORDS
        for k in range(max(0, i - 2), i)
        for t in turns[k].tokens
    )
    if asked and not spans:
        start = _first_answer_word(tokens)
        if start is not None:
            span = _value_span(tokens, start, short_only=True)
            if span:
                spans.append(span)
    return spans


ANSWER_OPENERS = frozenset("it's its it is yes yeah yep sure okay ok so um uh oh right".split())


def _first_answer_word(tokens: list[Token]) -> int | None:
    for j, t in enumerate(tokens):
        if t.kind == "mark" or t.lower in ANSWER_OPENERS:
            continue
        return j
    return None


def _value_span(tokens: list[Token], k: int, *, short_only: bool = False) -> tuple[int, int] | None:
    """From token ``k`` to the end of its clause (at most PASSWORD_VALUE_WORDS tokens); None when the value
    opens with a function word ("the same as before", "on the fridge")."""
    if k >= len(tokens) or tokens[k].kind == "placeholder":
        return None
    if tokens[k].kind == "word" and cues.base(tokens[k]) in cues.STOPWORDS:
        return None
    end, n = k, 0
    while end < len(tokens) and n < PASSWORD_VALUE_WORDS:
        t = tokens[end]
        if t.kind == "mark" and (t.text in cues.SENTENCE_END or t.text in ";"):
            break
        if (
            t.kind == "mark"
            and t.text == ","
            and end + 1 < len(tokens)
            and tokens[end + 1].lower in ("and", "but", "so")
        ):
            break
        if t.kind == "word" and t.lower in ("and", "but") and n > 0:
            break
        n += t.kind != "mark"
        end += 1
    if end == k or (short_only and n > 3):
        return None
    last = end - 1
    while last > k and tokens[last].kind == "mark":
        last -= 1
    return (tokens[k].start, tokens[last].end)


# --- echoes ----------------------------------------------------------------------------------------------------
def _echo(turns: list[_Turn]) -> None:
    """The same digits said again anywhere in the conversation are the same secret (3-digit ones only nearby)."""
    secrets = [(i, r) for i, t in enumerate(turns) for r, s in zip(t.runs, t.secret, strict=True) if s]
    if not secrets:
        return
    for i, turn in enumerate(turns):
        for n, run in enumerate(turn.runs):
            if turn.secret[n] or len(run.digits) < MIN_DIGITS or run.amount:
                continue
            turn.secret[n] = any(_same_number(run, s) and (len(s.digits) > 3 or abs(i - k) <= SHORT_ECHO_TURNS)
                                 for k, s in secrets)  # fmt: skip


def _same_number(run: Run, secret: Run) -> bool:
    a, b = run.digits, secret.digits
    if a == b:
        return True
    return len(a) >= 4 and len(b) >= 4 and (a in b or b in a)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _apply(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    return text
