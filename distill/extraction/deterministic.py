"""Deterministic, zero-LLM extractor: candidate claims from a dependency parse (see ``parse_claims``).

Every turn of the day is cleaned of speech-recognition noise (``text.clean``), parsed once in a batch (spaCy,
``nlp``), and every predicate of every sentence becomes a candidate claim when its subject is a person: the
speaker ("I", "my …", an omitted "I"), the listener ("you"), a named person, or "he"/"she"/"they" resolved to the
one person named in the last few turns. The candidate carries the parse features (``Candidate.features``, see
``base.FEATURES``) the trained gate model scores; ``extraction_confidence`` is a simple prior and ``ceiling``
only encodes hard rules (questions and hypotheticals are no claims; conditions, quotations, reported speech and
uncertain subjects are never accepted alone).

Kinds and importance come from small semantic fields (``kinds``); nothing here knows a particular name or
sentence. Answers to questions across turns, decisions agreed across turns and introductions of a relation
("This is Leif. My husband.") are added from the turns around.
"""

from __future__ import annotations

import re
from dataclasses import replace

from distill.extraction import context, decisions, kinds, nlp
from distill.extraction.base import (
    Candidate,
    ConversationIn,
    DayInput,
    Evidence,
    ExtractionResult,
    Extractor,
    TurnIn,
)
from distill.extraction.grammar import third_person
from distill.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection
from distill.extraction.lexicon import KIN_GENDER, LAUGHTER
from distill.extraction.parse_claims import Claim, _name_like, _unknown_capitalised, claims_from_doc, date_fragment
from distill.extraction.speakers import _INTRODUCTION, NOT_NAMES, _addressee, _resolve_speakers
from distill.extraction.speakers import is_real_name as is_real_name  # re-exported
from distill.extraction.text import _LEAD, _SENTENCE, clean
from ledger.choices import Status

DROPPED, PENDING = Status.DROPPED, Status.PENDING_REVIEW  # an extractor ceiling is the most a claim may become
PRIOR = 0.9  # a plain statement of a memorable kind (health, work, place, ...) about a sure subject
OTHER_PRIOR = 0.75  # a plain statement outside those kinds
OWNER_GUESS = 0.5  # below this conversation-level owner confidence, "I" in the owner's turns is not trusted
# Irony cues (cues.sarcasm_cues) from which a claim is asked at most: on the development sets no candidate with two
# or more was true (2 of 27,000 had them).
IRONY_CUES = 2
UNRESOLVED_OBJECTS = {"it", "they", "this", "that", "these", "those", "he", "she", "one"}  # lemmas of object pronouns
PRONOUN_WINDOW = 6  # turns back in which "he"/"she" may find the person last named
PRONOUN_GENDER = {"he": "m", "him": "m", "she": "f", "her": "f"}
STOP = set(
    """a an the and or but of to in on at for from with by as is are was were be been being am has have had do does
did will would can could should may might shall this that these those it its he she they them his her their there
here who which what when where how so if then than very just about into over also like um uh okay oh yeah really
i me my mine myself you your we our us im ive ill id youre not no get got gonna going go thing things much lot
s t ll re ve d m""".split()
)
# Verbs that manage the talk rather than state anything ("I mean", "you know", "I see"), when they have no object.
_TALK_VERBS = {"mean", "know", "see", "guess", "think", "say", "tell", "agree", "bet", "wonder", "get", "go", "come",
               "hear", "remember", "forget", "understand", "suppose", "believe", "hope", "feel", "look", "kid", "joke",
               "do", "try", "wait", "talk", "ask", "thank", "sorry", "love", "like", "hate"}  # fmt: skip
_VAGUE_OBJECTS = {"it", "that", "this", "them", "those", "these", "one", "ones", "so", "there", "here", "something",
                  "anything", "everything", "nothing", "stuff", "thing"}  # fmt: skip


def _content_tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP and len(t) > 1}


