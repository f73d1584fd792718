"""Text: the words a memory is written with, and never a sentence nobody said.

A memory's text is either

- a **rewrite that passes the check** (``check``): every content word comes from the evidence turns or is a
  resolved name (the owner's, a speaker's, the person the claim is about; a relative day's date in brackets is the
  date it resolves to), and the parser reads it as sentences that each have a subject and a finite verb that agree
  in number, with no numeral that disagrees with its noun ("One years …"); or
- **the speaker's own words, quoted and attributed** (``quoted``): ``Tove said: "…"``, with the question before it
  when the turn answers one (``Ana asked: "When's your birthday?" Tove said: "March fourth."``).

``is_faithful(text, evidence_turns, names)`` is the same check for any text, quotes included (a quote must be
the evidence's own words): the bench counts the memory texts that fail it. Every path that makes memory text goes
through here: the talk's pass (this step, for the parse's and the LLM's candidates), a provider's own memories
(``steps.SCORING`` runs this step too) and an agent's ``remember`` (``faithful``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from accounts.wordforms import inflect, lemmas_of
from distill.extraction import nlp
from distill.extraction.base import Candidate, TurnIn
from distill.extraction.speakers import is_real_name
from distill.extraction.text import clean
from distill.steps.context import PassContext

NAME = "text"
CONTENT_POS = {"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"}
# What the rewrite puts where a pronoun was ("we" → "Tove and others", "myself" → "themself"): no new content.
PRONOUN_STAND_INS = {"others", "themself", "someone"}
FINITE = {"VBZ", "VBP", "VBD", "MD"}
SUBJECTS = {"nsubj", "nsubjpass", "expl", "csubj"}
COMPARATIVE_MARKS = {"as", "than"}  # a clause they open may leave its subject out
MAX_QUOTE = 400  # characters of a quote; a longer sentence is cut at a word boundary with "…"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE_ANCHOR = re.compile(rf" \((?:{_MONTHS}) \d{{1,2}}(?:, \d{{4}})?\)")  # distill.extraction.dates.anchor's
_QUOTED = re.compile(r'(?P<who>[^":]{1,80}) (?:said|asked|noted): "(?P<words>[^"]+)"')
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W\d_]+|\d+")  # letters of any alphabet ("Siân", "Łukasz"), or digits
# English measure words that stay singular after a numeral ("six foot two", "two dozen eggs", "ten percent").
SINGULAR_AFTER_NUMERALS = {"foot", "dozen", "percent", "hundred", "thousand", "million", "billion", "grand", "score"}
SPEAKER_PRONOUNS = {"i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "we", "us", "our", "ours"}
# Spoken contractions the rewrite spells out ("wanna" → "wants to", "gotta" → "has to").
SPOKEN_CONTRACTIONS = {"wanna": {"want", "to"}, "gonna": {"go", "going", "to"}, "gotta": {"have", "has", "got", "to"},
                       "ll": {"will"}, "d": {"would", "had"}, "ve": {"have"}, "m": {"be"}, "re": {"be"}}  # fmt: skip
SINGULAR_PRONOUNS = {"he", "she", "it", "this", "that", "someone", "somebody", "everyone", "nobody", "one"}
PLURAL_OR_PERSONAL = {"i", "you", "we", "they", "these", "those"}


def run(ctx: PassContext) -> PassContext:
    turns = {u.index: u for conv in ctx.day.conversations for u in conv.turns} if ctx.day is not None else {}
    owner_names = {ctx.owner, ctx.day.owner_name if ctx.day is not None else ctx.owner_name}
    speakers = {str(i.candidate.features.get("speaker") or "") for i in ctx.items} | owner_names
    nlp.parse(sorted({_DATE_ANCHOR.sub("", (i.candidate.content or "").strip()) for i in ctx.items}))  # batched
    for item in ctx.items:
        cand = item.candidate
        evidence = evidence_turns(cand, turns)
        if evidence:
            said = turns.get(cand.evidence.first_index)
            asked = turns.get(cand.evidence.first_index - 1) if is_answer(cand) else None
            speaker, asker, verb = _who(said, cand, ctx.owner), _who(asked, None, ctx.owner) if asked else "", "said"
        else:  # a candidate made elsewhere (a provider's own memory): its own words are its evidence
            evidence, speaker, asker, verb = [cand.content], _maker(cand), "", "noted"
        cand.content = faithful(cand, evidence, speakers | {cand.person}, speaker=speaker, asker=asker, verb=verb)
    return ctx


def _who(turn: TurnIn | None, cand: Candidate | None, owner: str) -> str:
    """Who said a turn: the owner, the name the extractor resolved for its speaker, the name the source gave."""
    if turn is None:
        return "Someone"
    if turn.is_owner:
        return owner
    resolved = str((cand.features or {}).get("speaker") or "") if cand is not None else ""
    return resolved or (turn.speaker_name if is_real_name(turn.speaker_name) else "Someone")


def _maker(cand: Candidate) -> str:
    """Who wrote a text that is no turn of talk: the extractor's label ("native:<provider>" → the provider)."""
    return (cand.extractor or "the source").split(":")[-1]


