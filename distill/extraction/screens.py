"""Screens for sentences built from several turns (answers, agreed proposals): is it a claim at all?"""

from __future__ import annotations

from functools import lru_cache

from distill.extraction.parse_claims import claims_from_doc


@lru_cache(maxsize=8192)
def readings(word: str) -> frozenset[str]:
    """Universal POS tags a word can have in lemminflect's English lexicon ("wedding" → NOUN, VERB)."""
    from accounts.wordforms import lemmas_of

    return frozenset(lemmas_of(word.lower()))


def has_finite_verb(text: str) -> bool:
    """Does the parse of ``text`` hold a finite verb or a modal ("The cello." has none)?"""
    from distill.extraction import nlp

    return any(t.tag_ in ("VBD", "VBP", "VBZ", "MD") for t in nlp.parse([text])[0])


def not_a_claim(text: str) -> str:
    """Why a built sentence is no claim about a person ("" when it is one): a question, a hypothetical, quoted or
    reported speech, talk about the moment, a small offer, figurative speech, a vague object."""
    from distill.extraction import nlp

    found = claims_from_doc(nlp.parse_with_entities([text])[0])
    if not found:
        return "no claim"
    f = found[0].features
    for key in ("is_question", "hypothetical", "reported", "in_quote", "momentary", "offer_to_listener",
                "figurative_cues", "object_vague"):  # fmt: skip
        if f.get(key):
            return key
    return ""