def classify_text(text: str) -> tuple[str | None, str, dict]:
    """(kind or None, importance, parse features) of a free text (a provider's own memory), from its first
    claim; no claim at all gives (None, "low", {})."""
    docs = nlp.parse_with_entities([clean(text)])
    found = claims_from_doc(docs[0]) if docs else []
    if not found:
        return None, "low", {}
    kind, importance = kinds.classify(found[0].features)
    return kind, importance, dict(found[0].features)


def _classify(text: str, skip: tuple[str, ...] = ()) -> tuple[str | None, float, str]:
    """(kind or None, prior, importance) of a short answer's text (``context.yes_no_candidate``)."""
    kind, importance, _ = classify_text(text)
    if kind is None or kind in skip:
        return None, 0.0, "low"
    return kind, PRIOR, importance


class _Turn:
    """One turn with its cleaned text and parse."""

    __slots__ = ("utt", "text", "doc", "pos", "order")

    def __init__(self, utt: TurnIn, text: str, pos: int):
        self.utt, self.text, self.pos, self.doc, self.order = utt, text, pos, None, -1


class DeterministicExtractor(Extractor):
    ID = "deterministic"
    VERSION = "2.31"

    def extract(self, day: DayInput) -> ExtractionResult:
        result = ExtractionResult(extractor=self.ID, extractor_version=self.VERSION)
        owner = (day.owner_name or "The user").split()[0]
        convs = [[_Turn(u, clean(u.text), p) for p, u in enumerate(c.turns)] for c in day.conversations]
        turns = [t for c in convs for t in c if t.text]
        for turn, doc in zip(turns, nlp.parse(t.text for t in turns), strict=True):
            turn.doc = doc
        nlp.sentence_entities((t.doc, _claim_sentences(t.doc)) for t in turns if t.doc is not None)
        # Turns of the day that cancel or move something, in order: a plan is doubtful when one comes later.
        flat = [t for c in convs for t in c]
        order = {id(t): k for k, t in enumerate(flat)}
        for k, t in enumerate(flat):
            t.order = k
        cancels = [(k, t.text) for k, t in enumerate(flat) if t.text and decisions.cancels(t.text)]
        for conv, cturns in zip(day.conversations, convs, strict=True):
            names = _resolve_speakers(conv, owner)
            for turn in cturns:
                if not turn.text or turn.doc is None:
                    continue
                k = order[id(turn)]
                later = [(j, text) for j, text in cancels if j > k]
                result.candidates.extend(self._from_turn(conv, cturns, turn, owner, names, later))
        return result

    # --- one turn -------------------------------------------------------------------------------------------
    def _from_turn(self, conv, cturns, turn: _Turn, owner: str, names, later) -> list[Candidate]:
        utt, pos = turn.utt, turn.pos
        nxt = cturns[pos + 1] if pos + 1 < len(cturns) else None
        reply_docs = [nxt.doc] if nxt is not None and nxt.doc is not None and _other(nxt.utt, utt) else []
        ctx = _TurnContext(conv, cturns, turn, owner, names)
        found: list[Candidate] = []
        same = nxt is not None and nxt.doc is not None and not _other(nxt.utt, utt)
        for claim in claims_from_doc(turn.doc, reply_docs):
            _complete_with_date(claim, turn.doc, nxt.doc if same else None)
            cand = self._from_claim(claim, ctx)
            if cand is not None:
                found.append(cand)
        found += self._from_context(conv, cturns, turn, owner, names)
        injected = looks_like_injection(utt.text)
        capture = _capture_confidence(utt.text, turn.text)
        laughed = bool(reply_docs) and _laughs(reply_docs[0])
        out = []
        for cand in found:
            cand.capture_confidence = INJECTION_CAPTURE_CONFIDENCE if injected else capture
            if injected:
                cand.flags.append("instruction-like text")
            f = cand.features
            f["injection_like"] = injected
            f["capture_confidence"] = cand.capture_confidence
            f["laughed_at"] = laughed
            f["turn_position"] = round(pos / max(len(cturns) - 1, 1), 3)
            f["turn_index"] = pos
            f["speaker_is_owner"] = bool(utt.is_owner)
            f["speaker"] = ctx.speaker  # the name resolved for who said it ("" when nobody could tell)
            f["turn_n_tokens"] = len(turn.doc)
            f["prev_turn_question"] = bool(pos and cturns[pos - 1].text.rstrip().endswith("?"))
            # The reply that agreed to a proposal is part of it, not a later change of mind.
            reply = order_of_next(cturns, pos) if cand.ceiling_reason == decisions.AGREED else -1
            after = [text for j, text in later if j != reply]
            cancelled = cand.kind in ("plan", "commitment", "decision") and decisions.cancelled_later(
                cand.content, after, _content_tokens
            )
            f["cancelled_later"] = cancelled
            if cancelled:
                cand.extraction_confidence *= 0.4
                cand.flags.append("cancelled later the same day")
            cand.extraction_confidence = round(min(cand.extraction_confidence, 0.99), 3)
            last = nxt.utt.index if f.get("date_from_next_turn") and nxt is not None else utt.index
            cand.evidence = Evidence(first_index=utt.index, last_index=last, quote=utt.text)
            cand.valid_from = conv.started_at
            cand.extractor, cand.extractor_version = self.ID, self.VERSION
            out.append(cand)
        return out

    def _from_claim(self, claim: Claim, ctx: _TurnContext) -> Candidate | None:
        f = dict(claim.features)
        if _not_a_statement(claim):
            return None
        who = ctx.subject(claim)
        if who is None:
            return None
        content = _render(claim, who, ctx)
        if len(_content_tokens(content) - {w.lower() for w in who.display.split()}) < 1:
            return None
        kind, importance = kinds.classify({**f, "grammatical_person": who.grammatical}, subject_relation=who.relation)
        f.update(
            subject_type=who.subject_type,
            attribution_confidence=who.confidence,
            grammatical_person=who.grammatical,
            subject_relation=who.relation,
            subject_plural=claim.subject_kind == "first_plural",
            answer_to_question=False,
            kind=kind,
            importance=importance,
        )
        confidence, flags = _prior(f, who)
        ceiling, reason = _ceiling(f, who)
        return Candidate(
            subject=who.subject,
            predicate=f"{kind}:{f.get('predicate', 'statement').replace(' ', '_')}",
            args=sorted(_content_tokens(content) - {who.display.lower()}),
            content=content,
            kind=kind,
            importance=importance,
            extraction_confidence=confidence,
            capture_confidence=1.0,
            attribution=who.attribution,
            person=who.person,
            flags=flags,
            ceiling=ceiling,
            ceiling_reason=reason,
            features=f,
        )

    # --- turns around: answers, agreed proposals, introductions ---------------------------------------------
    def _from_context(self, conv, cturns, turn: _Turn, owner: str, names) -> list[Candidate]:
        utt, pos = turn.utt, turn.pos
        extra: list[Candidate] = []
        qa = (
            _from_answer(conv, pos, utt, owner, names)
            or context.yes_no_candidate(conv, pos, utt, owner, names, _classify)
            or context.verbless_answer(conv, pos, utt, owner, names, classify_text)
        )
        if qa is not None:
            extra.append(qa)
        agreed = decisions.agreed_proposal(conv, pos, utt, owner, names)
        if agreed is not None:
            extra.append(agreed)
        extra += _from_introduction(turn.text, utt, owner, names, conv)
        if extra:
            docs = nlp.parse_with_entities([c.content for c in extra])
            for cand, doc in zip(extra, docs, strict=True):
                found = claims_from_doc(doc)
                f = dict(found[0].features) if found else {}
                f.update(
                    subject_type="owner" if cand.attribution == "user" else "named_person",
                    attribution_confidence=0.8 if cand.attribution != "unknown" else 0.2,
                    grammatical_person="third",
                    answer_to_question="answer to a question" in cand.flags,
                    agreed_across_turns=cand.ceiling_reason == decisions.AGREED,
                    introduction="introduction" in cand.flags,
                    kind=cand.kind,
                    importance=cand.importance,
                    sarcasm_cues=f.get("sarcasm_cues", 0),
                )
                cand.features = f
        return extra