# --- the check ------------------------------------------------------------------------------------------------
def is_faithful(text: str, evidence_turns: Sequence[str], names: Iterable[str] = ()) -> bool:
    """Is ``text`` a faithful memory text of what ``evidence_turns`` say (see the module docstring)?"""
    return not check(text, evidence_turns, names)


def check(text: str, evidence_turns: Sequence[str], names: Iterable[str] = ()) -> str:
    """Why ``text`` is not a faithful memory text ("" when it is): a quote that is not the evidence's words, a
    content word from nowhere, no sentence, no subject, no finite verb, a disagreement."""
    text = (text or "").strip()
    if not text:
        return "empty"
    evidence = [clean(t or "") for t in evidence_turns]
    quotes = list(_QUOTED.finditer(text))
    if quotes:
        said = _normal(" ".join(evidence))
        for m in quotes:
            if _normal(m.group("words").rstrip("…")) not in said:
                return f"quote not in the evidence: {m.group('words')[:60]!r}"
        return ""
    names = {n for n in names if n}
    allowed = _evidence_words(tuple(evidence)) | _name_words(names)
    bare = _DATE_ANCHOR.sub("", text)
    doc = nlp.parse([bare])[0]
    for tok in doc:
        if tok.pos_ in CONTENT_POS and not tok.is_punct and not _known(tok, allowed):
            return f"'{tok.text}' is in no evidence turn"
        if tok.pos_ == "PRON" and tok.lower_ in SPEAKER_PRONOUNS:
            return f"'{tok.text}': the speaker's or listener's pronoun left in a third-person memory"
    return _reads_as_sentences(bare, doc, names) or _repeated_name(doc, names)


def _reads_as_sentences(text: str, doc, names: set[str]) -> str:
    """The grammar check; a contracted "'s" the small parser took for a possessive ("Sigrid's married") is read
    as "is" before giving up."""
    why = _grammar(doc, names)
    if not why:
        return ""
    as_pronouns = _names_as_pronouns(text, names)
    if as_pronouns != text and not _grammar(nlp.parse([as_pronouns])[0], names):
        # The small parser misreads some names next to a verb ("Alice reviews pull requests": "Alice reviews" a
        # compound, then no subject, no verb or a verb that disagrees): the same sentence with each name said as
        # a pronoun of the same person and number reads, so every owner's name gets the same answer.
        return ""
    if not why.startswith("no finite verb"):
        return why
    for m in re.finditer(r"(?<=\w)'s\b", text):
        if not _grammar(nlp.parse([text[: m.start()] + " is" + text[m.end() :]])[0], names):
            return ""
    return why


def _names_as_pronouns(text: str, names: set[str]) -> str:
    """``text`` with each known name, whole or one of its words ("Ilse" of "Ilse Brandvold"), said as "she" and
    its possessive as "her" (one person: third person singular)."""
    words = {w for name in names for w in name.split() if len(w) > 1}
    for name in sorted(set(names) | words, key=len, reverse=True):  # any case: an account name may be "alice"
        text = re.sub(rf"\b{re.escape(name)}'s\b", "her", text, flags=re.IGNORECASE)
        text = re.sub(rf"\b{re.escape(name)}\b", "she", text, flags=re.IGNORECASE)
    return re.sub(r"^(she|her)\b", lambda m: m.group(1).title(), text)


