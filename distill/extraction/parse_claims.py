"""Candidate claims from a dependency parse (spaCy): one ``Claim`` per predicate, with what the model needs.

For every sentence, every predicate head (the root, verbs coordinated with it, and clauses a verb of thinking or
saying introduces) gives a claim: its subject (the speaker "I", the listener "you", a named person, a pronoun, a
thing of the speaker's: "my ferritin"), its predicate (verb lemma + particle, or "be" + the complement), its
object, and the context that decides whether it is a claim at all: negation, modality, hedges, tense and aspect,
question, condition, hypothetical, quotation, reported speech, imperative, coordination. Conjoined objects split
too ("I keep goats and geese" → two claims).

The closed word classes used below (modal verbs, epistemic adverbs, verbs of saying and thinking, conditional
subordinators, positive evaluatives for sarcasm cues) are grammatical categories of English, not phrases seen in
any development file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from accounts.wordforms import inflect
from distill.extraction.coordination import agrees, comma_spliced_order, governing_verb, object_variants
from distill.extraction.coordination import aux_of as _aux_of
from distill.extraction.cues import (
    QUOTATIVE_VERBS,
    conditional,
    hedged,
    hypothetical,
    in_quote,
    is_question,
    reported,
    sarcasm_cues,
)
from distill.extraction.lexicon import (
    COMMENT_CONJUNCTIONS,
    CONDITION_MARKS,
    CONTROL_VERBS,
    DATE_LABELS,
    DISCOURSE_PHRASES,
    FIRST,
    FIRST_PLURAL,
    FRAME_MARKS,
    HEDGE_VERBS,
    HYPERBOLE_VERBS,
    LEADING_DISCOURSE,
    MODAL_AUX,
    MOMENT_ADVERBS,
    NEAR_TERM_WORDS,
    OBJECT_DEPS,
    PARTICLES,
    PLACE_LABELS,
    QUANTITY_LABELS,
    SECOND,
    SENTENCE_ADVERBS,
    STANDALONE_POSSESSIVES,
    SUBJECT_DEPS,
    THIRD_PRONOUNS,
    VAGUE_WORDS,
)
from distill.extraction.nlp import lemma, subject_of, verb_lemma


@dataclass
class Claim:
    """One predicate of one sentence, with its parse context (see ``features``)."""

    text: str  # the clause in the speaker's words, other conjuncts and conditions cut out
    subject_kind: str  # first | first_plural | second | named | pronoun | possessed | thing | none
    subject_text: str
    subject_name: str = ""  # a named subject's name; a possessed subject's head noun
    subject_i: int = -1  # the subject token's index in the doc (-1: none)
    sent_end: int = -1  # where the claim's sentence ends in the doc
    possessor: str = ""  # "first" / "second" when the subject is "my …" / "your …"
    features: dict = field(default_factory=dict)
    entities: list[tuple[str, str]] = field(default_factory=list)


COMPLEMENT_DEPS = {"ccomp", "xcomp", "dobj", "attr", "acomp", "pobj", "oprd", "dative"}


def _inherited_subject(head):
    """A verb coordinated with another ("I dance, run a school and bake") shares its subject; so does a complement
    of a control verb ("I want to learn Welsh"). The parser may hang the conjunct on the object ("school"): walk up
    to the nearest verb with a subject."""
    if head.dep_ not in ("conj", "xcomp", "dep"):
        return None
    h = head
    for _ in range(6):
        if h.head == h:
            return None
        h = h.head
        s = subject_of(h)
        if s is not None:
            return s
        if h.dep_ not in ("conj", "xcomp", "dep", "dobj", "pobj", "prep", "attr"):
            return None
    return None


def _is_predicate(tok) -> bool:
    return tok.pos_ in ("VERB", "AUX") or (tok.dep_ == "ROOT" and any(c.dep_ in SUBJECT_DEPS for c in tok.children))


def predicate_heads(sent) -> list:
    """The root, predicates coordinated with it, and complement clauses of thinking/saying verbs."""
    heads = [sent.root]
    for t in sent:
        if t == sent.root:
            continue
        if t.dep_ == "conj" and t.pos_ in ("VERB", "AUX"):
            heads.append(t)
        elif t.dep_ == "conj" and subject_of(t) is not None:
            heads.append(t)
        elif t.dep_ == "dep" and t.pos_ == "VERB" and t.i > t.head.i:
            heads.append(t)
        elif t.dep_ in ("ccomp", "parataxis") and _is_predicate(t) and subject_of(t) is not None:
            if t.tag_ == "VB" and any(a.tag_ == "TO" for a in _aux_of(t)):
                continue  # "it allowed me to explore…", "they asked him to stay": an infinitive, not a statement
            if small_clause(t) and (_person_subject(t.head) or t.head not in heads):
                # "I let my kids stay up late": one claim of letting, whose clause keeps the kids; "the way it
                # makes me feel": the clause stays inside the claim that holds the verb governing it
                continue
            if t.dep_ == "ccomp" and _embedded_wh_clause(t):
                continue  # "it made me appreciate how lucky I am": the clause is what is appreciated
            if t.dep_ == "ccomp" and lemma(t.head) in ("want", "need", "expect", "hope", "wish", "like", "prefer"):
                continue  # "I want the launch to be small": one claim of wanting, not a claim about the launch
            heads.append(t)
    return sorted(heads, key=lambda t: t.i)


def _embedded_wh_clause(clause) -> bool:
    """A complement clause opened by a wh-word that is not its subject ("how lucky I am", "what I need"): the
    object of the verb above it, not a statement of its own."""
    first = clause.doc[clause.left_edge.i]
    return first.tag_ in ("WRB", "WP", "WDT") and first.dep_ not in SUBJECT_DEPS


def small_clause(tok) -> bool:
    """A non-finite complement whose subject follows the verb that governs it ("makes me feel calm", "helps her
    sleep", "keeps me motivated", "got me thinking"): it says nothing on its own, only with that verb."""
    if tok.dep_ != "ccomp" or tok.tag_ not in ("VB", "VBG", "VBN") or _aux_of(tok) or tok.head == tok:
        return False
    subject = subject_of(tok)
    return tok.tag_ == "VB" or (subject is not None and tok.head.i < subject.i < tok.i)


def _person_subject(verb) -> bool:
    return _subject_kind(subject_of(verb), verb)[0] not in ("none", "thing")


def _drop_ranges(head, heads) -> set[int]:
    """Token indices cut from ``head``'s clause: other predicates' subtrees, conditions, vocatives, discourse."""
    cut: set[int] = set()
    for other in heads:
        if other == head or other.is_ancestor(head):
            continue
        if head.is_ancestor(other):
            cut.update(t.i for t in other.subtree)
    doc = head.doc
    for start in sorted({min(t.i for t in o.subtree) for o in heads if o != head and head.is_ancestor(o)}):
        j = start - 1
        while j >= head.sent.start and doc[j].dep_ in ("cc", "punct") and doc[j].i not in cut:
            cut.add(j)
            j -= 1
    for c in head.children:
        marks = {lemma(m) for m in c.children if m.dep_ == "mark"}
        if c.dep_ == "advcl" and (marks & CONDITION_MARKS or (c.i < head.i and marks & FRAME_MARKS)):
            cut.update(t.i for t in c.subtree)
        elif _result_clause(c, head, marks):
            cut.update(t.i for t in c.subtree)
        elif c.dep_ == "cc" and c.lower_ in COMMENT_CONJUNCTIONS and c.i > head.i and doc[c.i - 1].text == ",":
            # ", so no cashews at all": what follows is a comment on the claim (a second predicate is a head
            # of its own and was cut above)
            cut.update(t.i for t in head.subtree if t.i >= c.i - 1)
        elif c.dep_ in ("intj", "discourse"):
            cut.update(t.i for t in c.subtree)
        elif c.dep_ == "npadvmod" and c.ent_type_ == "PERSON" and c.i in (head.sent.start, head.sent.end - 1):
            cut.update(t.i for t in c.subtree)
        elif _vocative_before_subject(head, c):
            cut.update(t.i for t in c.subtree)  # "Tomas, I finished the quilt": said to Tomas, not about him
            cut.add(c.right_edge.i + 1)
        elif c.dep_ == "cc" and c.i < head.i and head.dep_ != "ROOT":
            cut.add(c.i)
        elif c.dep_ == "cc" and any(o.i > c.i and head.is_ancestor(o) for o in heads if o != head):
            cut.add(c.i)
    for t in head.subtree:  # a non-restrictive relative clause (", which is great") comments on the claim
        start = min(x.i for x in t.subtree)
        if t.dep_ == "relcl" and t.i not in cut and start > 0 and doc[start - 1].text == ",":
            cut.update(x.i for x in t.subtree)
            cut.add(start - 1)
    return cut


def _result_clause(c, head, marks: set[str]) -> bool:
    """ "I'm a farrier so I can't help looking at hooves": a result clause after "so" without a comma is a
    comment, as after ", so"."""
    return c.dep_ == "advcl" and c.i > head.i and bool(marks & COMMENT_CONJUNCTIONS) and subject_of(c) is not None


def _vocative_before_subject(head, c) -> bool:
    """A name set off by a comma before the clause's own subject ("Okay Marta, I work nights")."""
    subject = subject_of(head)
    if subject is None or c.dep_ not in ("npadvmod", "intj") or c.pos_ != "PROPN" or c.i > subject.i:
        return False
    after = c.right_edge.i + 1
    return after < subject.i and c.doc[after].text == "," and _name_like(c)


def _span_text(doc, idxs: list[int]) -> str:
    parts = []
    for n, i in enumerate(idxs):
        tok = doc[i]
        if parts and tok.text in (",", ";", ":", ".", "!", "?") and parts[-1].endswith(" "):
            parts[-1] = parts[-1].rstrip()  # a cut before a comma leaves no space before it ("accepted ,")
        ws = tok.whitespace_ if n + 1 < len(idxs) and idxs[n + 1] == i + 1 else " "
        parts.append(tok.text + ws)
    text = "".join(parts).strip()
    if text.count('"') % 2:
        text = text.replace('"', "")  # a quotation cut in half: its marks would mislead
    return text.strip(" ,;:-–—").strip()


def _clause_tokens(head, heads, subject) -> list[int]:
    cut = _drop_ranges(head, heads)
    idxs = [t.i for t in head.subtree if t.i not in cut]
    if subject is not None and subject.i not in idxs:
        # An inherited subject (and the auxiliaries of the verb it came from) goes before the verb.
        extra = [t.i for t in subject.subtree]
        governing, first = governing_verb(head)
        if governing is not None:
            # "I like to watch films, eat out …" → "I like to eat out": the verb that takes the whole coordination
            extra += [a.i for a in _aux_of(governing)] + [governing.i] + [a.i for a in _aux_of(first) if a.tag_ == "TO"]
        elif head.tag_ in ("VB", "VBG", "VBN") and not _aux_of(head):
            parent = head.head
            extra += [a.i for a in _aux_of(parent) if a.dep_ != "neg"]
        idxs = sorted(set(extra)) + idxs
    # Leading discourse words and conjunctions are not part of the claim ("so", "and", "well", "oh", ",").
    doc = head.doc
    while idxs and (doc[idxs[0]].is_punct or doc[idxs[0]].dep_ in ("cc", "intj", "mark", "prep") and idxs[0] < head.i):
        if doc[idxs[0]].dep_ == "prep" and doc[idxs[0]].head != head:
            break
        if doc[idxs[0]].dep_ == "prep":
            # a fronted phrase ("At the lab, I run assays") stays: only bare conjunctions and marks go
            break
        idxs.pop(0)
    while idxs and (doc[idxs[0]].lower_ in LEADING_DISCOURSE):
        if doc[idxs[0]].dep_ in ("nsubj", "dobj"):
            break
        idxs.pop(0)
    # "Great, so I'm …", "Honestly, I …": a short opener closed by a comma before the subject goes too.
    if subject is not None and idxs and idxs[0] < subject.i:
        commas = [n for n, i in enumerate(idxs) if i < subject.i and doc[i].text == ","]
        if commas and commas[-1] <= 3 and not any(_says_something(doc[i]) for i in idxs[: commas[-1]]):
            idxs = idxs[commas[-1] + 1 :]
        while idxs and idxs[0] < subject.i and doc[idxs[0]].lower_ in ("so", "and", "but", "well", "oh", "then"):
            idxs.pop(0)
    while idxs and doc[idxs[-1]].is_punct:
        idxs.pop()
    # "…, Tove.": a name said to the listener closing the clause is not part of it.
    if len(idxs) > 3 and doc[idxs[-1]].pos_ == "PROPN" and doc[idxs[-2]].text == "," and _name_like(doc[idxs[-1]]):
        idxs = idxs[:-2]
    return _before_closing_discourse(doc, idxs)


LONGEST_DISCOURSE_PHRASE = max(len(p) for p in DISCOURSE_PHRASES)


def _before_closing_discourse(doc, idxs: list[int]) -> list[int]:
    """ "I'm off to Crete next week, by the way" → "I'm off to Crete next week": a discourse marker set off by a
    comma at the end of the clause ("…, actually", "…, to be honest") frames it and is not part of it."""
    for n in range(1, LONGEST_DISCOURSE_PHRASE + 1):
        if len(idxs) <= n + 2 or doc[idxs[-n - 1]].text != ",":
            continue
        words = tuple(doc[i].lower_ for i in idxs[-n:])
        if words in DISCOURSE_PHRASES or (n == 1 and words[0] in SENTENCE_ADVERBS):
            return idxs[: -n - 1]
    return idxs


def _says_something(tok) -> bool:
    """Is this word of a short opener part of the claim ("Last week, I …", "In Lyon, I …")? A noun, name or verb
    is, unless it is an interjection or a bare noun modifier that is no time ("No thanks, I'm …", "Cheers, I …")."""
    if tok.pos_ == "NOUN" and tok.dep_ in ("intj", "npadvmod") and tok.ent_type_ not in DATE_LABELS:
        return False
    return tok.pos_ in ("NOUN", "PROPN", "VERB")


def _root_mark(head):
    """The subordinator of a sentence that is only a subordinate clause ("Before I moved to Leeds.", "While I
    lived in Hull."). Such a clause in the past or after "because" is told as a fact; any other ("Once I finish
    the boat.", "If I win.") is the frame of something the sentence does not say."""
    if head.dep_ != "ROOT":
        return None
    return next(
        (c for c in head.children if c.dep_ == "mark" and c.i < head.i and lemma(c) in FRAME_MARKS | {"because"}), None
    )


def _told_as_fact(head, mark) -> bool:
    past = head.tag_ == "VBD" or any(a.tag_ == "VBD" for a in _aux_of(head))
    return lemma(mark) == "because" or past


def _object_of(head):
    """The predicate's complement: (token, preposition lemma) — a direct object, attribute, adjective
    complement, open complement, or the object of the first preposition."""
    particle = ""
    for c in head.children:
        if c.dep_ == "prt" or (c.dep_ == "advmod" and c.lower_ in PARTICLES and c.i == head.i + 1):
            particle = c.lower_
    for c in head.children:
        if c.dep_ == "advmod" and c.pos_ == "ADJ" and c.i > head.i:
            return c, particle, ""  # "came back low": an adjective complement the parser took for an adverb
    for dep in OBJECT_DEPS:
        for c in head.children:
            if c.dep_ == dep:
                if dep == "npadvmod" and c.ent_type_ in DATE_LABELS:
                    continue
                return c, particle, ""
    for c in head.children:
        if c.dep_ in ("prep", "agent"):
            pobj = next((g for g in c.children if g.dep_ in ("pobj", "pcomp")), None)
            if pobj is not None:
                return pobj, particle, c.lower_
    return None, particle, ""


def _complement_prep(obj) -> str:
    """ "allergic to X", "good at X": the preposition hanging off an adjective or noun complement."""
    if obj is None:
        return ""
    for c in obj.children:
        if c.dep_ == "prep":
            return c.lower_
    return ""


def _tense_aspect(head, aux: list) -> tuple[str, str]:
    words = {lemma(a) for a in aux} | {a.lower_ for a in aux}
    tags = {a.tag_ for a in aux} | {head.tag_}
    aspect = "simple"
    if head.tag_ == "VBG" and "be" in words:
        aspect = "progressive"
    elif head.tag_ == "VBN" and "have" in words:
        aspect = "perfect"
    if "been" in {a.lower_ for a in aux} and head.tag_ == "VBG":
        aspect = "perfect_progressive"
    if words & {"will", "'ll", "shall", "wo"}:
        return "future", aspect
    if "VBD" in tags or any("Past" in a.morph.get("Tense") for a in aux if a.tag_ != "VBN"):
        return "past", aspect
    return "present", aspect


def _modality(head, aux: list) -> tuple[str, object]:
    """(modality, real head): a modal auxiliary, or a control verb whose complement carries the claim."""
    for a in aux:
        key = a.lower_ if a.lower_ in MODAL_AUX else lemma(a)
        if a.tag_ == "MD" and key in MODAL_AUX:
            return MODAL_AUX[key], head
    return "none", head


def _entities_in(doc, idxs: list[int]) -> list[tuple[str, str]]:
    s = set(idxs)
    return [(e.text, e.label_) for e in doc.ents if any(t.i in s for t in e)]


@lru_cache(maxsize=8192)
def _is_common_word(word: str) -> bool:
    """Is this an English common noun, verb or adjective in lemminflect's lexicon ("Dance", "Life", "Guidance")?"""
    from accounts.wordforms import lemmas_of

    tags = lemmas_of(word.lower())
    return bool(tags) and "PROPN" not in tags


def _unknown_capitalised(tok) -> bool:
    """A capitalised word the tagger took for a common noun that English has no common word for ("Anders sold
    the boat": the small model reads rare names as plural nouns)."""
    return tok.pos_ == "NOUN" and tok.text[:1].isupper() and not _is_common_word(tok.text)


def _name_like(tok) -> bool:
    """A proper-noun subject is a person's name when the recogniser says PERSON, or when the word is no common
    English word: the tagger marks any capitalised sentence-initial noun PROPN ("Dance is my escape")."""
    if tok.ent_type_ == "PERSON" and not (tok.i == tok.sent.start and _is_common_word(tok.text)):
        return True
    return not _is_common_word(tok.text)


def _subject_kind(subject, head) -> tuple[str, str, str]:
    """(kind, name, possessor) for a subject token."""
    if subject is None:
        return "none", "", ""
    low = subject.lower_
    if low in STANDALONE_POSSESSIVES:
        return "none", "", ""  # "Mine was the same until his knee went": whose what, the clause does not say
    if low in FIRST:
        return "first", "", ""
    if low in FIRST_PLURAL:
        return "first_plural", "", ""
    if low in SECOND:
        return "second", "", ""
    if low in THIRD_PRONOUNS:
        return "pronoun", low, ""
    if (subject.pos_ == "PROPN" or subject.ent_type_ == "PERSON" or _unknown_capitalised(subject)) and _name_like(
        subject
    ):
        nxt = subject.doc[subject.i + 1] if subject.i + 1 < len(subject.doc) else None
        if nxt is not None and nxt.text in (",", "!") and nxt.i < head.i:
            return "none", "", ""  # "Hey Kari, that trip was wild": a name said to someone, not a subject
        # A one-word "ORG" is often a rare first name to the small model ("Ingrid is a dentist"); places, works
        # and longer organisation names are things.
        org = subject.ent_type_ == "ORG" and any(
            e.label_ == "ORG" and len(e) > 1 and subject in e for e in subject.doc.ents
        )
        if org or subject.ent_type_ in PLACE_LABELS | {"PRODUCT", "WORK_OF_ART", "EVENT", "NORP", "LAW", "LANGUAGE"}:
            return "thing", "", ""
        parts = [t for t in subject.subtree if t == subject or (t.pos_ == "PROPN" and t.dep_ in ("compound", "flat"))]
        return "named", " ".join(t.text for t in sorted(parts, key=lambda t: t.i)), ""
    appos = next((c for c in subject.children if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN"), None)
    if appos is not None and subject.pos_ == "NOUN":
        return "named", appos.text, ""  # "my sister Ilse", "my friend, Ilse"
    poss = next((c for c in subject.children if c.dep_ == "poss"), None)
    if poss is not None:
        if poss.lower_ in FIRST:
            return "possessed", subject.lemma_.lower(), "first"
        if poss.lower_ in SECOND:
            return "possessed", subject.lemma_.lower(), "second"
        if poss.lower_ in FIRST_PLURAL:
            return "possessed", subject.lemma_.lower(), "first_plural"
        # "Ragna's sister": appositive or named possessor
        if poss.pos_ == "PROPN":
            return "possessed", subject.lemma_.lower(), poss.text
    # "my sister Nell" / "my friend, Nell": an appositive name
    appos = next((c for c in subject.children if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN"), None)
    if appos is not None:
        return "named", appos.text, ""
    return "thing", "", ""


def claims_from_doc(doc, turn_docs_after=()) -> list[Claim]:
    """Every candidate claim of one turn's doc (see the module docstring)."""
    out: list[Claim] = []
    for sent in doc.sents:
        heads = predicate_heads(sent)
        cues = None
        for head in heads:
            for claim in _claims_for_head(doc, sent, head, heads):
                if cues is None:
                    cues = sarcasm_cues(sent, doc, turn_docs_after)
                claim.features["sarcasm_cues"] = cues
                out.append(claim)
    return out


def _poss_of(tok) -> str:
    for c in tok.children:
        if c.dep_ == "poss":
            return "first" if c.lower_ in FIRST else "second" if c.lower_ in SECOND else ""
    return ""


def _past_form(tok) -> bool:
    """Is this word a past form that is not also its base form ("took", not "put")? The tagger may read a
    sentence-initial past as an imperative."""
    lemma = verb_lemma(tok.lower_, tok.lower_)
    return tok.lower_ != lemma and tok.lower_ in (inflect(lemma, tag="VBD") or ())


def _coordinated_subject(head, subject) -> bool:
    """ "My partner and I", "Ana and I": the subject has a conjunct, or the parser gave the verb two subjects."""
    if subject is None:
        return False
    two = sum(1 for c in head.children if c.dep_ in ("nsubj", "nsubjpass")) > 1
    return two or any(c.dep_ == "conj" for c in subject.children)


_STRANDED_COMPLEMENTS = {"attr", "acomp", "dobj", "xcomp", "ccomp", "oprd", "dative"}


def _stranded_auxiliary(head) -> bool:
    """An auxiliary or copula whose verb phrase was left out, shown by the comma right after it ("I have,
    twice.", "I was, for a while.", "I will, next week."), or by an answer particle there ("I am, yes, nights
    mostly."): it stands for the question before it, which ``context.yes_no_candidate`` reads; on its own it
    says nothing ("Tove has, twice.")."""
    doc = head.doc
    if head.i + 1 >= len(doc) or doc[head.i + 1].text != ",":
        return False
    if head.tag_ != "MD" and lemma(head) not in ("be", "have", "do"):
        return False
    after = [c for c in head.children if c.i > head.i]
    if any(c.dep_ == "intj" and c.i == head.i + 2 for c in after):
        return True
    if any(c.dep_ in _STRANDED_COMPLEMENTS for c in after):
        return False
    # "I was, for a while, a ferry pilot": a parenthetical closed by a second comma, then the complement (which
    # the parser may hang inside the parenthetical)
    rest = doc[head.i + 2 : head.sent.end]
    return not any(t.text == "," and t.i + 1 < head.sent.end and not doc[t.i + 1].is_punct for t in rest)


@dataclass
class _Subject:
    token: object  # the subject token (None when left out)
    kind: str
    name: str = ""
    possessor: str = ""
    inherited: bool = False
    implicit: bool = False


def _claims_for_head(doc, sent, head, heads) -> list[Claim]:
    if lemma(head) in HEDGE_VERBS | QUOTATIVE_VERBS | {"know", "remember", "realize", "hear"} and any(
        c.dep_ == "ccomp" or (c in heads and c.dep_ != "conj") for c in head.children
    ):
        return []  # "I think …", "she said …": the complement is the claim
    if _stranded_auxiliary(head):
        return []
    aux = _aux_of(head)
    modality, _ = _modality(head, aux)
    # A control verb ("want to", "going to", "have to", "used to") hands the claim to its complement.
    real, control = head, ""
    xcomp = next((c for c in head.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)
    if xcomp is not None and lemma(head) in CONTROL_VERBS and not (lemma(head) == "keep" and xcomp.tag_ != "VBG"):
        control, real = lemma(head), xcomp
        modality = CONTROL_VERBS[control] if modality == "none" else modality
    governing, _ = governing_verb(head)
    if governing is not None and not control and lemma(governing) in CONTROL_VERBS:
        # "I want to sail to Orkney and learn Welsh": "learn Welsh" is wanted too, not done
        control = lemma(governing)
        own, _ = _modality(governing, _aux_of(governing))
        modality = CONTROL_VERBS[control] if own == "none" else own
    subj = _find_subject(sent, head, real, aux)
    if subj is None or subj.kind in ("none", "thing"):
        return []
    mark = _root_mark(head)
    if mark is not None and not _told_as_fact(head, mark):
        return []  # "Once I finish the boat.": the time of something the sentence does not say
    idxs = _clause_tokens(head, heads, subj.token)
    if not idxs:
        return []
    if small_clause(head):
        # "The colours make me feel calm" → "The colours make Tove feel calm", not "Tove feel calm"
        governor = head.head
        lead = subject_of(governor)
        idxs = sorted(
            {*(t.i for t in (lead.subtree if lead is not None else ())), *(a.i for a in _aux_of(governor)), governor.i}
            | set(idxs)
        )
    base, obj = _predicate_features(sent, head, real, aux, heads, idxs, modality, control)
    base.update(subject_kind=subj.kind, implicit_subject=subj.implicit, inherited_subject=subj.inherited)
    base["subject_coordinated"] = _coordinated_subject(head, subj.token)
    base["is_question"] = is_question(sent, head, subj.token, heads)
    variants = object_variants(doc, obj, idxs)
    out = []
    for obj_tok, var_idxs in variants:
        if _dangling(doc, var_idxs):
            continue
        f = _variant_features(doc, real, obj_tok, var_idxs, dict(base))
        f["coordinated"] = f["coordinated"] or len(variants) > 1
        token = subj.token
        out.append(
            Claim(
                text=_span_text(doc, var_idxs),
                subject_kind=subj.kind,
                subject_text=token.text if token is not None else "",
                subject_i=token.i if token is not None else -1,
                sent_end=sent.end,
                subject_name=subj.name,
                possessor=subj.possessor,
                features=f,
                entities=_entities_in(doc, var_idxs),
            )
        )
    return out


def _dangling(doc, idxs: list[int]) -> bool:
    """Does the claim stop at a word whose complement was cut out as a claim of its own ("my favourite thing is
    that I …" → "… thing is")? Such a text says nothing; the complement's own claim stays."""
    if not idxs:
        return True
    kept = set(idxs)
    last = doc[idxs[-1]]
    return any(c.i > last.i and c.dep_ in COMPLEMENT_DEPS and c.i not in kept for c in last.children)


def _find_subject(sent, head, real, aux) -> _Subject | None:
    """The clause's subject: its own, one shared with a coordinated verb, an omitted "I" ("Took the ferry…"),
    or a thing said to be the speaker's ("Gardening is my escape"). None for orders and embedded questions."""
    subject = subject_of(head)
    inherited = False
    if subject is None and comma_spliced_order(head):
        return None  # "I'm in the car, hold on": an order of its own, not "… holds on"
    if subject is None:
        subject = _inherited_subject(head)
        inherited = subject is not None
    if inherited and not agrees(subject, head):
        return None  # "I'm working on the studio and things are looking up": "are" has a subject of its own
    kind, name, possessor = _subject_kind(subject, head)
    implicit = False
    if subject is None and head.dep_ == "ROOT":
        first_word = next((t for t in sent if not t.is_punct and t.dep_ not in ("intj", "cc", "advmod")), None)
        if first_word == head and (head.tag_ in ("VBD", "VBN") or _past_form(head)):
            kind, implicit = "first", True  # "Took the ferry to Hvar last week": "I" left out
    first_tok = next((t for t in head.subtree if not t.is_punct), None)
    if (
        first_tok is not None
        and first_tok.tag_ in ("WRB", "WP", "WDT")
        and head.dep_ != "ROOT"
        and first_tok.i < (subject.i if subject is not None else head.i)
    ):
        return None  # "… why Oddny moved", "what she said": an embedded question or relative, not a claim
    if subject is None and not implicit and head.tag_ == "VB" and head.dep_ == "ROOT":
        return None  # an order
    if kind == "thing" and subject is not None and subject.pos_ != "PRON":
        # "Gardening is my escape", "Chess matters to me": a thing said to be the speaker's, or to act on them.
        owned = [
            c for c in real.children if c.dep_ in ("attr", "dobj", "dative") and _poss_of(c) in ("first", "second")
        ]
        to_me = [
            g for c in real.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj" and g.lower_ == "me"
        ]
        if owned or to_me:
            kind, possessor, name = "possessed", (_poss_of(owned[0]) if owned else "first"), ""
    return _Subject(subject, kind, name, possessor, inherited, implicit)


def _predicate_features(sent, head, real, aux, heads, idxs, modality, control) -> tuple[dict, object]:
    """Tense, aspect, negation, predicate, object and context features of one clause; returns (features, object)."""
    tense, aspect = _tense_aspect(real, aux if real == head else aux + _aux_of(real))
    if control == "go" and head.tag_ == "VBG":
        tense = "future"
    if control == "use":
        tense, aspect = "past", "habitual"
    raw_aux = aux + (_aux_of(real) if real != head else [])
    negated = any(a.dep_ == "neg" for a in raw_aux) or any(c.dep_ == "neg" for c in real.children)
    obj, particle, prep = _object_of(real)
    if obj is not None and obj.dep_ == "ccomp":
        obj = None  # the complement clause is its own claim
    if obj is not None and any(c.dep_ == "det" and c.lower_ == "no" for c in obj.children):
        negated = True  # "I have no siblings"
    predicate = lemma(real) + (f" {particle}" if particle else "")
    if lemma(real) == "be" and obj is not None and obj.dep_ in ("attr", "acomp"):
        cprep = _complement_prep(obj)
        predicate = f"be {obj.lemma_.lower()}" + (f" {cprep}" if cprep else "")
    elif prep:
        predicate += f" {prep}"
    is_reported, reporter = reported(head)
    habitual = (
        tense == "present" and aspect == "simple" and lemma(real) != "be" and real.pos_ == "VERB" and modality == "none"
    ) or any(t.lower_ in ("always", "usually", "often", "every", "each", "weekly", "daily") for t in real.subtree)
    features = dict(
        negated=negated,
        modality=modality,
        control_verb=control,
        hedged=hedged(real, sent) or hedged(head, sent),
        tense=tense,
        aspect=aspect,
        habitual=bool(habitual),
        conditional=conditional(head),
        hypothetical=hypothetical(real, sent, modality) or hypothetical(head, sent, modality),
        in_quote=in_quote(sent, idxs),
        reported=is_reported,
        reporter=reporter,
        imperative=False,
        coordinated=head.dep_ == "conj" or any(c.dep_ == "conj" and c in heads for c in head.children),
        exclamation=sent.text.rstrip().endswith("!"),
        verb_lemma=lemma(real),
        verb_tag=real.tag_,
        predicate=predicate,
        particle=particle,
        preposition=prep,
        head_dep=head.dep_,
    )
    return features, obj


def _variant_features(doc, real, obj_tok, var_idxs, f: dict) -> dict:
    """The object's and the clause's own features for one conjunct variant of a clause."""
    f["object_head_lemma"] = lemma(obj_tok) if obj_tok is not None else ""
    f["object_pos"] = obj_tok.pos_ if obj_tok is not None else ""
    f["object_dep"] = obj_tok.dep_ if obj_tok is not None else ""
    f["object_ent_label"] = obj_tok.ent_type_ if obj_tok is not None and obj_tok.ent_type_ else ""
    f["object_is_pronoun"] = bool(obj_tok is not None and obj_tok.pos_ == "PRON")
    f["object_has_poss_first"] = bool(
        obj_tok is not None and any(c.dep_ == "poss" and c.lower_ in FIRST for c in obj_tok.children)
    )
    labels = {lab for _, lab in _entities_in(doc, var_idxs)}
    vtoks = [doc[i] for i in var_idxs]
    f["has_date"] = bool(labels & DATE_LABELS)
    f["has_quantity"] = bool(labels & QUANTITY_LABELS) or any(t.like_num for t in vtoks)
    f["has_place"] = bool(labels & PLACE_LABELS)
    f["has_person"] = "PERSON" in labels
    f["has_org"] = "ORG" in labels
    f["n_tokens"] = len(var_idxs)
    f["words"] = [t.lemma_.lower() for t in vtoks if not t.is_punct]
    f["content_words"] = sum(1 for t in vtoks if t.pos_ in ("NOUN", "PROPN", "ADJ", "NUM", "VERB") and not t.is_stop)
    f.update(_moment_features(vtoks, real, f))
    return f


def _moment_features(toks: list, real, f: dict) -> dict:
    """Cues that a claim is about the moment rather than the person: a passing action ("I'm just parking the
    van"), a plan for the next hours ("I'll do it tonight"), a small offer to the listener ("I'll grab you a
    coffee"), figurative extremity ("it's killing me"), a vague object ("I love it")."""
    words = {t.lower_ for t in toks}
    objects = [c for c in real.children if c.dep_ in ("dobj", "dative")]
    preps = [g for c in real.children if c.dep_ == "prep" and c.lower_ == "for" for g in c.children]
    to_listener = any(t.lower_ in SECOND for t in objects + preps)
    figurative = (lemma(real) in HYPERBOLE_VERBS and any(t.lower_ in FIRST | {"us"} for t in real.subtree)) or (
        "literally" in words
    )
    return {
        "momentary": f.get("aspect") == "progressive" and bool(words & MOMENT_ADVERBS),
        "near_term": bool(words & NEAR_TERM_WORDS),
        "offer_to_listener": to_listener
        and f.get("modality") in ("will", "can", "want")
        or (real.head.lower_ == "let" and any(c.lower_ == "me" for c in real.head.children)),
        "figurative_cues": int(figurative),
        "object_vague": f.get("object_head_lemma", "") in VAGUE_WORDS | STANDALONE_POSSESSIVES,
    }


def date_fragment(sent) -> bool:
    """A short verbless sentence holding a date or time ("The seventeenth to the nineteenth.", "Saturday, 9 am.")
    completes the statement before it."""
    words = [t for t in sent if not t.is_punct]
    if not words or len(words) > 8 or any(t.pos_ in ("VERB", "AUX") for t in words):
        return False
    return any(t.ent_type_ in DATE_LABELS | {"ORDINAL"} for t in words)
