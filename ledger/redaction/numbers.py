"""Numbers in talk, by shape: a turn as tokens, and the runs of number tokens in it however they were said.

A run is what a person reads out as one number: digit groups joined by spaces, dashes, dots or a comma pause
("4242 4242, 4242 4242", "NN-NN-NN"), digits said as words ("four eight one seven", "oh nine", "double five",
"forty-seven nineteen"), letters read between digits ("Z 6 4 0 1 9 3 8") and tokens that mix both
("5127046C"). Each run knows its digits (``value``), whether it is an amount ("a hundred and eighty-six") and
where it sits in the text, so the caller can decide from the words around it and replace exactly its span.

Validators are structural facts that need no context: a Luhn-valid 13-19 digit card number (python-stdnum's
``luhn``), a valid IBAN (``stdnum.iban``), an SSN written NNN-NN-NNNN. Pure: no Django, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stdnum import iban, luhn

PLACEHOLDER_RE = re.compile(r"\[(?:redacted|forgotten|number|email|secret)\]")
# Words (contractions and hyphenated compounds kept whole: "code's", "twenty-eight"), digit groups, one mark.
TOKEN_RE = re.compile(
    r"\[(?:redacted|forgotten|number|email|secret)\]"
    r"|[A-Za-z]*+\d[A-Za-z0-9]*"
    r"|[^\W\d_]+(?:['’][^\W\d_]+)?(?:-[^\W\d_]+)*"
    r"|[^\s\w]",
    re.UNICODE,
)

DIGIT_WORDS = {
    "zero": "0", "oh": "0", "o": "0", "nought": "0", "nil": "0", "one": "1", "two": "2", "three": "3",
    "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
TEENS = {
    "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15",
    "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
}  # fmt: skip
TENS = {
    "twenty": "2", "thirty": "3", "forty": "4", "fourty": "4", "fifty": "5", "sixty": "6", "seventy": "7",
    "eighty": "8", "ninety": "9",
}  # fmt: skip
REPEATS = {"double": 2, "triple": 3}
SCALES = frozenset("hundred thousand million billion lakh lakhs crore crores grand".split())
# Letters after digits that make a quantity, a time or an ordinal, not an identifier ("4pm", "10km", "2nd").
UNIT_SUFFIXES = frozenset(
    "am pm st nd rd th s k m km kg g mg ml l lb lbs cm mm ft in mph kph kmh gb mb tb kb hz x p yo h hr hrs min "
    "mins sec secs d w y yr yrs bn mn".split()
)
JOINERS = frozenset({"-", "–", "—", "."})
ZERO_ONLY_IN_RUNS = frozenset({"oh", "o", "nil"})  # "oh" is a zero only beside other digits ("oh nine")


@dataclass(slots=True)
class Token:
    text: str
    start: int
    end: int
    kind: str  # "word" | "digits" | "alnum" | "mark" | "placeholder"
    lower: str = ""
    spoken: str | None = None  # the digits a number word stands for ("four" -> "4", "twenty-eight" -> "28")


@dataclass
class Run:
    """One number as said: token positions ``first..last`` (inclusive) of its turn's tokens."""

    first: int
    last: int
    start: int
    end: int
    value: str  # digits (and letters of identifiers, upper case) in order: "4719", "Z6401938", "5127046C"
    groups: list[str] = field(default_factory=list)  # digit groups as written ("4242", "4242", ...)
    group_tokens: list[int] = field(default_factory=list)  # the token index of each group
    amount: bool = False  # said with a scale word: "a hundred and eighty-six", "ten crore"
    spoken: bool = False  # at least one number word
    clock: bool = False  # said like a clock time: "four-thirty", "three fifteen", "ten oh five"
    separators: str = ""  # the marks that joined its groups ("-", ".", ",")

    @property
    def digits(self) -> str:
        return "".join(ch for ch in self.value if ch.isdigit())

    @property
    def has_letters(self) -> bool:
        return any(ch.isalpha() for ch in self.value)


def spoken_value(word: str) -> str | None:
    """The digits a spoken number word stands for, or None: "four" -> "4", "forty-seven" -> "47", "oh-eight"
    -> "08", "twenty" -> "20"."""
    w = word.lower().replace("’", "'")
    if w in DIGIT_WORDS:
        return DIGIT_WORDS[w]
    if w in TEENS:
        return TEENS[w]
    if w in TENS:
        return TENS[w] + "0"
    if "-" in w:
        parts = w.split("-")
        values = [spoken_value(p) for p in parts]
        if all(values):
            if len(parts) == 2 and parts[0] in TENS and parts[1] in DIGIT_WORDS and parts[1] not in ZERO_ONLY_IN_RUNS:
                return TENS[parts[0]] + DIGIT_WORDS[parts[1]]
            return "".join(values)  # "oh-eight" -> "08"
    return None