# --- who the claim is about ---------------------------------------------------------------------------------
class _Who:
    __slots__ = ("subject", "attribution", "person", "display", "subject_type", "confidence", "grammatical", "relation",
                 "speaker", "addressee", "sure")  # fmt: skip

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k, ""))


class _TurnContext:
    def __init__(self, conv: ConversationIn, cturns, turn: _Turn, owner: str, names):
        self.conv, self.cturns, self.turn, self.owner, self.names = conv, cturns, turn, owner, names
        utt = turn.utt
        self.speaker = owner if utt.is_owner else names.get(utt.speaker_name, "")
        self.owner_guess = utt.is_owner and conv.owner_confidence < OWNER_GUESS
        self.sure_speaker = (utt.is_owner and not self.owner_guess) or (
            not utt.is_owner and utt.speaker_name in getattr(names, "sure", ())
        )

    def _speaker_who(self, grammatical: str, relation: str = "") -> _Who | None:
        utt = self.turn.utt
        if utt.is_owner:
            conf = 0.95 if not self.owner_guess else 0.45
            return _Who(subject="user", attribution="user", person="", display=self.owner, subject_type="owner",
                        confidence=conf, grammatical=grammatical, relation=relation, speaker=self.owner,
                        addressee=self.addressee(), sure=not self.owner_guess)  # fmt: skip
        if self.speaker:
            conf = 0.9 if self.sure_speaker else 0.55
            return _Who(subject=f"person:{self.speaker}", attribution="third_party", person=self.speaker,
                        display=self.speaker, subject_type="named_person", confidence=conf, grammatical=grammatical,
                        relation=relation, speaker=self.speaker, addressee=self.owner, sure=self.sure_speaker)  # fmt: skip
        return _Who(subject="unknown", attribution="unknown", person="", display="Someone", subject_type="unknown",
                    confidence=0.2, grammatical=grammatical, relation=relation, speaker="", addressee=self.owner,
                    sure=False)  # fmt: skip

    def addressee(self) -> str:
        """Who "you" is in the owner's turn: a name said in the turn, else the one other named speaker."""
        utt = self.turn.utt
        if not utt.is_owner:
            return self.owner
        said = _addressee(utt.text, self.owner)
        if said:
            return said
        others = {self.names.get(u.speaker_name, "") for u in self.conv.turns if not u.is_owner}
        others.discard("")
        return next(iter(others)) if len(others) == 1 else ""

    def subject(self, claim: Claim) -> _Who | None:
        kind = claim.subject_kind
        if kind in ("first", "first_plural"):
            return self._speaker_who("first")
        if kind == "possessed" and claim.possessor in ("first", "first_plural"):
            return self._speaker_who("first", relation=claim.subject_name)
        if kind in ("second",) or (kind == "possessed" and claim.possessor == "second"):
            return self._listener_who(relation=claim.subject_name if kind == "possessed" else "")
        if kind == "possessed":
            return self._named_who(claim.possessor, relation=claim.subject_name)
        if kind == "named":
            return self._named_who(claim.subject_name)
        if kind == "pronoun":
            person = self._resolve_pronoun(claim.subject_i, claim.subject_text)
            if not person:
                return None
            who = self._named_who(person)
            if who is not None:
                who.subject_type, who.confidence = "pronoun", min(who.confidence, 0.6)
            return who
        return None

    def _listener_who(self, relation: str = "") -> _Who | None:
        utt = self.turn.utt
        if not utt.is_owner:
            cturns, pos = self.cturns, self.turn.pos
            near = (
                any(0 <= j < len(cturns) and cturns[j].utt.is_owner for j in (pos - 1, pos + 1))
                or self.owner.lower() in utt.text.lower()
            )
            if not near:
                return None
            return _Who(subject="user", attribution="user", person="", display=self.owner, subject_type="listener",
                        confidence=0.8 if self.speaker else 0.6, grammatical="second", relation=relation,
                        speaker=self.speaker, addressee="", sure=True)  # fmt: skip
        person = self.addressee()
        if not person:
            return None
        return _Who(subject=f"person:{person}", attribution="third_party", person=person, display=person,
                    subject_type="listener", confidence=0.6, grammatical="second", relation=relation,
                    speaker=self.owner, addressee="", sure=False)  # fmt: skip

    def _named_who(self, name: str, relation: str = "") -> _Who | None:
        first = name.split()[0] if name else ""
        if not first or first in NOT_NAMES:
            return None
        if first.lower() == self.owner.lower():
            return _Who(subject="user", attribution="user", person="", display=self.owner, subject_type="named_person",
                        confidence=0.85, grammatical="third", relation=relation, speaker=self.speaker,
                        addressee="", sure=True)  # fmt: skip
        return _Who(subject=f"person:{name}", attribution="third_party", person=name, display=name,
                    subject_type="named_person", confidence=0.85, grammatical="third", relation=relation,
                    speaker=self.speaker, addressee="", sure=True)  # fmt: skip

    def _resolve_pronoun(self, before: int, pronoun: str) -> str:
        """The person last mentioned before the pronoun, in this turn or the few turns before it, whom the pronoun
        can stand for: a relation a speaker named with the pronoun's gender ("my sister" said by Ana → "Ana's
        sister" for "she"), else the last name (a PERSON entity, or a proper noun the parser made a subject, object
        or possessor; never a name after "in", "to", "from", "at" or "near", nor one that modifies a thing: "the
        Kaplan lab"). A speaker of this conversation says "I" and is "you": never "he" or "she" here."""
        speakers = {self.owner.lower()} | {n.lower() for n in self.names.values()}
        speakers |= {u.speaker_name.lower() for u in self.conv.turns}
        mentions: list[tuple[str, str]] = []  # (person, gender or "")
        start = max(0, self.turn.pos - PRONOUN_WINDOW)
        for t in self.cturns[start : self.turn.pos + 1]:
            if t.doc is None:
                continue
            for tok in t.doc:
                if t is self.turn and tok.i >= before:
                    break
                relation = self._relation(t, tok)
                if relation:
                    mentions.append(relation)
                    continue
                # The small model's entity labels are weakest on rare names: a proper noun in a person's slot
                # (subject, object, apposition) counts too.
                proper = tok.pos_ == "PROPN" or _unknown_capitalised(tok)
                role = proper and (tok.dep_ in ("nsubj", "nsubjpass", "dobj", "appos") or _possessor(tok))
                if not (role or tok.ent_type_ == "PERSON") or tok.ent_type_ in ("DATE", "TIME", "CARDINAL"):
                    continue
                if not _name_like(tok):
                    continue
                if tok.head.dep_ == "prep" and tok.head.lower_ in ("in", "to", "from", "at", "near"):
                    continue
                if _modifier(tok):
                    continue
                parts = [c.text for c in tok.children if c.dep_ in ("compound", "flat") and c.pos_ == "PROPN"]
                name = " ".join([*parts, tok.text])
                if tok.text.lower() not in speakers and tok.text not in NOT_NAMES:
                    mentions.append((name, ""))
        gender = PRONOUN_GENDER.get(pronoun.lower(), "")
        # A relation whose word has the pronoun's gender is surer than a name, whose gender nothing here says.
        agreeing = [m for m, known in mentions if gender and known == gender]
        open_names = [m for m, known in mentions if not known]
        chosen = (agreeing or open_names)[-1:] if mentions else []
        return _fullest(chosen[0], [m for m, _ in mentions]) if chosen else ""

    def _relation(self, t: _Turn, tok) -> tuple[str, str] | None:
        """ "my sister" (subject or object) said by a speaker whose name is known → ("<speaker>'s sister", "f")."""
        word = tok.lemma_.lower()
        if tok.pos_ != "NOUN" or word not in KIN_GENDER or tok.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj"):
            return None
        if not any(c.dep_ == "poss" and c.lower_ == "my" for c in tok.children):
            return None
        speaker = self.owner if t.utt.is_owner else self.names.get(t.utt.speaker_name, "")
        return (f"{speaker}'s {word}", KIN_GENDER[word]) if speaker else None