def _grammar(doc, names: set[str] = frozenset()) -> str:
    """A sentence the parser reads as one: a subject and a finite verb that agree, no order, no numeral that
    disagrees with its noun, no "X is X"."""
    sentences = list(doc.sents)
    if not sentences:
        return "no sentence"
    for tok in doc:
        why = _order(tok)
        if why:
            return why
    for sent in sentences:
        first = next((t for t in sent if not t.is_punct), None)
        if first is not None and first.tag_ in ("WRB", "WP", "WP$") and first.head == sent.root:
            return f"'{first.text}' opens a question, not a statement"
        root = sent.root
        finite = root if root.tag_ in FINITE else next((a for a in _auxiliaries(root) if a.tag_ in FINITE), None)
        if finite is None and _verb_read_as_noun(root):
            finite = root
        if finite is None:
            return f"no finite verb in {sent.text!r}"
        subject = nlp.subject_of(root)
        if subject is None:
            return f"no subject in {sent.text!r}"
        if subject.dep_ != "expl" and finite.i < subject.left_edge.i:
            return f"'{finite.text}' before its subject '{subject.text}': not a statement's word order"
        why = _disagreement(subject, finite, names) or _says_nothing(root, subject)
        if why:
            return why
    for tok in doc:
        why = _numeral(tok) or _clause_without_subject(tok)
        if why:
            return why
    return ""


def _clause_without_subject(tok) -> str:
    """A finite clause hung on the sentence that has no subject of its own ("Kofi is still working on the boat are
    looking up": the rewrite kept the verb of a clause whose subject it dropped). A clause joined by "and" shares
    its subject ("… fixes boats and sells them"), and a comparison may leave it out ("… earlier than was planned")."""
    if tok.dep_ not in ("advcl", "ccomp") or nlp.subject_of(tok) is not None:
        return ""
    finite = tok if tok.tag_ in FINITE else next((a for a in _auxiliaries(tok) if a.tag_ in FINITE), None)
    if finite is None or any(c.dep_ == "mark" and c.lower_ in COMPARATIVE_MARKS for c in tok.children):
        return ""
    return f"'{finite.text} {tok.text}' has no subject" if finite is not tok else f"'{tok.text}' has no subject"


_THIRD_SINGULAR = frozenset({"she", "he", "it"})


def _verb_read_as_noun(tok) -> bool:
    """A verb the small tagger read as a noun after its subject pronoun ("She parks at the garage": "parks" NNS),
    in the form that agrees with that pronoun."""
    subject = next((c for c in tok.children if c.dep_ == "nsubj" and c.pos_ == "PRON" and c.i < tok.i), None)
    if tok.pos_ not in ("NOUN", "PROPN") or subject is None:
        return False
    word, singular = tok.lower_, subject.lower_ in _THIRD_SINGULAR
    for lemma in lemmas_of(word, upos="VERB").get("VERB", ()):
        if word in (inflect(lemma, "VBD") or ()):
            return True
        if word in (inflect(lemma, "VBZ" if singular else "VBP") or ()):
            return True
    return False


def _order(tok) -> str:
    """A base-form verb with no subject and no auxiliary opening its clause: an order ("Call Tove Tuesday")."""
    if tok.tag_ != "VB" or nlp.subject_of(tok) is not None or _auxiliaries(tok):
        return ""
    opens = tok.i == tok.sent.start or (tok.i > 0 and tok.doc[tok.i - 1].text in (",", ";", "-", "–"))
    if not opens:
        return ""
    head = tok.head
    if tok.dep_ == "conj" and head.tag_ == "VB" and _auxiliaries(head):
        return ""  # "… will pick Ana up, drive her home": the modal governs both
    return f"'{tok.text}' opens an order, not a statement"


