"""The parser's cache (``distill.extraction.nlp``): a doc it holds is reused, and is recognised once."""

from __future__ import annotations

import pytest

from distill.extraction import nlp


@pytest.fixture
def small_cache(monkeypatch):
    monkeypatch.setattr(nlp, "CACHE_SIZE", 2)
    nlp._cache.clear()
    yield
    nlp._cache.clear()


def test_a_cached_doc_is_not_evicted_by_the_new_texts_of_the_call_that_uses_it(small_cache):
    # The oldest cached doc used to be evicted by the same call's new texts and parsed again outside the cache;
    # its "entities done" mark, kept by id(), then outlived it and a later doc at the same address kept no
    # entities (the gate's training candidates changed from one run to the next: "winter" a DATE, then not).
    first = nlp.parse(["Ingrid Halvorsen restores harpsichords in Bergen.", "The ferry leaves at noon."])[0]
    again = nlp.parse(["Ingrid Halvorsen restores harpsichords in Bergen.", "Tomasz Wierzbicki sails to Gdańsk."])[0]
    assert again is first


def test_recognised_entities_stay_with_the_doc_and_a_new_doc_is_recognised(small_cache):
    texts = ["Last spring Oluwaseun Adeyemi flew to Lagos.", "On Thursday Tomasz Wierzbicki starts in Gdańsk."]
    for round_ in range(20):
        docs = nlp.parse_with_entities([f"{t} Round {round_}." for t in texts] + ["Nothing here at all."])
        assert all({"PERSON", "GPE"} & {e.label_ for e in doc.ents} for doc in docs[:2]), round_
        assert all(doc.user_data.get(nlp._ENTS_DONE) for doc in docs)