def tokenize(text: str) -> list[Token]:
    out = []
    for m in TOKEN_RE.finditer(text or ""):
        piece = m.group()
        if PLACEHOLDER_RE.fullmatch(piece):
            kind = "placeholder"
        elif piece.isdigit():
            kind = "digits"
        elif any(ch.isdigit() for ch in piece):
            kind = "alnum"
        elif piece[0].isalpha():
            kind = "word"
        else:
            kind = "mark"
        lower = piece.lower().replace("’", "'")
        out.append(Token(piece, m.start(), m.end(), kind, lower, spoken_value(piece) if kind == "word" else None))
    return out


def _number_piece(tokens: list[Token], i: int) -> bool:
    """Whether token ``i`` can be part of a number run on its own terms (before looking at its neighbours)."""
    t = tokens[i]
    if t.kind == "digits":
        return True
    if t.kind == "alnum":
        return _identifier_like(t.text)
    if t.kind == "word":
        return t.spoken is not None or t.lower in REPEATS or t.lower in SCALES or t.lower == "and"
    return False


def _identifier_like(text: str) -> bool:
    """A token mixing letters and digits that is not a quantity ("10km"), a time ("4pm") or an ordinal ("2nd")."""
    m = re.fullmatch(r"(\d+)([A-Za-z]+)", text)
    if m and m.group(2).lower() in UNIT_SUFFIXES:
        return False
    return True


def _single_letter(tokens: list[Token], i: int) -> bool:
    """A capital letter read out between digits ("Z 6 4 0 …"); not the words "I" and "A"."""
    t = tokens[i]
    return t.kind == "word" and len(t.text) == 1 and t.text.isupper() and t.text not in ("I", "A")


def _next_piece(tokens: list[Token], j: int) -> int | None:
    """Index of the number token continuing a run after token ``j`` (across one joining mark), or None."""
    k = j + 1
    if k < len(tokens) and tokens[k].kind == "mark":
        mark = tokens[k].text
        gap_before = tokens[k].start > tokens[j].end
        if mark == "," and _form(tokens[j]) != _form(tokens[k + 1] if k + 1 < len(tokens) else tokens[k]):
            return None  # a comma pause joins digits to digits and words to words ("1881, oh-eight" is two)
        if mark == "," or (mark in JOINERS and not (mark == "." and gap_before)):
            k += 1
        else:
            return None
        if mark == "." and k < len(tokens) and tokens[k].start > tokens[k - 1].end:
            return None  # "4719. Then…": a full stop, not a dot inside a number
    if k < len(tokens) and _code_letters(tokens, j, k):
        return k
    if k >= len(tokens) or not (_number_piece(tokens, k) or _single_letter(tokens, k)):
        return None
    if tokens[k].lower == "and" and tokens[j].lower not in SCALES:
        return None  # "and" joins only an amount's words ("a hundred and six"), never two numbers
    if tokens[j].lower in ZERO_ONLY_IN_RUNS or tokens[k].lower in ZERO_ONLY_IN_RUNS:
        # "oh" is a zero between number words said without a pause ("oh nine"), not "Oh, 4719"
        if k != j + 1 or not (_said(tokens[j]) and _said(tokens[k])):
            return None
    return k


def _code_letters(tokens: list[Token], number: int, letters: int) -> bool:
    """Whether ``letters`` is a group of capital letters written onto the written number at ``number`` by a
    hyphen with no space ("4777-NJUA", "AB-4410"): one identifier, read as one run, so that a secret one is
    redacted whole and never leaves a part of itself behind ("[redacted]-NJUA")."""
    lo, hi = sorted((number, letters))
    if hi - lo != 2 or tokens[lo + 1].text != "-":
        return False
    if not (tokens[lo].end == tokens[lo + 1].start and tokens[lo + 1].end == tokens[hi].start):
        return False
    word, digits = tokens[letters], tokens[number]
    return (
        word.kind == "word"
        and word.text.isalpha()
        and word.text.isupper()
        and len(word.text) <= 8
        and digits.kind in ("digits", "alnum")
    )


def code_letters(tokens: list[Token], i: int) -> bool:
    """Whether the word at ``i`` is the letters of a written code ("NAY" in "PIN NAY-4821"), not a word of talk."""
    return any(0 <= j < len(tokens) and _code_letters(tokens, j, i) for j in (i - 2, i + 2))


def _said(token: Token) -> bool:
    return token.spoken is not None or token.lower in REPEATS


def _form(token: Token) -> str:
    return "word" if token.kind == "word" else "digits"