def _possessor(tok) -> bool:
    """ "Marta's van broke down. She …": a possessor may be whom "she" stands for (the small model's recogniser
    calls most names in that slot a place or a firm, so its label is not asked; a claim about someone a pronoun
    stands for is asked at most, never accepted on its own)."""
    return tok.dep_ == "poss"


def _modifier(tok) -> bool:
    """A name inside a longer name ("Ana" in "Ana Kova": the full name is taken at its head) or modifying a thing
    ("the Porto lab"): not someone "he" or "she" can be."""
    return tok.dep_ in ("compound", "flat")


def _fullest(name: str, seen: list[str]) -> str:
    """The longest way the same person was named ("Ana", "Ana Kova" and "Kova" are one)."""
    words = set(name.split())
    return max((n for n in seen if words & set(n.split())), key=len, default=name)


def order_of_next(cturns, pos: int) -> int:
    """Day-order position of the turn after ``pos`` in its conversation (-1 when none); set by ``extract``."""
    return getattr(cturns[pos + 1], "order", -1) if pos + 1 < len(cturns) else -1


def _other(a: TurnIn, b: TurnIn) -> bool:
    return a.speaker_name != b.speaker_name or a.is_owner != b.is_owner


def _laughs(doc) -> bool:
    first = next((t for t in doc if not t.is_punct), None)
    return first is not None and first.lower_ in LAUGHTER


