"""The context a clause is said in, from its parse: a question, a condition, a quotation, reported speech, a
hedge, a hypothetical, and the cues of sarcasm. Each is a feature of the claim (``parse_claims``) and some are
hard rules of the gate (a question is never a statement).

The word classes (conditional subordinators, verbs of saying, epistemic adverbs, positive evaluatives) are
grammatical categories of English in ``lexicon``, not phrases seen in any development file.
"""

from __future__ import annotations

from distill.extraction.coordination import aux_of as _aux_of
from distill.extraction.lexicon import (
    CONDITION_MARKS,
    CONFIRMATION_TAGS,
    FIRST,
    FIRST_PLURAL,
    HEDGE_ADVERBS,
    HEDGE_VERBS,
    HYPERBOLE_NUMBERS,
    HYPOTHETICAL_HEADS,
    INTENSIFIERS,
    IRONY_MARKERS,
    LAUGHTER,
    POSITIVE_EVALUATIVES,
    SAY_VERBS,
    SUBJECT_DEPS,
    SUPERLATIVE_FRAMES,
)
from distill.extraction.nlp import lemma, subject_of


def is_question(sent, head, subject, heads=()) -> bool:
    text = sent.text.rstrip()
    if text.endswith("?") and _statement_then_question(head, subject, heads):
        return False
    if text.endswith("?"):
        # A first-person statement followed by a confirmation tag ("I switched to decaf, remember?") stays one.
        words = [t for t in sent if not t.is_punct]
        commas = [t.i for t in sent if t.text == ","]
        if subject is not None and subject.lower_ in FIRST | FIRST_PLURAL and commas and head.i < commas[-1]:
            tail = [t for t in words if t.i > commas[-1]]
            if 0 < len(tail) <= 2 and all(t.lower_ in CONFIRMATION_TAGS for t in tail):
                return False
        return True
    first = next((t for t in sent if not t.is_punct and t.dep_ not in ("intj", "cc")), None)
    if first is not None and first.tag_ in ("WP", "WRB", "WDT") and first.head == head and head.dep_ == "ROOT":
        return subject is not None and any(a.i < subject.i for a in _aux_of(head))  # "what do you do"
    if subject is not None and head.dep_ == "ROOT":
        inverted = [a for a in _aux_of(head) if a.i < subject.i and a.dep_ != "neg"]
        if inverted and inverted[0].i == sent.start:
            return True
        if head.lemma_ == "be" and head.i < subject.i and head.i == sent.start:
            return True
    return False


def _statement_then_question(head, subject, heads) -> bool:
    """ "I'm allergic to latex, is that on my file?": the speaker's statement, then a question about it."""
    later = [h for h in heads if h.i > head.i and not head.is_ancestor(h) or (h.i > head.i and h.dep_ == "conj")]
    if not later or subject is None or subject.lower_ not in FIRST | FIRST_PLURAL:
        return False
    return not any(a.i < subject.i for a in _aux_of(head) if a.dep_ != "neg")


def conditional(head) -> bool:
    h = head
    for _ in range(8):
        for c in h.children:
            if c.dep_ == "mark" and lemma(c) in CONDITION_MARKS:
                return True
            if c.dep_ == "advcl" and any(lemma(m) in CONDITION_MARKS for m in c.children if m.dep_ == "mark"):
                return True
        if h.dep_ == "ROOT" or h.head == h:
            return False
        h = h.head
    return False


def in_quote(sent, idxs: list[int]) -> bool:
    doc = sent.doc
    inside = False
    quoted: set[int] = set()
    for t in sent:
        if t.text in ('"', "“", "”", "``", "''"):
            inside = not inside
            continue
        if inside:
            quoted.add(t.i)
    return (
        bool(idxs)
        and sum(1 for i in idxs if i in quoted) > len(idxs) / 2
        or (bool(quoted) and any(doc[i].lemma_ in SAY_VERBS for i in range(sent.start, sent.end)))
    )


QUOTATIVE_VERBS = SAY_VERBS | {"go", "ask", "yell", "scream", "shout", "whisper"}


def quotative_before(head) -> str:
    """A quotative with another subject before the clause in its sentence: "The captain goes, I'm …", "she's
    like, I …", "he said: I …". Returns that subject's word, or ""."""
    subject = subject_of(head)
    start = min(head.i, subject.i) if subject is not None else head.i
    for t in head.sent:
        if t.i >= start:
            break
        word = lemma(t)
        quotative = word in QUOTATIVE_VERBS or (word == "be" and any(c.lower_ == "like" for c in t.children))
        if not quotative:
            continue
        s = subject_of(t)
        if s is not None and s.lower_ not in FIRST and any(p.text in (",", ":") for p in head.doc[t.i : start]):
            return s.lower_
    return ""