def _numeral(tok) -> str:
    if tok.dep_ != "nummod" or tok.i > tok.head.i:
        return ""  # ("in year two": a number after its noun names, it does not count)
    value = _number(tok.lower_)
    before = [t.lower_ for t in tok.doc[max(tok.i - 2, 0) : tok.i]]
    if before and (before[-1] in ("-", "and") or _number(before[-1]) is not None):
        value = None  # "thirty-one years", "a hundred and one": one part of a larger number
    noun = tok.head
    if value == 1 and noun.tag_ in ("NNS", "NNPS"):
        return f"'{tok.text} {noun.text}': a numeral that disagrees with its noun"
    if value is not None and value > 1 and noun.tag_ == "NN" and noun.dep_ != "compound" and noun.is_alpha:
        if noun.lemma_.lower() not in SINGULAR_AFTER_NUMERALS and _has_plural(noun.lower_):
            return f"'{tok.text} {noun.text}': a numeral that disagrees with its noun"
    return ""


def _says_nothing(root, subject) -> str:
    """ "Tove is Tove": a copula whose complement is its subject."""
    if root.lemma_ != "be":
        return ""
    same = [c for c in root.children if c.dep_ == "attr" and c.lower_ == subject.lower_]
    return f"'{subject.text} {root.text} {subject.text}' says nothing" if same else ""


def _repeated_name(doc, names: Iterable[str]) -> str:
    """A name three times in one memory is a rewrite that put a name for every pronoun ("Ana and Ana's wife,
    Ana and others open a bakery")."""
    words = {w.lower() for name in names if name for w in _WORD.findall(name)}
    counts: dict[str, int] = {}
    for tok in doc:
        if tok.lower_ in words:
            counts[tok.lower_] = counts.get(tok.lower_, 0) + 1
    many = [w for w, n in counts.items() if n >= 3]
    return f"'{many[0]}' named {counts[many[0]]} times" if many else ""


@lru_cache(maxsize=4096)
def _has_plural(noun: str) -> bool:
    """Does English give this noun a plural of its own ("year" → "years"; not "sheep", not a mass noun's)?"""
    forms = inflect(noun, tag="NNS")
    return bool(forms) and forms[0] != noun


_NUMBER_WORDS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90}  # fmt: skip


