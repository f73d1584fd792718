"""Pure text helpers for screen text: line normalisation, fingerprints, line diffs and anchor cues. No database.

OCR text is noisy and full of counters (clocks, health bars, progress percentages). Normalisation masks digit
runs, so a counter ticking is *routine progress*, not a material change; words appearing or vanishing are.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

from ledger.lexicon import STOPWORDS
from ledger.redaction import redact_text

_WS = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+(?:[.,:]\d+)*")
_PUNCT = re.compile(r"[^\w#%$€£ ]+")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_CURRENCY = re.compile(r"[$€£¥]\s?\d|\d\s?(?:usd|eur|gbp|inr|rs)\b", re.I)
_SCORE = re.compile(r"\b(\d{1,3})\s*[-–:]\s*(\d{1,3})\b")

MAX_LINE = 200


def redact_screen(text: str) -> str:
    """Screen text through the structural redactor a line at a time: each line is a screen element (a menu
    link, a heading, a status), so a cue on one ("Account" in a site's menu) says nothing of a number in
    another ("Run 2106 failed" two lines down). A value standing on a line of its own is read with the last
    non-empty line above it, its label ("Account number" / "1047 2268", "Your code is" / "" / "482913")."""
    out, above = [], ""
    for line in (text or "").split("\n"):
        words = line.split()
        value_alone = words and all(any(c.isdigit() for c in w) for w in words)  # "1047 2268", "063-184"
        out.append(redact_text(above + "\n" + line).split("\n")[-1] if value_alone and above else redact_text(line))
        above = line if words else above
    return "\n".join(out)


@functools.lru_cache(maxsize=8192)  # screens repeat the same lines frame after frame
def normalize_line(line: str) -> str:
    """Lowercase, digits masked as '#', punctuation dropped, whitespace collapsed."""
    text = _DIGITS.sub("#", line.lower())
    text = _PUNCT.sub(" ", text)
    return _WS.sub(" ", text).strip()[:MAX_LINE]


def clean_line(line: str) -> str:
    return _WS.sub(" ", line).strip()[:MAX_LINE]


def lines_of(text: str) -> list[str]:
    """Display lines (cleaned, non-empty, order kept, duplicates dropped)."""
    out, seen = [], set()
    for raw in (text or "").splitlines():
        line = clean_line(raw)
        key = normalize_line(line)
        if len(key) < 2 or key in seen:
            continue
        seen.add(key)
        out.append(line)
    return out


@functools.lru_cache(maxsize=8192)
def line_hash(normalized: str) -> str:
    return hashlib.blake2b(normalized.encode(), digest_size=6).hexdigest()


def fingerprint(normalized_lines: set[str]) -> str:
    """Order-free fingerprint of a frame's normalised lines."""
    joined = "\n".join(sorted(normalized_lines))
    return hashlib.blake2b(joined.encode(), digest_size=8).hexdigest()


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class LineDiff:
    added: list[str]
    removed: list[str]
    ratio: float  # share of the union that changed, 0..1

    @property
    def material(self) -> bool:
        return self.ratio >= MATERIAL_RATIO and bool(self.added or self.removed)


MATERIAL_RATIO = 0.25


def diff_lines(before: dict[str, str], after: dict[str, str]) -> LineDiff:
    """``before``/``after`` map normalised line -> display line. Added/removed keep display text."""
    b, a = set(before), set(after)
    union = b | a
    if not union:
        return LineDiff([], [], 0.0)
    added = [after[k] for k in after if k not in b]
    removed = [before[k] for k in before if k not in a]
    return LineDiff(added, removed, (len(a - b) + len(b - a)) / len(union))


# --- anchor cues --------------------------------------------------------------------------------------------
# General English vocabulary for outcomes a screen announces; not taken from any scripted session.
class Cue:
    RESULT = "result"
    ERROR = "error"
    COMPLETION = "completion"
    CONFIRMATION = "confirmation"
    ORDER = (ERROR, RESULT, CONFIRMATION, COMPLETION)  # strongest first


_CUES: dict[str, frozenset[str]] = {
    Cue.RESULT: frozenset(
        "victory defeat defeated win wins won winner lose loses lost loss draw tie stalemate checkmate".split()
    ),
    Cue.ERROR: frozenset(
        "error errors err failed failure failures fail fatal exception traceback denied refused crash crashed "
        "invalid declined unable cannot can't couldn't fault panic aborted abort timeout unreachable broken "
        "conflict conflicts missing".split()
    ),
    Cue.COMPLETION: frozenset(
        "success successful successfully completed complete done finished passed passing resolved fixed "
        "installed deployed merged published uploaded restored recovered works working ready".split()
    ),
    Cue.CONFIRMATION: frozenset(
        "confirmed confirmation booked reserved scheduled submitted sent saved paid purchased registered "
        "approved accepted ordered placed enrolled".split()
    ),
}
_NEGATORS = frozenset({"no", "0", "zero", "without", "not", "never"})
_RESULT_MAX_WORDS = 6  # a result banner is short; "we lost the file" in a paragraph is not a result


def cue_of(line: str) -> str | None:
    """The strongest cue a display line carries, or None. Negated cues ("0 failed", "no errors") don't count."""
    toks = re.findall(r"[a-z']+|\d+", line.lower())
    if not toks:
        return None
    found: set[str] = set()
    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else ""
        for cue, vocab in _CUES.items():
            if tok in vocab:
                if prev in _NEGATORS:
                    continue
                if cue == Cue.RESULT and len(toks) > _RESULT_MAX_WORDS:
                    continue
                found.add(cue)
    # "5 passed, 0 failed": the negated failure was skipped above; a remaining error still wins over completion.
    for cue in Cue.ORDER:
        if cue in found:
            return cue
    return None


def has_currency(text: str) -> bool:
    return bool(_CURRENCY.search(text or ""))


def score_in(text: str) -> str | None:
    m = _SCORE.search(text or "")
    return f"{m.group(1)}-{m.group(2)}" if m else None


def result_outcome(line: str) -> str:
    """Normalise a result line's word: victory | defeat | draw."""
    toks = set(words(line))
    if toks & {"victory", "win", "wins", "won", "winner", "checkmate"}:
        return "victory"
    if toks & {"defeat", "defeated", "lose", "loses", "lost", "loss"}:
        return "defeat"
    return "draw"


def slug(text: str, default: str = "app") -> str:
    s = re.sub(r"[^a-z0-9]+", "_", (text or "").lower()).strip("_")
    s = re.sub(r"^[0-9_]+", "", s)[:40].strip("_")
    return s or default


def stems(words) -> set[str]:
    """Words reduced to a rough stem (plural, -ing, -ed), so "wheels" meets "wheel" and "building" "build"."""
    out = set()
    for w in words:
        for suffix in ("ing", "ed", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 4 and not w.endswith("ss"):
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def content_tokens(text: str) -> set[str]:
    """Distinctive tokens for matching a resolution to its problem (words of 3+ letters, minus cue words)."""
    cue_words = set().union(*_CUES.values())
    return {w for w in words(text) if len(w) >= 3 and w not in cue_words and w not in SCREEN_STOPWORDS}


# Screen text drops only the commonest of the shared function words, plus words every window is full of ("new",
# "via"): matching a resolution to its problem was tuned on exactly these, and the full list would also drop
# words such as "after" or "before" that tell two problems apart.
SCREEN_STOPWORDS = STOPWORDS & frozenset(
    "the and for with from this that your you are was were has have had not but all any can will into out our "
    "its off".split()
) | frozenset("new one two see now use via per".split())