def number_runs(tokens: list[Token]) -> list[Run]:
    """Every run of number tokens in a turn, left to right."""
    runs: list[Run] = []
    i = 0
    while i < len(tokens):
        if not (_number_piece(tokens, i) or _single_letter(tokens, i)) or tokens[i].lower == "and":
            i += 1
            continue
        if i >= 2 and _code_letters(tokens, i, i - 2) and (not runs or runs[-1].last < i - 2):
            i -= 2  # a code that opens with its letters ("AB-4410"): the run starts at them
        j = i
        while (k := _next_piece(tokens, j)) is not None:
            j = k
        while j > i and (tokens[j].lower == "and" or tokens[j].kind == "mark"):
            j -= 1  # a run never ends on "and" or a mark
        run = _build_run(tokens, i, j)
        if run is not None:
            runs.append(run)
        i = j + 1
    return runs


def _build_run(tokens: list[Token], i: int, j: int) -> Run | None:
    pieces = tokens[i : j + 1]
    if not any(t.kind in ("digits", "alnum") or t.spoken is not None for t in pieces):
        return None
    if all(t.kind == "word" and len(t.text) == 1 for t in pieces if t.kind != "mark"):
        return None  # letters only
    value, groups, seps = [], [], []
    amount = spoken = False
    repeat = 1
    indexes = [i + n for n, t in enumerate(pieces) if t.kind != "mark"]
    words = [tokens[n] for n in indexes]
    group_tokens = []
    for n, t in enumerate(words):
        if t.lower in SCALES:
            amount = True
        elif t.lower in REPEATS:
            repeat = REPEATS[t.lower]
        elif t.lower == "and":
            continue
        elif t.kind == "word" and t.spoken is not None:
            spoken = True
            digits = t.spoken
            if t.lower in ZERO_ONLY_IN_RUNS and len(words) == 1:
                return None
            nxt = words[n + 1] if n + 1 < len(words) else None
            if t.lower in TENS and nxt is not None and nxt.lower in DIGIT_WORDS and nxt.lower not in ZERO_ONLY_IN_RUNS:
                digits = TENS[t.lower]  # "forty seven" -> "4" then "7"
            value.append(digits * repeat)
            groups.append(digits * repeat)
            group_tokens.append(indexes[n])
            repeat = 1
        elif t.kind == "word":  # a single capital letter
            value.append(t.text.upper())
        else:
            value.append(t.text.upper() if t.kind == "alnum" else t.text)
            groups.append(t.text)
            group_tokens.append(indexes[n])
    seps = [t.text for t in pieces if t.kind == "mark"]
    for n in range(1, len(pieces) - 1):
        dot, before, after = pieces[n], pieces[n - 1], pieces[n + 1]
        if dot.text == "." and dot.start == before.end and after.kind == "digits" and len(after.text) <= 2:
            amount = True  # a decimal ("9.6", "50.25"), not digit groups
    return Run(
        first=i,
        last=j,
        start=tokens[i].start,
        end=tokens[j].end,
        value="".join(value),
        groups=groups,
        group_tokens=group_tokens,
        amount=amount,
        clock=_clock_time(words),
        spoken=spoken,
        separators="".join(sorted(set(seps))),
    )


# --- validators: structure that needs no context -------------------------------------------------------------
CARD_MIN, CARD_MAX = 13, 19
SSN_RE = re.compile(r"(?<![\w-])\d{3}([-\s.]?)\d{2}\1\d{4}(?![\w-])")
IBAN_RE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{2,4}){2,8}\b")


def luhn_valid(digits: str) -> bool:
    return digits.isdigit() and luhn.is_valid(digits)


def card_window(run: Run) -> tuple[int, int] | None:
    """Token positions (first, last) of the longest stretch of the run's groups holding a payment card: 13-19
    digits passing the Luhn check. None when there is none."""
    groups = list(zip(run.groups, run.group_tokens, strict=True))
    best = None
    for i in range(len(groups)):
        digits = ""
        for g, last in groups[i:]:
            if not g.isdigit():
                break
            digits += g
            if len(digits) > CARD_MAX:
                break
            if (
                len(digits) >= CARD_MIN
                and luhn_valid(digits)
                and (best is None or last - groups[i][1] > best[1] - best[0])
            ):
                best = (groups[i][1], last)
    return best


HOURS = frozenset("one two three four five six seven eight nine ten eleven twelve".split())


def _clock_time(words: list[Token]) -> bool:
    """ "four-thirty", "three fifteen", "ten oh five": an hour word then minutes, the way times are said."""
    parts = [p for t in words for p in t.lower.split("-")]
    if len(parts) == 2 and parts[0] in HOURS and (parts[1] in TENS or parts[1] in TEENS):
        return True
    if len(parts) == 3 and parts[0] in HOURS:
        tail = parts[1:]
        return (tail[0] in TENS and tail[1] in DIGIT_WORDS) or (tail[0] in ("oh", "o") and tail[1] in DIGIT_WORDS)
    return False


def iban_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of valid IBANs (mod-97 checked), however they are grouped."""
    return [(m.start(), m.end()) for m in IBAN_RE.finditer(text or "") if iban.is_valid(m.group())]