_PERSON_WORDS = {"i", "you", "we", "he", "she", "they", "my", "your", "our", "me"}


def _complete_with_date(claim: Claim, doc, next_doc=None) -> None:
    """ "I'm coming to Ohrid. The seventeenth to the nineteenth.": a date fragment right after the claim's
    sentence belongs to it, also when it opens the same speaker's next turn."""
    nxt = next((s for s in doc.sents if s.start == claim.sent_end), None)
    if nxt is None and next_doc is not None and claim.sent_end == len(doc):
        nxt = next(iter(next_doc.sents), None)
        claim.features["date_from_next_turn"] = nxt is not None and date_fragment(nxt)
    if nxt is None or claim.features.get("is_question") or not date_fragment(nxt):
        return
    tail = nxt.text.strip(" .!")
    first = next((t for t in nxt if not t.is_punct), None)
    if first is not None and first.pos_ != "PROPN":
        tail = tail[:1].lower() + tail[1:]
    claim.text = f"{claim.text.rstrip(' .!,')}, {tail}"
    claim.features["has_date"] = True
    claim.features["date_fragment_joined"] = True


def _claim_sentences(doc) -> list:
    """The sentences of a turn worth the entity recogniser (the slowest step of the parse): statements whose
    subject is a person (a personal pronoun, a proper noun, "my …"), or that open with a past verb (an omitted
    "I"). Questions and talk about things never become accepted claims; a proper noun anywhere is still a
    person candidate for pronouns through its parse role."""
    out = []
    if len(doc) < 3:
        return out
    for sent in doc.sents:
        if sent.text.rstrip().endswith("?"):
            continue
        person = any(
            t.dep_ in ("nsubj", "nsubjpass")
            and (t.lower_ in _PERSON_WORDS or t.pos_ == "PROPN" or any(c.dep_ == "poss" for c in t.children))
            for t in sent
        )
        # A short verbless sentence may be a date completing the statement just before it (or the last one of
        # the same speaker's previous turn, when it opens the turn).
        after_claim = (out and out[-1].end == sent.start) or sent.start == 0
        verbless = after_claim and len(sent) <= 9 and not any(t.pos_ in ("VERB", "AUX") for t in sent)
        if person or verbless or (sent.root.tag_ in ("VBD", "VBN", "VB") and sent.root.i == sent.start):
            out.append(sent)
    return out


