"""Lexical matching for recall: word splitting, a deterministic token estimate, query terms and BM25.

No database and no Django here, so the bench and the tests can use them directly.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ledger.lexicon import STOPWORDS, stem, words  # the project's one lexicon (stopwords, Snowball stems)

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
# A token estimate close to BPE tokenizers on English: words, numbers and each punctuation mark.
TOKEN_PIECE_RE = re.compile(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]")

# Question scaffolding: words that shape a question but say nothing about what is asked for.
QUESTION_WORDS = frozenset(
    "what when where which who whom whose why how did does do kind sort type tell remember recall "
    "mention mentioned ever".split()
)


def count_tokens(text: str) -> int:
    """Approximate LLM token count: deterministic, no tokenizer download.

    Long words cost more (BPE splits them roughly every 4 characters beyond the first 6), numbers cost one
    token per 3 digits, punctuation one each. Slightly over-counts common English, which is the safe side
    for a budget.
    """
    total = 0
    for piece in TOKEN_PIECE_RE.findall(text or ""):
        if piece.isalpha():
            total += 1 + max(0, (len(piece) - 3) // 4)
        elif piece.isdigit():
            total += (len(piece) + 2) // 3
        else:
            total += 1
    return total


def content_terms(text: str) -> list[str]:
    """Words of a text that carry topic: no stopwords, no question scaffolding; order kept, duplicates kept."""
    return [w for w in words(text) if w not in STOPWORDS and w not in QUESTION_WORDS and len(w) > 1]


def query_terms(text: str) -> list[str]:
    """Distinct topic words of a query, in order of appearance."""
    seen: dict[str, None] = {}
    for w in content_terms(text):
        seen.setdefault(w.replace("'", ""), None)
    return list(seen)


class BM25:
    """Okapi BM25 over in-memory documents (the benchmark's floor and a reference for tests)."""

    def __init__(self, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(stem(w) for w in words(d) if w not in STOPWORDS) for d in documents]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avgdl = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        terms = [stem(w) for w in words(query) if w not in STOPWORDS]
        out = []
        for c, dl in zip(self.docs, self.lengths, strict=True):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * dl / (self.avgdl or 1))
            for t in terms:
                tf = c.get(t)
                if tf:
                    s += self.idf[t] * tf * (self.k1 + 1) / (tf + norm)
            out.append(s)
        return out

    def rank(self, query: str, limit: int | None = None) -> list[int]:
        """Document indexes by descending score; documents scoring 0 are left out."""
        sc = self.scores(query)
        order = sorted((i for i, s in enumerate(sc) if s > 0), key=lambda i: (-sc[i], i))
        return order[:limit] if limit else order


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


_DISPLAY_REDACTIONS = (
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+"), "[email]"),
    # Dates and times (group 1) are kept; other runs of 9+ digits with separators are phone/card numbers.
    (
        re.compile(r"(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?)|(?<!\w)\+?\d(?:[ ().-]?\d){8,}(?!\w)"),
        lambda m: m.group(1) or "[number]",
    ),
    (re.compile(r"\b(?:sk|pk|api|key|tok)[-_][A-Za-z0-9_-]{8,}\b", re.IGNORECASE), "[secret]"),
)


def redact_for_display(text: str) -> str:
    """Mask e-mail addresses, phone/card-like numbers and key-like strings in text shown on a page."""
    for pattern, repl in _DISPLAY_REDACTIONS:
        text = pattern.sub(repl, text)
    return text