def reported(head) -> tuple[bool, str]:
    """Is this clause what someone else said or thought ("she said she's moving", "Ola thinks I'm a nurse")?
    Returns (reported, the reporter's pronoun class)."""
    quoted_by = quotative_before(head)
    if quoted_by:
        return True, quoted_by
    h = head
    for _ in range(6):
        if h.dep_ in ("ccomp", "parataxis") and h.head != h:
            gov = h.head
            if lemma(gov) in SAY_VERBS | HEDGE_VERBS | {"hear", "read", "know"}:
                s = subject_of(gov)
                who = s.lower_ if s is not None else ""
                if who in FIRST and lemma(gov) not in ("hear", "read"):
                    return False, "first"
                return True, who
            h = gov
        else:
            return False, ""
    return False, ""


def hedged(head, sent) -> bool:
    for t in sent:
        if t.lower_ in HEDGE_ADVERBS and (t.head == head or t.head.head == head or t.head in head.ancestors):
            return True
        if t.lower_ in ("kind", "sort") and t.nbor(1).lower_ == "of" if t.i + 1 < len(t.doc) else False:
            return True
    gov = head.head if head.dep_ == "ccomp" else None
    if gov is not None and lemma(gov) in HEDGE_VERBS:
        s = subject_of(gov)
        return s is not None and s.lower_ in FIRST | FIRST_PLURAL
    # "I don't know, I might …", "not sure": negated knowledge in the sentence
    return any(lemma(t) == "know" and any(c.dep_ == "neg" for c in t.children) for t in sent)


def hypothetical(head, sent, modality: str) -> bool:
    if modality in ("would", "could") or lemma(head) in HYPOTHETICAL_HEADS:
        return True
    h = head
    for _ in range(6):
        if lemma(h) in HYPOTHETICAL_HEADS and h != head:
            return True
        if h.head == h:
            break
        h = h.head
    return any(t.lower_ in ("someday", "hypothetically") for t in sent)


def sarcasm_cues(sent, doc, turn_docs_after=()) -> int:
    """Count generic irony cues around a sentence: a positive evaluative opening the sentence before a comma
    ("Great, so …"), an irony pair ("yeah right"), an intensifier with an exclamation, a superlative frame
    ("best … ever", "in the world"), hyperbolic numbers, a verbless or gerund-only fragment right after in the
    same turn ("Living the dream."), a sudden "now" on a first-person identity, laughter in the reply or just
    before the sentence."""
    cues = 0
    toks = [t for t in sent if not t.is_space]
    words = [t.lower_ for t in toks]
    if (
        len(toks) > 2
        and words[0] in POSITIVE_EVALUATIVES | {"oh"}
        and (words[1] in (",", "!") or (words[0] == "oh" and words[1] in POSITIVE_EVALUATIVES))
    ):
        cues += 1
    if any((a, b) in IRONY_MARKERS for a, b in zip(words, words[1:], strict=False)):
        cues += 1
    if "!" in words and any(w in INTENSIFIERS for w in words):
        cues += 1
    if any(t.tag_ in ("JJS", "RBS") for t in toks) and any(w in SUPERLATIVE_FRAMES for w in words):
        cues += 1
    if any(w in HYPERBOLE_NUMBERS for w in words):
        cues += 1
    root = sent.root
    subject = subject_of(root)
    if (
        subject is not None
        and subject.lower_ in FIRST
        and lemma(root) == "be"
        and any(c.lower_ == "now" for c in root.children)
        and any(c.dep_ == "attr" for c in root.children)
    ):
        cues += 1
    following = [s for s in doc.sents if s.start >= sent.end]
    if following:
        nxt = following[0]
        has_subject = any(t.dep_ in SUBJECT_DEPS for t in nxt)
        finite = any(t.tag_ in ("VBD", "VBP", "VBZ", "MD") for t in nxt)
        gerund = nxt.root.tag_ == "VBG"
        if gerund and not has_subject and not finite and 1 < len([t for t in nxt if not t.is_punct]) <= 5:
            cues += 1  # "Living the dream.", "Loving every minute.": a comment on the sentence before
    for other in turn_docs_after:
        first = next((t for t in other if not t.is_punct), None)
        if first is not None and first.lower_ in LAUGHTER:
            cues += 1
            break
    before = [s for s in doc.sents if s.end <= sent.start][-1:]
    if (words and words[0] in LAUGHTER) or (before and all(t.is_punct or t.lower_ in LAUGHTER for t in before[0])):
        cues += 1  # "Ha. Great, so I'm …": the speaker laughs before saying it
    return cues