def _number(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUMBER_WORDS.get(word)


def _auxiliaries(verb) -> list:
    return [c for c in verb.children if c.dep_ in ("aux", "auxpass")]


def _disagreement(subject, finite, names: set[str]) -> str:
    """The finite verb's number against its subject's ("Tove live", "the kids is", "Ana and Tove was")."""
    plural = _plural(subject, names)
    if plural is None:
        return ""
    word = finite.lower_
    if finite.tag_ == "VBZ" and plural:
        return f"'{subject.text} … {finite.text}': a plural subject with a singular verb"
    if finite.tag_ == "VBP" and not plural and word not in ("'m", "am"):
        return f"'{subject.text} … {finite.text}': a singular subject with a plural verb"
    if word == "was" and plural:
        return f"'{subject.text} … {finite.text}': a plural subject with a singular verb"
    if word == "were" and not plural:
        return f"'{subject.text} … {finite.text}': a singular subject with a plural verb"
    return ""


def _plural(subject, names: set[str]) -> bool | None:
    """True plural, False third-person singular, None when the verb may take either ("I", "you") or the word's
    number is unsure (a proper noun that is no known person's name: the small tagger guesses those)."""
    low = subject.lower_
    if any(c.dep_ == "conj" for c in subject.children):
        return True
    if low in PLURAL_OR_PERSONAL:
        return None if low in ("i", "you") else True
    if low in SINGULAR_PRONOUNS or any(low == w.lower() for n in names for w in _WORD.findall(n)):
        return False  # (a person's name, however the tagger read it)
    if subject.pos_ == "PROPN" or subject.tag_ in ("NNP", "NNPS"):
        return None
    if subject.tag_ in ("NN", "NNS"):
        # by its form, not its tag: the tagger bends a plural to fit a singular verb ("my nephews is")
        return subject.tag_ == "NNS" or _plural_form(subject.lower_)
    return None


@lru_cache(maxsize=4096)
def _plural_form(noun: str) -> bool:
    """Is this word only a plural noun in English's lexicon ("nephews"; not "news", not "bus")?"""
    lemmas = lemmas_of(noun).get("NOUN", ())
    return bool(lemmas) and noun not in lemmas


def _known(tok, allowed: frozenset[str]) -> bool:
    if tok.lower_ in PRONOUN_STAND_INS or tok.lemma_.lower() in allowed:
        return True
    return all(_forms(part) & allowed for part in _WORD.findall(tok.text))  # "Ola'll": a name and "will"


@lru_cache(maxsize=50_000)
def _forms(word: str) -> frozenset[str]:
    """A word and its lemmas under every reading ("works" → work; "grew" → grow; "kids" → kid)."""
    low = word.lower().strip("'’")
    forms = {low} | SPOKEN_CONTRACTIONS.get(low, set())
    for readings in lemmas_of(low).values():
        forms.update(r.lower() for r in readings)
    return frozenset(forms)


@lru_cache(maxsize=4096)
def _evidence_words(evidence: tuple[str, ...]) -> frozenset[str]:
    words: set[str] = set()
    for text in evidence:
        for word in _WORD.findall(text):
            words |= _forms(word)
        for tok in nlp.parse([text])[0]:
            words.add(tok.lemma_.lower())
    return frozenset(words)


def _name_words(names: Iterable[str]) -> frozenset[str]:
    return frozenset(f for name in names if name for w in _WORD.findall(name) for f in _forms(w))


def _normal(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


# --- the evidence and the quote -------------------------------------------------------------------------------
ANSWER_FLAG = "answer to a question"


def is_answer(cand: Candidate) -> bool:
    return ANSWER_FLAG in cand.flags or bool((cand.features or {}).get("answer_to_question"))


def evidence_turns(cand: Candidate, turns: dict[int, TurnIn]) -> list[str]:
    """The turns a candidate rests on (the question before it too, when it answers one)."""
    if cand.evidence is None:
        return []
    first = cand.evidence.first_index - (1 if is_answer(cand) else 0)
    span = [turns[i].text for i in range(first, cand.evidence.last_index + 1) if i in turns]
    return span or [cand.evidence.quote]


def _own_turn(cand: Candidate) -> str:
    return cand.evidence.quote if cand.evidence and cand.evidence.quote else cand.content


def faithful(
    cand: Candidate, evidence: Sequence[str], names: Iterable[str], *, speaker: str, asker: str = "", verb="said"
) -> str:
    """The candidate's text when it passes the check, else the speaker's own words quoted and attributed."""
    why = check(cand.content, evidence, names)
    if not why:
        return cand.content
    cand.flags.append(f"quoted: {why}")
    return quoted(cand.content, evidence, speaker=speaker, asker=asker, answer=bool(asker), verb=verb)


def quoted(
    claim: str, evidence: Sequence[str], *, speaker: str, asker: str = "", answer: bool = False, verb: str = "said"
) -> str:
    """``Tove said: "…"``: the sentence of the turn that holds the claim, attributed to whoever said it; the
    question first when the turn answers one (``answer``: the first evidence turn is the question)."""
    turns = [clean(t) for t in evidence]
    question = turns.pop(0) if answer and len(turns) > 1 else ""
    words = _best_sentence(turns[0], claim) if turns else ""
    if len(turns) > 1:  # a date the speaker gave in the next turn
        words = f"{words} {_SENTENCE.split(turns[1])[0]}"
    said = f'{speaker} {verb}: "{_cut(words)}"'
    if not question:
        return said
    return f'{asker or "Someone"} asked: "{_cut(_SENTENCE.split(question)[-1])}" {said}'


def _best_sentence(turn: str, claim: str) -> str:
    """The claim itself when it is whole sentences of the turn, word for word (an answer's own words); else the
    sentence of ``turn`` that shares the most words with ``claim`` (the whole turn when it is one sentence)."""
    if claim.rstrip()[-1:] in ".!?" and _normal(claim) and f" {_normal(claim)} " in f" {_normal(turn)} ":
        return claim.strip()
    sentences = [s for s in _SENTENCE.split(turn) if s.strip()]
    if len(sentences) <= 1:
        return turn.strip()
    mine = {w.lower() for w in _WORD.findall(claim)}
    return max(sentences, key=lambda s: len(mine & {w.lower() for w in _WORD.findall(s)})).strip()


def _cut(text: str) -> str:
    text = text.replace('"', "'").strip()
    if len(text) <= MAX_QUOTE:
        return text
    return text[:MAX_QUOTE].rsplit(" ", 1)[0] + "…"
