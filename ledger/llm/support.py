"""Is a model's text made of words from the data it was given? (pure: no database)

A model that obeys an instruction in its data, or invents, writes words the data does not hold; a model that
summarises or names what it was shown reuses them. ``supported`` asks that most content words of a text (Snowball
stems, stopwords and the use's own genre words aside) are words of the data, counting only data that does not read
as an instruction to an AI (``injection.looks_like_injection``): an instruction's own words support nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from ledger.lexicon import STOPWORDS, stem, words
from ledger.llm.injection import looks_like_injection

MIN_SHARE = 0.6


def content_stems(text: str, genre: frozenset[str] = frozenset()) -> list[str]:
    """Stems of the content words of ``text``, less the ``genre`` stems a use may write freely."""
    return [s for s in (stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1) if s not in genre]


def genre(text: str) -> frozenset[str]:
    """A use's genre words (the vocabulary of summarising or naming anything) as stems."""
    return frozenset(stem(w) for w in text.split())


def trusted(texts: Iterable[str]) -> list[str]:
    """The texts that do not read as instructions to an AI."""
    return [t for t in texts if t and not looks_like_injection(t)]


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Stems of every word of the trusted texts."""
    return frozenset(stem(w) for t in trusted(texts) for w in words(t))


def supported(
    text: str, known: frozenset[str], *, at_least: int = 1, share: float = MIN_SHARE, free: frozenset[str] = frozenset()
) -> bool:
    """At least ``at_least`` content words of ``text`` and ``share`` of them are in ``known`` (``free`` stems, a
    use's genre words, count neither way)."""
    stems = content_stems(text, free)
    hits = sum(s in known for s in stems)
    return hits >= at_least and hits >= share * len(stems)