def _not_a_statement(claim: Claim) -> bool:
    f = claim.features
    verb, obj = f.get("verb_lemma", ""), f.get("object_head_lemma", "")
    if verb in _TALK_VERBS and (not obj or obj in _VAGUE_OBJECTS) and f.get("content_words", 0) <= 1:
        return True  # "I mean", "you know", "I love it"
    if f.get("object_is_pronoun") and obj in _VAGUE_OBJECTS and f.get("content_words", 0) <= 1:
        return True  # "I'll tie them back": an object nobody resolved
    return f.get("n_tokens", 0) < 2


# --- display text -------------------------------------------------------------------------------------------
def _render(claim: Claim, who: _Who, ctx: _TurnContext) -> str:
    text = claim.text
    if claim.features.get("implicit_subject"):  # "Took the ferry" → "I took the ferry"
        text = "I " + text[:1].lower() + text[1:]
    if who.grammatical == "first":
        # "you" nobody could name stays a person, never the reader: "Odile will grab someone a coffee".
        return third_person(text, who.display, "first", addressee=who.addressee or "someone")
    if who.grammatical == "second":
        return third_person(text, who.display, "second", speaker=who.speaker)
    if claim.subject_kind == "pronoun" and claim.subject_text:
        text = re.sub(rf"\b{re.escape(claim.subject_text)}\b", who.display, text, count=1)
    if re.search(r"\b(?:i|me|my|mine)\b", text, re.IGNORECASE) and ctx.speaker:
        return third_person(text, ctx.speaker, "first")
    text = text.strip(" ,.")
    return text[:1].upper() + text[1:] + "." if text else ""


