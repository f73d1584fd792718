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

Credentials have published formats: a service's access key or token, a JSON web token, a URL's password and a
private-key block are cut wherever they stand (``credentials``, detect-secrets' format detectors).
Passwords are words too: what follows "password is" in its sentence is redacted, and so is a short answer to a
question that asked for one. ``cues`` holds the lexicon (generic English, nothing from any recorded day),
``numbers`` the shapes. Pure: no Django, no I/O. Idempotent: redacting twice changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ledger.redaction import cues
from ledger.redaction.credentials import credential_spans
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
from ledger.redaction.passwords import password_spans

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
    """Character spans of the secrets in each turn (merged, sorted). Only turns that may hold a secret (a digit,
    two number words in a row, a password word, or an answer to one) and the few turns before them are read:
    most talk has none, and is passed over at the cost of one regular expression."""
    texts = [t or "" for t in texts]
    credentials = [credential_spans(t) for t in texts]
    wanted = _turns_to_read(texts)
    if not wanted:
        return [_merge(found) for found in credentials]
    turns = [_parse(t) if i in wanted else _Turn(t, [], [], [], []) for i, t in enumerate(texts)]
    cards = _card_turns(turns)
    for i, turn in enumerate(turns):
        turn.secret = [_is_secret(turns, i, n, card_context=cards[i]) for n in range(len(turn.runs))]
    tokens = [t.tokens for t in turns]
    if any(ASKS_A_PASSWORD.search(t) for t in texts):
        for i, turn in enumerate(turns):
            turn.extra += password_spans(tokens, i)
    _echo(turns, cards)
    _echo_words(turns)
    return [
        _merge([_span(t, r) for r, s in zip(t.runs, t.secret, strict=True) if s] + t.extra + found)
        for t, found in zip(turns, credentials, strict=True)
    ]


def _span(turn: _Turn, run: Run) -> tuple[int, int]:
    """A card is cut out alone, without the expiry said after it in the same breath."""
    window = card_window(run)
    if window is None:
        return (run.start, run.end)
    return (turn.tokens[window[0]].start, turn.tokens[window[1]].end)


_NUMBER_WORD = (
    r"(?:zero|oh|o|nought|nil|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety"
    r"|double|triple)"
)
ASKS_A_PASSWORD = re.compile(r"pass(?:word|wd|phrase|code)|\bpwd\b", re.IGNORECASE)
# A digit, a password word, or two number words in a row ("four one nine", "forty-seven nineteen").
MAY_HOLD_A_SECRET = re.compile(
    rf"\d|pass(?:word|wd|phrase|code)|\bpwd\b|\b{_NUMBER_WORD}[\s,\-]+{_NUMBER_WORD}\b", re.IGNORECASE
)


def _turns_to_read(texts: list[str]) -> set[int]:
    """Turns that may hold a secret, with the turns before them that may hold its cue."""
    may = [bool(MAY_HOLD_A_SECRET.search(t)) for t in texts]
    password = [may[i] and bool(ASKS_A_PASSWORD.search(t)) for i, t in enumerate(texts)]
    candidates = [i for i in range(len(texts)) if may[i] or any(password[max(0, i - 2) : i])]
    return {k for i in candidates for k in range(max(0, i - CARD_TURNS), i + 1)}


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
    if not _stands_alone(turn.tokens, run):
        return False
    return _asked_for(turns, i, run, card_context) == SECRET


def _next_is_time_or_decimal(tokens: list[Token], run: Run) -> bool:
    """ "1:45", "9:30": a clock time, whatever the cues say."""
    j = run.last + 1
    before = run.first - 1
    return (j + 1 < len(tokens) and tokens[j].text == ":" and tokens[j + 1].kind == "digits") or (
        before - 1 >= 0 and tokens[before].text == ":" and tokens[before - 1].kind == "digits"
    )


def _left_cue(tokens: list[Token], run: Run, card_context: bool) -> str | None:
    """The cue before the number in its sentence, up to LEFT_WORDS content words back. A secret word or a
    plain context word (a phone, a price, an expiry) decides where it is met. A plain word right beside the
    number ("unit 1104", "at 6 30", "in 2019") decides at once; one a word away ("the room is 1204") decides
    only when no secret word stands further back ("the code for the server room is 3848")."""
    words_seen = content = 0
    crossed_number, plain_near = False, False
    touching = True  # no mark between the word and the number: "unit 1104", not "hold on, 602"
    j = run.first - 1
    while j >= 0 and content < LEFT_WORDS:
        t = tokens[j]
        if t.kind == "mark":
            if t.text in cues.SENTENCE_END:
                break
            touching = touching and t.text in "#-"
            j -= 1
            continue
        if t.kind == "word" and t.lower.endswith("'s") and words_seen == 0:
            touching = False  # "the server room's 1427": the room's what, said before; not "room 1427"
        if t.kind in ("digits", "alnum", "placeholder") or t.spoken is not None:
            crossed_number = True
            j -= 1
            continue
        w = cues.base(t)
        if w in cues.HEAD_NOUNS and words_seen == 0 and touching and not crossed_number:
            qualifier = _word_before(tokens, j)
            cue = cues.word_cue(tokens, qualifier, card_context=card_context) if qualifier is not None else None
            return cue or cues.word_cue(tokens, j, card_context=card_context) or PLAIN  # "number 2", "room no. 12"
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue is not None:
            return cue
        if w in cues.PLAIN_BESIDE and not crossed_number:
            if words_seen == 0 and touching:
                return PLAIN
            plain_near = plain_near or words_seen < 2
        words_seen += 1
        if not cues.is_filler(t):
            content += 1
        j -= 1
    return PLAIN if plain_near else None


def _word_before(tokens: list[Token], j: int) -> int | None:
    k = j - 1
    while k >= 0 and tokens[k].kind == "mark" and tokens[k].text not in cues.SENTENCE_END:
        k -= 1
    return k if k >= 0 and tokens[k].kind == "word" else None


def _right_cue(tokens: list[Token], run: Run, card_context: bool) -> str | None:
    """After the number: a content word right after it makes it a quantity or a place ("300 people", "2650
    North Street"); a secret cue within RIGHT_WORDS content words makes it a secret ("4719 is the door code",
    "use 51-77-32 for the safe combination"); words of keying it in ("then pound", "and the tick") or closing
    the sentence ("now", "I think") say nothing. A next sentence "That's the code" counts too."""
    j, content, first = run.last + 1, 0, True
    while j < len(tokens) and content < RIGHT_WORDS:
        t = tokens[j]
        if t.kind == "mark":
            if t.text in cues.SENTENCE_END:
                return _anaphora(tokens, j + 1, card_context)
            first = first and t.text in "-#"  # "583920, same as always": a pause, not "300 people"
            j += 1
            continue
        if t.kind != "word" or t.spoken is not None:
            return None
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue is not None:
            return cue
        w = cues.base(t)
        quiet = cues.is_filler(t) or w in cues.KEYPAD_WORDS
        if first and (w in cues.PLAIN_BESIDE or not quiet):
            return PLAIN  # a counted thing, a unit, a street name
        first = False
        content += not quiet
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
    """The nearest cue before ``end``: a secret word, a plain context word ("phone", "price", "expiry"), or, in
    a question of an earlier turn, a word asking for a time, an amount or a count ("What time?", "How many?")."""
    asking = end > 0 and tokens[end - 1].text == "?"
    for j in range(end - 1, max(-1, end - 1 - CONTEXT_TOKENS), -1):
        t = tokens[j]
        if t.kind == "mark" and t.text in cues.SENTENCE_END:
            asking = t.text == "?"
            continue
        cue = cues.word_cue(tokens, j, card_context=card_context)
        if cue is not None:
            return cue
        if questions_only and asking and cues.base(t) in cues.PLAIN_CONTEXT_IN_QUESTIONS:
            return PLAIN
    return None


# --- echoes ----------------------------------------------------------------------------------------------------
def _echo(turns: list[_Turn], cards: list[bool]) -> None:
    """The same digits said again anywhere in the conversation are the same secret (3-digit ones only nearby),
    unless the words beside them say they are something else ("4719 dollars")."""
    secrets = [(i, r) for i, t in enumerate(turns) for r, s in zip(t.runs, t.secret, strict=True) if s]
    if not secrets:
        return
    for i, turn in enumerate(turns):
        for n, run in enumerate(turn.runs):
            if turn.secret[n] or len(run.digits) < MIN_DIGITS or run.amount:
                continue
            near = (s for k, s in secrets if len(s.digits) > 3 or abs(i - k) <= SHORT_ECHO_TURNS)
            if any(_same_number(run, s) for s in near):
                beside = (_left_cue(turn.tokens, run, cards[i]), _right_cue(turn.tokens, run, cards[i]))
                turn.secret[n] = PLAIN not in beside


def _echo_words(turns: list[_Turn]) -> None:
    """A password said again (the listener reading it back) is the same secret."""
    values = {t.text[a:b] for t in turns for a, b in t.extra}
    values = {v for v in values if len(v) >= 4 and not any(ch.isspace() for ch in v) and not v.isdigit()}
    if not values:
        return
    said = re.compile("|".join(rf"(?<!\w){re.escape(v)}(?!\w)" for v in sorted(values, key=len, reverse=True)), re.I)
    for turn in turns:
        turn.extra += [(m.start(), m.end()) for m in said.finditer(turn.text)]


def _same_number(run: Run, secret: Run) -> bool:
    """The same number, or a card's or account's last digits ("ending 4821"), or a long part of it."""
    a, b = run.digits, secret.digits
    if a == b:
        return True
    if len(a) >= 4 and b.endswith(a):
        return True
    return min(len(a), len(b)) >= 6 and (a in b or b in a)


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
