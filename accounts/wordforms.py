"""English word forms (lemmas and inflections) from lemminflect's tables, loaded on the first call.

Importing ``lemminflect`` imports spaCy (it registers spaCy token extensions whenever spaCy is installed), which
takes seconds of CPU. Redaction, the screen reader and the memory pass need the tables; a page, a management
command or a worker that reads no English should not pay for them when it starts, so nothing imports lemminflect
at module level: these wrappers do it when first called.
"""

from __future__ import annotations


def lemmas_of(word: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """Every lemma of ``word`` by universal POS tag (lemminflect's ``getAllLemmas``); {} for a word it lacks."""
    from lemminflect import getAllLemmas

    return getAllLemmas(word, upos)


def lemma_of(word: str, upos: str, lemmatize_oov: bool = True) -> tuple[str, ...]:
    """The lemmas of ``word`` as ``upos`` (lemminflect's ``getLemma``)."""
    from lemminflect import getLemma

    return getLemma(word, upos, lemmatize_oov)


def inflect(lemma: str, tag: str, inflect_oov: bool = True) -> tuple[str, ...]:
    """``lemma`` inflected for the Penn tag ``tag`` (lemminflect's ``getInflection``)."""
    from lemminflect import getInflection

    return getInflection(lemma, tag, inflect_oov)
