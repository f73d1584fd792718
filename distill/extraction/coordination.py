"""Coordination in a parse: which verb governs coordinated to-complements, whether a subject taken from another
verb agrees with this one, and conjoined objects as one claim each ("goats and geese" → two).

spaCy's small English model often hangs a new clause on the last object ("… on the studio and things are
looking up"); ``agrees`` keeps such a clause's verb from borrowing the wrong subject.
"""

from __future__ import annotations

from distill.extraction.nlp import subject_of


def aux_of(head) -> list:
    return [c for c in head.children if c.dep_ in ("aux", "auxpass", "neg")]


def governing_verb(head):
    """(verb, first conjunct) when ``head`` is coordinated inside another verb's to-complement ("I like to watch
    films, eat out and sail": "eat" and "sail" are governed by "like", like "watch"); (None, None) otherwise."""
    first = head
    for _ in range(8):
        if first.dep_ != "conj" or first.head == first:
            break
        first = first.head
    if first == head or first.dep_ != "xcomp" or first.head.pos_ not in ("VERB", "AUX"):
        return None, None
    if not any(a.tag_ == "TO" for a in aux_of(first)) or aux_of(head):
        return None, None
    return first.head, first


def comma_spliced_order(head) -> bool:
    """A base-form verb joined to the clause before it by a comma alone, with no subject of its own ("I'm in the
    car, hold on", "I called her first, don't be mad"): a new sentence the speaker did not mark, an order, not a
    second predicate of the first one's subject. A list of predicates has its "and" ("I dance, run a school and
    bake"), and base forms under one modal or "to" share it ("I'll pick you up, drive you home")."""
    if head.dep_ != "conj" or head.tag_ != "VB" or subject_of(head) is not None:
        return False
    first = head
    for _ in range(8):
        if first.dep_ != "conj" or first.head == first:
            break
        first = first.head
    if first.tag_ == "VB" or first.pos_ not in ("VERB", "AUX"):
        return False
    chain = [first] + [t for t in first.subtree if t.dep_ == "conj" and t.pos_ in ("VERB", "AUX")]
    return not any(c.dep_ in ("cc", "preconj") for t in chain for c in t.children)


def _third_singular(tok) -> bool:
    person, number = tok.morph.get("Person"), tok.morph.get("Number")
    if tok.pos_ == "PRON":
        return person == ["3"] and number == ["Sing"]
    return tok.tag_ in ("NN", "NNP") or number == ["Sing"]


def agrees(subject, head) -> bool:
    """Does a subject taken from another verb agree with this verb's own finite auxiliary ("I … and are" does
    not: the parser lost the conjunct's own subject)?"""
    finite = next((a for a in aux_of(head) if a.tag_ in ("VBZ", "VBP")), None)
    if finite is None and head.tag_ in ("VBZ", "VBP"):
        finite = head
    if finite is None or subject is None:
        return True
    third = _third_singular(subject)
    if finite.tag_ == "VBZ":
        return third
    if third:
        return False
    return not (finite.lower_ in ("are", "'re") and subject.morph.get("Person") == ["1"] and subject.lower_ == "i")


def object_variants(doc, obj, idxs: list[int]) -> list[tuple[object, list[int]]]:
    """Conjoined objects ("goats and geese", "tea, coffee and mate") → one token list per conjunct."""
    if obj is None or obj.pos_ in ("VERB", "AUX"):
        return [(obj, idxs)]  # coordinated verbs are predicates of their own (``predicate_heads``)
    conjuncts = [obj]
    for t in obj.subtree:  # in order: a conjunct of the object or of an earlier conjunct
        if t.dep_ == "conj" and t.head in conjuncts:
            conjuncts.append(t)
    conjuncts = [c for c in conjuncts if c.pos_ in ("NOUN", "PROPN", "ADJ", "NUM") or c == obj]
    if len(conjuncts) < 2 or any(c.pos_ in ("VERB", "AUX") for c in conjuncts[1:]):
        return [(obj, idxs)]
    keep = set(idxs)
    out = []
    for c in conjuncts:
        drop: set[int] = set()
        for other in conjuncts:
            if other == c:
                continue
            if other == obj:
                # the first conjunct: its own tokens only (its subtree holds the others)
                own = {t.i for t in obj.subtree} - {t.i for o in conjuncts[1:] for t in o.subtree}
                own -= {t.i for t in obj.lefts}  # determiners and modifiers stay for the shared head
                drop |= {obj.i} | {t.i for t in obj.rights if t.i in own}
            else:
                drop |= {t.i for t in other.subtree}
        cc_punct = {t.i for t in doc[obj.i : obj.right_edge.i + 1] if t.dep_ in ("cc", "punct") and t.head in conjuncts}
        var = [i for i in idxs if i in keep and i not in drop and i not in cc_punct]
        if c != obj:
            # put the conjunct where the first object stood
            others = {t.i for o in conjuncts if o != c and o != obj for t in o.subtree if c.is_ancestor(o)}
            own = [t.i for t in c.subtree if t.i in keep and t.i not in others and t.i not in cc_punct]
            rest = [i for i in var if i not in own]
            pos = next((n for n, i in enumerate(rest) if i > obj.i), len(rest))
            left = {t.i for t in obj.lefts}
            # the first object's determiner is shared by a noun without one of its own ("a cat and dog" → "a
            # dog"; "a cat and a dog" → "a dog", not "a a dog"), not by an adjective ("a roller coaster but
            # rewarding" → "… has been rewarding")
            own_det = any(t.dep_ in ("det", "poss") for t in c.lefts)
            shared = ("det", "poss") if (c.pos_ != "ADJ" or obj.pos_ == "ADJ") and not own_det else ()
            rest_wo = [i for i in rest if i not in left or doc[i].dep_ in shared]
            pos = next((n for n, i in enumerate(rest_wo) if i > obj.i), len(rest_wo))
            var = rest_wo[:pos] + own + rest_wo[pos:]
        out.append((c, var))
    return out
