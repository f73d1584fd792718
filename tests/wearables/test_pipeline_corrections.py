"""User corrections (pure): whole words, case-preserving."""

from __future__ import annotations

from wearables.pipeline.corrections import apply_corrections


def test_corrections_replace_whole_words_only():
    assert apply_corrections("Mya said hi to Myanmar", [("Mya", "Maya")]) == "Maya said hi to Myanmar"


def test_corrections_preserve_case_shape():
    fixes = [("mya", "Maya")]
    assert apply_corrections("mya and MYA and Mya", fixes) == "Maya and MAYA and Maya"


def test_corrections_keep_deliberate_mixed_case_and_multiword_phrases():
    assert apply_corrections("meet mckenna at green  bay", [("mckenna", "McKenna"), ("green bay", "Greenbay")]) == (
        "meet McKenna at Greenbay"
    )
