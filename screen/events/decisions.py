"""Was something decided on a call? Read from what was said, with the English parser (``distill``'s spaCy).

A sentence records a decision when it is a statement (not a question), and either
- commits to an option: "go with / go ahead with", "proceed with", "stick with", "lock in", "sign off on" in any
  tense, not negated and not inside a clause that puts it off ("before we ...", "until ...", "if ...");
- or reports a deliberation as done: decide, agree, settle, choose, pick, approve, finalise, confirm in the past
  tense or as a participle ("we've decided on", "that's settled", "then it is approved"), not negated, not put
  off; the same verbs in the present or future ("we can decide next week") are a decision still to make;
- or names the choice the way people close a discussion: "<option> it is", "<option> is the plan", "Decision:
  <option>", "Final answer: <option>", "Done deal: <option>".
Proposals ("what if we went with ..."), deferrals ("let's park this") and commitments to do something ("I'll send
the slides") are not decisions. Pure apart from the parser; no database.
"""

from __future__ import annotations

import re

COMMIT = {"go": {"with", "ahead"}, "lock": {"in"}, "sign": {"off"}, "proceed": {"with"}, "stick": {"with"}}
DELIBERATE = frozenset("decide agree settle choose pick approve finalize finalise confirm".split())
PUT_OFF_MARKS = frozenset("before until unless if when once whether".split())
_CLOSING = re.compile(
    r"\b(it is|it's)( then)?\W*$|^\W*(final (answer|call|decision)|decision|decided)\s*:|^\W*done deal\b"
    r"|^(?!.*\b(what|which|who|how|why|where|when)\b)(?!\W*is\b).*\b(is|'s) the plan( then)?\W*$",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


NOBODY = frozenset("nobody none nothing neither".split())


def _negated(tok) -> bool:
    """Negated by "not"/"n't", by a negative subject ("Nobody has approved it", "No one agreed")."""
    if any(c.dep_ == "neg" for c in tok.children):
        return True
    if tok.dep_ in ("xcomp", "ccomp") and any(c.dep_ == "neg" for c in tok.head.children):
        return True
    subjects = [c for c in tok.children if c.dep_ in ("nsubj", "nsubjpass")]
    return any(c.lower_ in NOBODY or any(d.lower_ == "no" for d in c.children) for c in subjects)


def _put_off(tok) -> bool:
    """Inside a clause that makes it conditional or later ("before we decide", "if finance agrees")."""
    node = tok
    for _ in range(len(tok.doc)):  # up to the root (a spaCy root is its own head)
        if any(c.dep_ == "mark" and c.lower_ in PUT_OFF_MARKS for c in node.children):
            return True
        if node.head.i == node.i:
            return False
        node = node.head
    return False


def _particles(tok) -> set[str]:
    return {c.lower_ for c in tok.children if c.dep_ in ("prep", "prt", "advmod", "dative")}


def decides(sentence: str) -> bool:
    """Does this one sentence record a decision made?"""
    text = sentence.strip()
    if not text or text.endswith("?"):
        return False
    if _CLOSING.search(text):
        return True
    from distill.extraction.nlp import parse

    (doc,) = parse([text])
    for tok in doc:
        lemma = tok.lemma_.lower()
        if lemma in COMMIT and _particles(tok) & COMMIT[lemma]:
            if not _negated(tok) and not _put_off(tok):
                return True
        if lemma in DELIBERATE and tok.tag_ in ("VBD", "VBN") and not _negated(tok) and not _put_off(tok):
            return True
    return False


def decision_in(texts: list[str]) -> int | None:
    """The index of the first text that records a decision, or None."""
    for i, text in enumerate(texts):
        if any(decides(s) for s in sentences(text)):
            return i
    return None