# --- prior and hard rules -----------------------------------------------------------------------------------
def _prior(f: dict, who: _Who) -> tuple[float, list[str]]:
    conf, flags = (PRIOR if f.get("kind") != "other" else OTHER_PRIOR), []
    if f.get("hedged"):
        conf *= 0.6
        flags.append("hedged")
    if f.get("modality") in ("might", "could", "would", "wish"):
        conf *= 0.5
        flags.append(f"modal: {f['modality']}")
    if f.get("hypothetical"):
        conf *= 0.3
        flags.append("hypothetical")
    if f.get("conditional"):
        conf *= 0.7
        flags.append("conditional")
    if f.get("reported") or f.get("in_quote"):
        conf *= 0.5
        flags.append("reported speech" if f.get("reported") else "quoted")
    for key, why in (("momentary", "a passing action"), ("near_term", "about the next hours"),
                     ("offer_to_listener", "a small offer"), ("figurative_cues", "figurative"),
                     ("object_vague", "vague object")):  # fmt: skip
        if f.get(key):
            conf *= 0.6
            flags.append(why)
    cues = f.get("sarcasm_cues", 0)
    if cues:
        conf *= 0.6**cues
        flags.append(f"sarcasm cues: {cues}")
    if f.get("is_question"):
        conf = min(conf, 0.1)
        flags.append("question")
    conf *= min(1.0, 0.5 + 0.5 * who.confidence / 0.9)
    if who.subject_type == "unknown":
        flags.append("speaker not identified")
    return conf, flags


def parse_ceiling(f: dict) -> tuple[str, str]:
    """The hard rules on a claim's parse features alone (every extractor's candidates get them): a question, a
    hypothetical or an instruction is not a claim, nor is an "I" or "you" inside quotation marks (whoever is quoted);
    a condition, another quote or reported speech is review at most."""
    if f.get("is_question"):
        return DROPPED, "a question"
    if f.get("hypothetical"):
        return DROPPED, "hypothetical"
    if f.get("imperative"):
        return DROPPED, "an instruction"
    if f.get("conditional"):
        return PENDING, "conditional"
    if f.get("in_quote") and f.get("grammatical_person") in ("first", "second"):
        return DROPPED, "a quote's I or you is whoever is quoted"  # 'Chef said, "I've been a chef for years"'
    if f.get("in_quote") or f.get("reported"):
        return PENDING, "quoted or reported speech"
    if f.get("sarcasm_cues", 0) >= IRONY_CUES:
        return PENDING, "irony cues"  # a laugh, then "Great, so I'm a certified puddle inspector now."
    return "", ""


def _ceiling(f: dict, who: _Who) -> tuple[str, str]:
    ceiling = parse_ceiling(f)
    if ceiling[0]:
        return ceiling
    if who.subject_type == "unknown" or who.confidence < 0.5:
        return PENDING, "subject uncertain"
    if not who.sure and who.grammatical == "first":
        return PENDING, "speaker named only by how others address them"
    if f.get("object_is_pronoun") and f.get("object_head_lemma") in UNRESOLVED_OBJECTS:
        # "Nell starts them in March": the memory would not say what it is about (its words are kept as said)
        return PENDING, "object is a pronoun the memory does not resolve"
    return "", ""


# --- answers and introductions --------------------------------------------------------------------------------
def _from_answer(conv: ConversationIn, pos: int, utt: TurnIn, owner: str, names) -> Candidate | None:
    """A short answer to another speaker's question about the answerer ("What do you do?" / "Ferrier.") is a
    statement about the answerer."""
    if pos == 0:
        return None
    asked = conv.turns[pos - 1]
    if not _other(asked, utt):
        return None
    question = clean(asked.text)
    if not question.rstrip().endswith("?"):
        return None
    rule = next((r for r in context.QUESTIONS if r[0].search(question)), None)
    if rule is None:
        return None
    _, template, kind, importance = rule
    answer = _LEAD.sub("", _SENTENCE.split(clean(utt.text))[0].strip(" .!,")).strip(" .!,")
    if not answer or len(answer.split()) > 6 or answer.endswith("?") or context.ANSWER_NOT_NP.match(answer):
        return None
    person = "" if utt.is_owner else names.get(utt.speaker_name, "")
    attribution = "user" if utt.is_owner else ("third_party" if person else "unknown")
    name = owner if attribution == "user" else (person or "Someone")
    lowered = answer[:1].lower() + answer[1:] if kind == "work" and not answer[:2].isupper() else answer
    content = template.format(name=name, answer=lowered)
    return Candidate(
        subject="user" if attribution == "user" else (f"person:{person}" if person else "unknown"),
        predicate=f"{kind}:answer",
        args=sorted(_content_tokens(answer)),
        content=content,
        kind=kind,
        importance=importance,
        extraction_confidence=0.75 * (0.6 if attribution == "unknown" else 1.0),
        capture_confidence=1.0,
        attribution=attribution,
        person=person,
        flags=["answer to a question"] + (["speaker not identified"] if attribution == "unknown" else []),
        ceiling=PENDING if attribution == "unknown" else "",
        ceiling_reason="subject uncertain" if attribution == "unknown" else "",
    )


def _from_introduction(text: str, utt: TurnIn, owner: str, names, conv: ConversationIn) -> list[Candidate]:
    """ "This is Leif. My husband." / "Meet my sister, Ines": a relation of the speaker's, filed under both."""
    m = _INTRODUCTION.search(text)
    if not m:
        return []
    name = m.group("name1") or m.group("name2")
    relation = (m.group("rel1") or m.group("rel2")).lower()
    if name.split()[0] in NOT_NAMES or name.split()[0].lower() == owner.lower():
        return []
    if utt.is_owner:
        attribution, person, speaker = "user", "", owner
    else:
        person = names.get(utt.speaker_name, "")
        if not person:
            return []
        attribution, speaker = "third_party", person
    if name.split()[0] == speaker.split()[0]:
        return []
    sure = (utt.is_owner and conv.owner_confidence >= OWNER_GUESS) or utt.speaker_name in getattr(names, "sure", ())
    cand = Candidate(
        subject="user" if attribution == "user" else f"person:{person}",
        predicate="relationship:introduced",
        args=sorted(_content_tokens(f"{relation} {name}")),
        content=f"{speaker}'s {relation} is {name}.",
        kind="relationship",
        importance="normal",
        extraction_confidence=0.9 if sure else 0.75,
        capture_confidence=1.0,
        attribution=attribution,
        person=person,
        flags=["introduction"],
    )
    twin = replace(
        cand,
        subject=f"person:{name}",
        attribution="third_party",
        person=name,
        content=f"{name} is {speaker}'s {relation}.",
        flags=["introduction"],
    )
    return [cand, twin]


def _capture_confidence(raw: str, cleaned: str) -> float:
    """How well the device seems to have heard this turn: fillers, stutters and fragments lower it."""
    raw_words = max(len(raw.split()), 1)
    lost = max(raw_words - len(cleaned.split()), 0) / raw_words
    conf = 0.95 - 0.5 * lost
    if len(cleaned.split()) < 4:
        conf -= 0.1
    return round(max(0.3, min(conf, 0.95)), 3)
