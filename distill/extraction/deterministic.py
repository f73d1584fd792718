"""Deterministic, zero-LLM extractor: speaker-aware patterns over pronouns, predicates, modality and context.

Precision first. A claim becomes a candidate only when a clause is a declarative first-person statement (about
its speaker), a second-person statement addressed to the wearer (about the wearer), or a "<Name> is/has/…"
statement, AND its predicate belongs to a lexicon of memorable kinds (health, identity, work, place, ...).
General linguistic signals then lower confidence so doubtful claims land in review or are dropped:
hypotheticals and modal hedges, questions, quoted or reported speech (TV shows, "she said"), sarcasm markers and
laughter in the next turn, plans cancelled later the same day, unresolved speakers, noisy capture, and text
that reads as an instruction to an AI. Nothing here knows any particular name or sentence.
"""

from __future__ import annotations

import re
from dataclasses import replace

from distill.extraction import claims, context, decisions
from distill.extraction.base import (
    Candidate,
    ConversationIn,
    DayInput,
    Evidence,
    ExtractionResult,
    Extractor,
    UtteranceIn,
)
from distill.extraction.grammar import third_person
from distill.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection
from distill.extraction.speakers import _INTRODUCTION, _NOT_NAMES, _addressee, _name_like, _resolve_speakers
from distill.extraction.speakers import is_real_name as is_real_name  # re-exported
from distill.extraction.text import _LEAD, _QUOTED, _SENTENCE, clauses_with_context, clean, is_time_fragment
from distill.extraction.text import clauses as clauses  # re-exported

# --- lexicons -----------------------------------------------------------------------------------------
STOP = set(
    """a an the and or but of to in on at for from with by as is are was were be been being am has have had do does
did will would can could should may might shall this that these those it its he she they them his her their there
here who which what when where how so if then than very just about into over also like um uh okay oh yeah really
i me my mine myself you your we our us im ive ill id youre not no get got gonna going go thing things much lot
s t ll re ve d m""".split()
)

# (kind, pattern over the predicate part, base confidence, importance). Order matters: first match wins.
_KIND_RULES: list[tuple[str, re.Pattern, float, str]] = [
    (
        "health",
        re.compile(
            r"\b(allerg\w*|epipen|sprain\w*|fractur\w*|surgery|pregnan\w*|diagnos\w*|asthma|diabet\w*|migraine\w*|"
            r"injur\w*|iron (?:was|is) low|anemi\w*|medication|prescri\w*|therap\w*|due date|chemo\w*|"
            r"(?:knee|hip|ankle|back) (?:replacement|surgery))\b",
            re.IGNORECASE,
        ),
        0.9,
        "high",
    ),
    (
        "identity",
        re.compile(
            r"\b(my name is|born (?:in|on)|birthday|date of birth|\d+ years old|(?:sixty|fifty|forty|thirty|twenty|seventy)"
            r"(?:-\w+)? (?:years old)|grew up in|i'm from|is from)\b",
            re.IGNORECASE,
        ),
        0.9,
        "high",
    ),
    (
        "preference",
        re.compile(
            r"\b(vegetarian|vegan|pescatarian|gluten|don't eat|do not eat|never eat|started eating|stopped eating|"
            r"quit (?:coffee|drinking|smoking|sugar|meat)|hate\w*|can't stand|love\w*|favou?rite|prefer\w*|"
            r"don't drink|sober)\b",
            re.IGNORECASE,
        ),
        0.85,
        "normal",
    ),
    (
        "relationship",
        re.compile(
            r"\b(my (?:only |little |big |baby |older |younger |oldest |youngest |twin |step)?(?:sister|brother|mom|mother|dad|father|husband|wife|partner|boyfriend|girlfriend|"
            r"fianc\w*|son|daughter|kids?|children|cousin|aunt|uncle|grand\w+|best friend|roommate|niece|nephew|"
            r"twins?)|married|engaged|divorc\w*|dating|my (?:sister|brother)-in-law)\b",
            re.IGNORECASE,
        ),
        0.85,
        "normal",
    ),
    (
        "work",
        re.compile(
            r"\b(work(?:s|ed|ing)? (?:at|as|for|in|nights|days)|my job|(?:a|an|the|as)\s+(?:[\w-]+\s+){0,2}(?:designer|engineer|"
            r"developer|nurse|teacher|doctor|dentist|lawyer|director|manager|lead|founder|contractor|consultant|"
            r"recruiter|agent|chef|musician|professor|student|intern|treasurer|secretary|president|chair|coordinator|"
            r"administrator|supervisor|owner|accountant|architect|electrician|plumber|mechanic|paramedic|attorney|analyst|"
            r"editor|writer|journalist|photographer|pilot|firefighter|officer|librarian|pastor|barista|bartender|"
            r"cashier|driver|carpenter|programmer|technician|surgeon|physician|midwife|principal|coach|tutor|trainer|"
            r"instructor|veterinarian|pharmacist|therapist|\w+ologist|\w+ician)\b|hired|promot(?:ed|ion)|retir\w*|parental leave|"
            r"maternity leave|(?:my|her|his|paternity|medical) leave|night shifts?|nights|gig|mba|startup|acting lead|leading design|quit my job|new job)",
            re.IGNORECASE,
        ),
        0.85,
        "normal",
    ),
    (
        "place",
        re.compile(
            r"\b(li(?:ve|ves|ved|ving) in|moved? (?:to|into|out|up to|in)|moving (?:to|into|out)|my (?:lease|apartment|"
            r"place|house|building|landlord|neighbou?rhood)|the lease|rent is|signing the lease|applied for a place|"
            r"i'm in (?-i:[A-Z])\w+)",
            re.IGNORECASE,
        ),
        0.85,
        "normal",
    ),
    (
        "decision",
        re.compile(
            r"\b(decided|decision|let's (?:cut|do|go with|cancel|push|move|drop|keep|just)|we're going with|"
            r"i want (?:to cut|the \w+ to be)|the plan is|we'll go with)\b",
            re.IGNORECASE,
        ),
        0.8,
        "normal",
    ),
]

_COMMITMENT = re.compile(
    r"\b(?:i'll|i will|i'm gonna|i am going to|i'm going to|i promise to)\b.*\b(?:to you|for you|you|by (?:monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|end of (?:day|week)|the \w+|next \w+))",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"\b(i'll|i will|we'll|i'm gonna|we're gonna|going to|(?:i'm|we're) (?:coming|flying|moving|starting|leaving|seeing|"
    r"visiting|taking|doing|booking|signing|registered)|plan(?:ning)? to|starting|starts?|"
    r"i fly|we fly|booked|registered|signed up|moved (?:it|the \w+) to|pushed (?:it|the \w+) to|rescheduled|"
    r"postponed)\b",
    re.IGNORECASE,
)
_LIFE_EVENT = re.compile(
    r"\b(?:i'm|i am|we're|we are|he's|she's)\s+(?:adopting|training for|getting married|having a baby|expecting|"
    r"retiring|quitting|joining|leaving (?:for|the|my)|selling|buying|starting (?:the|a|my|an)|learning|studying)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next (?:week|month|year|\w+day)|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"\w+(?:st|nd|rd|th)\b|weekend|this week|in the fall|in the spring|summer|winter)\b",
    re.IGNORECASE,
)

# A calendar-specific detail: a month with a day, or an ordinal day of the month ("the twenty-first", "July 6th").
_ORDINAL_DAY = (
    r"(?:\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"twenty[- ](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|thirtieth|thirty[- ]first)"
)
_MONTH = r"(?:january|february|march|april|june|july|august|september|october|november|december)"
_SPECIFIC_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+(?:the\s+)?(?:{_ORDINAL_DAY}|\d{{1,2}})|(?:on|by|the)\s+(?:the\s+)?{_ORDINAL_DAY}(?!\s+(?:time|floor|one|thing|grade)))\b",
    re.IGNORECASE,
)
_SPECIFIC_CONFIDENCE = 0.9
GENERAL_STATEMENT = 0.7
# Conversation-management verbs: "I think…", "I mean…", "I told you…" are about the talk, not the person.
_TALK_VERBS = re.compile(
    r"^(?:i|we|you)(?:'m|'ve|'ll|'d)?\s+(?:\w+\s+)?(?:think|thought|guess|mean|meant|know|knew|feel|felt|hope|"
    r"remember|forgot|say|said|told|tell|see|saw|bet|agree|suppose|wonder|wondered|believe|understand|get|"
    r"got(?!\s+(?:a|an|my|our|the|into|another|new|lots|plenty|some|two|three|four|five|several|\w+ed)\b)|"
    r"heard|hear|sorry|glad|happy|excited|sure|good|fine|okay|ok|right|back|here|there|done|ready|kidding|joking)\b",
    re.IGNORECASE,
)


def _plain_statement(clause: str, *, short_ok: bool = False) -> bool:
    if _TALK_VERBS.match(clause) or _HEDGE.search(clause) or _HYPOTHETICAL.search(clause):
        return False
    # Two content words are enough for a habit or state ("I keep bees", "Gardening matters to me").
    least = 2 if short_ok or claims.habitual_present(clause) else 3
    if len(_content_tokens(clause)) < least or not claims.has_finite_verb(clause):
        return False
    shape = claims.assess(clause)
    return shape is None or shape.verdict == claims.REVIEW  # capped at review either way


# Caps on extraction confidence from the claim's shape (see claims.assess): with the default source trust 0.8
# and thresholds 0.7 / 0.45, PLAUSIBLE_CAP lands in review and NOT_A_CLAIM is dropped.
NOT_A_CLAIM = 0.1
NOT_A_CLAIM_FLAG = "not a claim: "
PLAUSIBLE_CAP = 0.8
UNSURE_SPEAKER_CAP = 0.85
WEARER_GUESS = 0.5  # below this conversation-level wearer confidence, first-person "I" is not trusted as the wearer

# Signals that lower confidence. Each is (flag, pattern, multiplier).
_HYPOTHETICAL = re.compile(
    r"\b(if|imagine|suppose|supposing|would|wouldn't|i'd|we'd|you'd|could|someday|one day|in theory|wish|"
    r"if i ever|what if|unless)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(maybe|perhaps|probably|might|i guess|i think|i don't know|hopefully|not sure|kind of|sort of|possibly|"
    r"eventually|thinking about|considering)\b",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"\b(?:my favou?rite thing in the world|best thing ever|in the world|new career|yeah right|sure i am|"
    r"so much fun|can't wait to|i'm gonna win|(?:i'm|i am|we're) (?:basically|totally|officially|literally|"
    r"clearly|obviously)|watch\.)|^oh,? i (?:just )?love|^(?:ha|haha|hah)\b",
    re.IGNORECASE,
)
_LAUGH = re.compile(r"^(?:ha\b|haha|hah|lol|lmao|right,? sure|sure,? sure|yeah,? right|okay,? sure)", re.IGNORECASE)
_REPORTED = re.compile(
    r"\b(says|said|told me|told her|told him|according to|quote|quoting|season|episode|the show|the movie|"
    r"the book|character|captain|chef \w+ says)\b",
    re.IGNORECASE,
)
_NEGATED_PLAN = re.compile(r"\b(not gonna|not going to|won't|will not|never gonna)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(
    r"^(i|i'm|i am|i've|i have|i'll|i will|i was|my|we|we're|we've|we'll|we were|our)\b", re.IGNORECASE
)
_SECOND_PERSON = re.compile(r"^(you're|you are|you'll|you will|you've|you have|you were|your)\b", re.IGNORECASE)
_NAMED_SUBJECT = re.compile(
    r"^([A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:'s| is| has| was| will| works| lives| moved| got| starts| started| "
    r"just| finally| already)\b"
)


_SPEAKER_WORD = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)


def _content_tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP and len(t) > 1}


# --- rendering ----------------------------------------------------------------------------------------
def render(clause: str, name: str, person: str, *, speaker: str = "", addressee: str = "") -> str:
    """Rewrite a first/second-person clause in the third person about ``name`` (see ``grammar.third_person``)."""
    return third_person(clause, name, person, speaker=speaker, addressee=addressee)


def _addressee_of(utt: UtteranceIn, conv: ConversationIn, wearer: str, names: dict) -> str:
    """Who "you" is in a first-person clause: the wearer when someone else speaks to them, else the one other
    named person of the conversation (empty when there are several or none)."""
    if not utt.is_wearer:
        return wearer
    others = {names.get(u.speaker_name, "") for u in conv.utterances if not u.is_wearer}
    others.discard("")
    return next(iter(others)) if len(others) == 1 else ""


# --- the extractor ------------------------------------------------------------------------------------
class DeterministicExtractor(Extractor):
    ID = "deterministic"
    VERSION = "1.1"

    def extract(self, day: DayInput) -> ExtractionResult:
        result = ExtractionResult(extractor=self.ID, extractor_version=self.VERSION)
        wearer = (day.wearer_name or "The user").split()[0]
        later_texts = decisions.later_texts(day.conversations)
        for ci, conv in enumerate(day.conversations):
            names = _resolve_speakers(conv, wearer)
            for pos, utt in enumerate(conv.utterances):
                later = [t for (c, p, t) in later_texts if (c, p) > (ci, pos)]
                for cand in self._from_utterance(conv, pos, utt, wearer, names, later):
                    result.candidates.append(cand)
        return result

    def _from_utterance(self, conv: ConversationIn, pos: int, utt: UtteranceIn, wearer: str, names: dict, later):
        text = clean(utt.text)
        if not text:
            return []
        last_index = utt.index
        follow = conv.utterances[pos + 1] if pos + 1 < len(conv.utterances) else None
        if follow and follow.speaker_name == utt.speaker_name and follow.is_wearer == utt.is_wearer:
            # A statement finished in the speaker's next fragment: "I'm flying out." / "The ninth to the twelfth."
            head = _SENTENCE.split(clean(follow.text))[0].strip(" .,!")
            if head and is_time_fragment(head) and not text.rstrip().endswith("?"):
                head = head[:1].lower() + head[1:] if head[:4].lower() == "the " else head
                text = f"{text.rstrip(' .!')}, {head}."
                last_index = follow.index
        injected = looks_like_injection(utt.text)
        capture = _capture_confidence(utt.text, text)
        nxt = conv.utterances[pos + 1] if pos + 1 < len(conv.utterances) else None
        prev = conv.utterances[pos - 1] if pos > 0 else None
        laughed_at = bool(nxt and nxt.is_wearer != utt.is_wearer and _LAUGH.match(clean(nxt.text)))
        whole_quoted = bool(_QUOTED.search(utt.text))
        out = []
        wearer_guess = utt.is_wearer and conv.wearer_confidence < WEARER_GUESS
        found = []
        sentences = _SENTENCE.split(text)
        recent = context.recent_turns(conv, pos, wearer)
        for clause, question, conditional in clauses_with_context(text):
            sentence = next((s for s in sentences if clause[:24] in s), clause)
            cand = self._from_clause(
                clause,
                question,
                utt,
                prev,
                nxt,
                wearer,
                names,
                wearer_guess=wearer_guess,
                sentence=sentence,
                addressee=_addressee_of(utt, conv, wearer, names),
                recent=recent,
            )
            if cand is not None:
                found.append((cand, conditional))
                twin = _relation_twin(cand, wearer)
                if twin is not None:
                    found.append((twin, conditional))
        qa = self._from_answer(conv, pos, utt, wearer, names) or context.yes_no_candidate(
            conv, pos, utt, wearer, names, _classify
        )
        if qa is not None:
            found.append((qa, False))
        agreed = decisions.agreed_proposal(conv, pos, utt, wearer, names)
        if agreed is not None:
            found.append((agreed, False))
        for intro in self._from_introduction(text, utt, wearer, names, wearer_guess=wearer_guess):
            found.append((intro, False))
        for cand, conditional in found:
            if conditional:
                # An open condition on a plain clause ("if it goes through, I'm moving on the 20th") is a real
                # but unconfirmed plan: review. Counterfactuals ("I'd ...") are already cut as hypothetical.
                cand.extraction_confidence *= 0.7
                cand.flags.append("conditional")
            if injected:
                cand.capture_confidence = INJECTION_CAPTURE_CONFIDENCE
                cand.flags.append("instruction-like text")
            else:
                cand.capture_confidence = capture
            if laughed_at:
                cand.extraction_confidence *= 0.5
                cand.flags.append("laughed at")
            if whole_quoted and _REPORTED.search(utt.text):
                cand.extraction_confidence *= 0.3
                cand.flags.append("near quoted speech")
            # The reply that agreed to a proposal is part of it, not a later change of mind.
            after = later[1:] if cand.ceiling_reason == decisions.AGREED else later
            if cand.kind in ("plan", "commitment", "decision") and decisions.cancelled_later(
                cand.content, after, _content_tokens
            ):
                cand.extraction_confidence *= 0.4
                cand.flags.append("cancelled later the same day")
            cand.extraction_confidence = round(min(cand.extraction_confidence, 0.99), 3)
            cand.evidence = Evidence(first_index=utt.index, last_index=last_index, quote=utt.text)
            cand.valid_from = conv.started_at
            cand.extractor, cand.extractor_version = self.ID, self.VERSION
            out.append(cand)
        return out

    def _from_introduction(self, text: str, utt: UtteranceIn, wearer: str, names: dict, *, wearer_guess=False):
        """ "This is Marcus. My husband." / "Meet my sister, Ines": the speaker introducing a relation, a fact
        about the speaker (and, mirrored, about the person introduced)."""
        m = _INTRODUCTION.search(text)
        if not m:
            return []
        name = m.group("name1") or m.group("name2")
        relation = (m.group("rel1") or m.group("rel2")).lower()
        if name.split()[0] in _NOT_NAMES or name.split()[0].lower() == wearer.lower():
            return []
        if utt.is_wearer:
            attribution, person, speaker = "user", "", wearer
        else:
            person = names.get(utt.speaker_name, "")
            if not person:
                return []
            attribution, speaker = "third_party", person
        if name.split()[0] == speaker.split()[0]:
            return []
        content = f"{speaker}'s {relation} is {name}."
        sure = (utt.is_wearer and not wearer_guess) or utt.speaker_name in getattr(names, "sure", ())
        cand = Candidate(
            subject="user" if attribution == "user" else f"person:{person}",
            predicate="relationship:introduced",
            args=sorted(_content_tokens(f"{relation} {name}")),
            content=content,
            kind="relationship",
            importance="normal",
            extraction_confidence=0.9 if sure else 0.85,
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

    def _from_answer(self, conv: ConversationIn, pos: int, utt: UtteranceIn, wearer: str, names: dict):
        """A short answer to another speaker's question about the answerer ("What do you do?" / "ER nurse.",
        "Date of birth?" / "March fourth, ninety-five.") is a statement about the answerer."""
        if pos == 0:
            return None
        asked = conv.utterances[pos - 1]
        if asked.speaker_name == utt.speaker_name and asked.is_wearer == utt.is_wearer:
            return None
        question = clean(asked.text)
        if not question.rstrip().endswith("?"):
            return None
        rule = next((r for r in context.QUESTIONS if r[0].search(question)), None)
        if rule is None:
            return None
        _, template, kind, importance = rule
        answer = _SENTENCE.split(clean(utt.text))[0].strip(" .!,")
        answer = _LEAD.sub("", answer).strip(" .!,")
        words = answer.split()
        if not words or len(words) > 6 or answer.endswith("?") or context.ANSWER_NOT_NP.match(answer):
            return None
        if utt.is_wearer:
            attribution, person = "user", ""
        else:
            person = names.get(utt.speaker_name, "")
            attribution = "third_party" if person else "unknown"
        name = wearer if attribution == "user" else (person or "Someone")
        content = template.format(
            name=name, answer=answer[:1].lower() + answer[1:] if kind == "work" and not answer[:2].isupper() else answer
        )
        confidence = 0.75 * (0.6 if attribution == "unknown" else 1.0)
        subject = "user" if attribution == "user" else (f"person:{person}" if person else "unknown")
        return Candidate(
            subject=subject,
            predicate=f"{kind}:answer",
            args=sorted(_content_tokens(answer)),
            content=content,
            kind=kind,
            importance=importance,
            extraction_confidence=confidence,
            capture_confidence=1.0,
            attribution=attribution,
            person=person,
            flags=["answer to a question"] + (["speaker not identified"] if attribution == "unknown" else []),
        )

    def _from_clause(
        self,
        clause,
        question,
        utt,
        prev,
        nxt,
        wearer,
        names,
        wearer_guess=False,
        sentence="",
        addressee="",
        recent=None,
    ) -> Candidate | None:
        if question or len(clause) < 8:
            return None
        clause, reframed = context.reframe(
            clause,
            sentence,
            has_subject=bool(_FIRST_PERSON.match(clause) or _SECOND_PERSON.match(clause)),
            named=bool(_NAMED_SUBJECT.match(clause)),
        )
        if _FIRST_PERSON.match(clause) or reframed:
            grammatical = "first"
            if utt.is_wearer:
                attribution, person = "user", ""
            else:
                person = names.get(utt.speaker_name, "")
                attribution = "third_party" if person else "unknown"
        elif _SECOND_PERSON.match(clause) and utt.is_wearer:
            # The wearer telling someone named in the same turn about themselves: "Ada, you're my only sister".
            addressee = _addressee(utt.text, wearer)
            if not addressee:
                return None
            grammatical, attribution, person = "second", "third_party", addressee
        elif _SECOND_PERSON.match(clause) and not utt.is_wearer:
            # "you" is the wearer only when the wearer is part of the exchange (adjacent turn or named).
            addressed = (prev and prev.is_wearer) or (nxt and nxt.is_wearer) or wearer.lower() in utt.text.lower()
            if not addressed:
                return None
            grammatical, attribution, person = "second", "user", ""
        elif recent is not None and context.pronoun_subject(clause):
            # "he's training for a triathlon" after a turn that named one other person: about that person.
            person = context.resolve_pronoun(*recent, lambda w: _name_like(w) and w.lower() not in STOP, before=clause)
            speaker = wearer if utt.is_wearer else names.get(utt.speaker_name, "")
            if not person or (re.search(r"\b(?:i|me|my|mine)\b", clause, re.I) and not speaker):
                return None
            clause, reframed = context.name_pronoun(clause, person), context.RESOLVED
            if re.search(r"\b(?:i|me|my|mine)\b", clause, re.I):
                clause = render(clause, speaker, "first")  # "she offered me Thursdays" → "… offered Theo Thursdays"
            grammatical, attribution = "third", "third_party"
        else:
            m = _NAMED_SUBJECT.match(clause)
            if not m or m.group(1).split()[0] in _NOT_NAMES:
                return None
            grammatical = "third"
            if m.group(1).split()[0].lower() == wearer.lower():
                attribution, person = "user", ""
            else:
                attribution, person = "third_party", m.group(1)
            if _SPEAKER_WORD.search(clause):
                # "Dana is my sister": the speaker's words point at the speaker, who must be known.
                if not (wearer if utt.is_wearer else names.get(utt.speaker_name, "")):
                    return None

        kind, confidence, importance = _classify(clause)
        if kind == "relationship" and not _RELATION_FACT.search(clause):
            # "I took my kids to the park": a relative mentioned in passing, not a fact about the relation.
            kind, confidence, importance = _classify(clause, skip=("relationship",))
        if kind == "preference" and not _preference_is_predicate(clause):
            # "my love for dance", "lots of love": the word is a noun here, not the speaker's taste.
            kind, confidence, importance = _classify(clause, skip=("preference",))
        if (
            kind is None
            and (grammatical in ("first", "second") or reframed)
            and _plain_statement(clause, short_ok=reframed == context.POSSESSIVE)
        ):
            # Outside the lexicon of memorable kinds, a plain, well-formed statement about a person is still a
            # plausible fact: it waits in review, never accepted on this path alone.
            kind, confidence, importance = "other", GENERAL_STATEMENT, "low"
        if kind is None:
            return None
        flags: list[str] = []
        shape = claims.assess(clause, sentence=sentence, utterance=clean(utt.text), kind=kind)
        display_name = wearer if attribution == "user" else (person or "Someone")
        if grammatical == "second" and attribution == "third_party":
            content = render(clause, person, "second", speaker=wearer)
            relation = _MY_RELATION.search(clause)
            if kind == "relationship" and relation:
                # "Ada, you're my only sister": the wearer's own relation, a fact about the wearer (the extractor
                # adds the mirror fact about the other person, see _relation_twin).
                content = f"{wearer}'s {relation.group(0)[3:]} is {person}."
                flags.append(f"{RELATION_FLAG}{person}")
                attribution, person, display_name = "user", "", wearer
        else:
            speaker = wearer if utt.is_wearer else names.get(utt.speaker_name, "")
            content = (
                render(clause, display_name, grammatical, speaker=speaker, addressee=addressee)
                if grammatical != "third"
                else render(clause, speaker, "first")
                if _SPEAKER_WORD.search(clause)
                else _sentence(clause)
            )
        name_tokens = {w.lower() for w in display_name.split()}
        short_ok = kind in _SELF_STATEMENT_KINDS and claims.has_finite_verb(clause)
        if len(_content_tokens(content) - name_tokens) < (1 if short_ok else 2):
            return None  # "Wendell is vegan" says something; "Wendell is going" does not

        # Who "I" is, known for sure: the wearer (device flag, not a guess), or a speaker the provider named or
        # who introduced themselves. A name only inferred from how others address them is weaker.
        sure_speaker = (utt.is_wearer and not wearer_guess) or (
            not utt.is_wearer and attribution == "third_party" and utt.speaker_name in getattr(names, "sure", ())
        )
        durable = utt.is_wearer or kind in _DURABLE_KINDS or (kind == "work" and _ROLE_STATEMENT.match(clause))
        if (
            grammatical == "first"
            and sure_speaker
            and durable
            and kind in _SELF_STATEMENT_KINDS
            and " we" not in f" {clause.lower()}"
        ):
            # Someone saying it about themselves, plainly: the strongest evidence a transcript gives.
            confidence = max(confidence, 0.9)
        if (
            grammatical == "first"
            and kind in ("plan", "commitment")
            and sure_speaker
            and not re.match(r"^(we|we're|we've|we'll|our)\b", clause, re.IGNORECASE)
            and _SPECIFIC_DATE.search(clause)
        ):
            # A speaker's own plain plan pinned to a calendar date is specific, not small talk ("I'll be back
            # tonight"); every doubt signal below (hedge, hypothetical, cancelled later, laughter) still applies.
            confidence = max(confidence, _SPECIFIC_CONFIDENCE)
            flags.append("specific date")
        if _OPINION_LEAD.match(clause):
            flags.append("the speaker's opinion")  # "I feel it's important to…": review at most (ceiling below)
        if _HYPOTHETICAL.search(clause):
            confidence *= 0.3
            flags.append("hypothetical")
        if kind == "preference" and _VAGUE_OBJECT.search(clause):
            confidence *= 0.6
            flags.append("vague object")
        if _parallel_banter(clause, utt.text):
            confidence *= 0.5
            flags.append("parallel banter")
        if _HEDGE.search(clause):
            confidence *= 0.6
            flags.append("hedged")
        if _SARCASM.search(clause) or _SARCASM.search(sentence or clause) or _SARCASM.match(clean(utt.text)):
            confidence *= 0.4
            flags.append("sarcasm marker")
        if _REPORTED.search(clause):
            confidence *= 0.5
            flags.append("reported speech")
        if _NEGATED_PLAN.search(clause) and kind in ("plan", "commitment"):
            confidence *= 0.5
            flags.append("negated plan")
        if grammatical == "second":
            confidence *= 0.92
        if grammatical == "third":
            confidence *= 0.85
        if attribution == "unknown":
            confidence *= 0.6
            flags.append("speaker not identified")
        if wearer_guess and grammatical in ("first", "third"):
            # The device only guessed which voice is the wearer's: "I" may be somebody else.
            confidence *= 0.8
            flags.append("wearer uncertain")
        if grammatical == "first" and re.match(r"^(we|we're|we've|we'll|our)\b", clause, re.IGNORECASE):
            confidence *= 0.85
        ceiling, ceiling_reason = (
            ("pending_review", "a plain statement outside the memorable kinds")
            if (kind == "other" and confidence == GENERAL_STATEMENT)
            else ("", "")
        )
        if attribution == "third_party" and grammatical == "first" and not sure_speaker:
            # Named only from how others address them: plausible, never certain enough to accept alone.
            confidence = min(confidence, UNSURE_SPEAKER_CAP)
            ceiling, ceiling_reason = "pending_review", "speaker named only by how others address them"
        if attribution == "unknown":
            ceiling, ceiling_reason = "pending_review", "speaker not identified"
        if reframed and ceiling != "dropped":
            ceiling, ceiling_reason = "pending_review", reframed
        elif _OPINION_LEAD.match(clause) and ceiling != "dropped":
            ceiling, ceiling_reason = "pending_review", "the speaker's opinion"
        if shape is not None:
            cap = NOT_A_CLAIM if shape.verdict == claims.DROP else PLAUSIBLE_CAP
            confidence = min(confidence, cap)
            flags.append(f"{NOT_A_CLAIM_FLAG}{shape.reason}" if shape.verdict == claims.DROP else shape.reason)
            if shape.verdict == claims.DROP or not ceiling:
                ceiling = "dropped" if shape.verdict == claims.DROP else "pending_review"
                ceiling_reason = shape.reason
        subject = "user" if attribution == "user" else (f"person:{person}" if person else "unknown")
        predicate_words = [w for w in re.findall(r"[a-z']+", clause.lower()) if w not in STOP][:2]
        return Candidate(
            subject=subject,
            predicate=f"{kind}:{'_'.join(predicate_words) or 'statement'}",
            args=sorted(_content_tokens(content) - {display_name.lower()}),
            content=content,
            kind=kind,
            importance=importance,
            extraction_confidence=confidence,
            capture_confidence=1.0,
            attribution=attribution,
            person=person,
            flags=flags,
            ceiling=ceiling,
            ceiling_reason=ceiling_reason,
        )


_RELATION_FACT = re.compile(
    r"\b(?:married|engaged|divorc\w*|dating|widow\w*)\b|^(?:my|our) [\w -]{2,30}? (?:is|are|was|were|'s|lives?|works?|"
    r"moved|has|have|had|just|got|turned|passed)\b|\bmy (?:\w+ )?(?:sister|brother|mom|mother|dad|father|husband|wife|"
    r"partner|son|daughter|aunt|uncle|cousin|grand\w+)'s\b|"
    r"\b(?:have|has|had|got|'ve|is|are|'m|'s|'re|am|was|were) (?:got )?(?:a |an |"
    r"two |three |four |five |\d+ |my |no |one |twin )?(?:\w+ )?(?:sister|brother|mom|mother|dad|father|husband|wife|partner|"
    r"boyfriend|girlfriend|fianc\w*|sons?|daughters?|kids?|children|cousins?|aunts?|uncles?|grand\w+|best friend|"
    r"roommates?|nieces?|nephews?|twins?|siblings?)\b",
    re.IGNORECASE,
)
_PRONOUN_HEAD = re.compile(r"\b(?:i'm|you're|we're|he's|she's|they're|i am|you are)\s+(\w+(?:\s+\w+)?)", re.IGNORECASE)


_OPINION_LEAD = re.compile(r"^(?:i|we)\s+(?:really\s+|just\s+|still\s+)?(?:feel|felt|think|believe|guess)\b", re.I)


def _parallel_banter(clause: str, utterance: str) -> bool:
    """ "I'm allergic to cats, you're allergic to cats": the same predicate tossed between pronouns is banter."""
    heads = [m.group(1).lower() for m in _PRONOUN_HEAD.finditer(utterance)]
    return len(heads) >= 2 and len(set(heads)) < len(heads)


_VAGUE_OBJECT = re.compile(
    r"\b(?:love|loves|like|likes|hate|hates|prefer|prefers)\s+(?:it|that|this|them|those|these|the one|one)\b",
    re.IGNORECASE,
)
_SELF_STATEMENT_KINDS = {"health", "identity", "preference", "relationship", "work", "place"}
# For other speakers only durable statements are boosted: what they are, not what they are doing right now
# ("I'm in the car", "I'm writing up the spec").
_DURABLE_KINDS = {"health", "identity", "preference", "relationship"}
_ROLE_STATEMENT = re.compile(
    r"^(?:i'm|i am|i was) (?:a|an|the|\w+'s) |^i (?:work|worked) (?:as|at|for|in)\b", re.IGNORECASE
)


_MY_RELATION = re.compile(
    r"\bmy (?:only |little |big |older |younger |best |oldest |youngest )?(?:sister|brother|mom|mother|dad|father|"
    r"husband|wife|partner|boyfriend|girlfriend|fianc\w*|son|daughter|cousin|aunt|uncle|grand\w+|friend|roommate|"
    r"niece|nephew|twin|godmother|godfather|stepmother|stepfather|stepsister|stepbrother)\b",
    re.IGNORECASE,
)


RELATION_FLAG = "relation of "


def _relation_twin(cand: Candidate, wearer: str) -> Candidate | None:
    """A relation is a fact about both people: "Maya's only sister is Ada" also files "Ada is Maya's only
    sister" under Ada."""
    other = next((f[len(RELATION_FLAG) :] for f in cand.flags if f.startswith(RELATION_FLAG)), "")
    if not other:
        return None
    head = f"{wearer}'s "
    relation, _, _ = cand.content[len(head) :].partition(" is ")
    content = f"{other} is {wearer}'s {relation}."
    return replace(
        cand,
        subject=f"person:{other}",
        attribution="third_party",
        person=other,
        content=content,
        args=sorted(_content_tokens(content) - {other.lower()}),
        flags=list(cand.flags),
    )


def _sentence(clause: str) -> str:
    clause = clause.strip(" ,.")
    return clause[:1].upper() + clause[1:] + "."


_NOT_BEFORE_TASTE = re.compile(
    r"\b(?:of|for|in|about|with|and|that|how|when|the|a|an|lots|my|your|his|her|our|their|its|to|share|give|"
    r"gave|show|showed|send|sent)\s*$",
    re.IGNORECASE,
)


_TASTE_STATE = re.compile(r"^(?:vegetarian|vegan|pescatarian|gluten|sober)$", re.IGNORECASE)
_COPULA_END = re.compile(
    r"\b(?:am|'m|is|'s|are|'re|was|were|been|be|became|become|went|stayed|eat|eats|ate)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)


def _preference_is_predicate(clause: str) -> bool:
    """The taste word is the clause's predicate ("I've always loved sailing", "I'm vegan", "my favourite dish is"),
    not a noun further on ("share my love", "lots of love")."""
    pattern = next(p for k, p, _, _ in _KIND_RULES if k == "preference")
    m = pattern.search(clause)
    if not m:
        return False
    prefix = clause[: m.start()]
    if re.search(r"\bmy\s*$", prefix, re.IGNORECASE) and m.group(0).lower().startswith("favo"):
        return True
    if _TASTE_STATE.match(m.group(0)):
        # "vegan", "gluten", "sober" describe the subject only after a copula: "I'm vegan", "I've been sober".
        return bool(_COPULA_END.search(prefix))
    return len(prefix.split()) <= 5 and not _NOT_BEFORE_TASTE.search(prefix)


def _classify(clause: str, skip: tuple[str, ...] = ()) -> tuple[str | None, float, str]:
    for kind, pattern, confidence, importance in _KIND_RULES:
        if kind in skip:
            continue
        if pattern.search(clause):
            return kind, confidence, importance
    if _LIFE_EVENT.search(clause):
        return "plan", 0.75, "normal"
    if _COMMITMENT.search(clause) and _TIME.search(clause):
        return "commitment", 0.85, "normal"
    if _PLAN.search(clause) and _TIME.search(clause):
        return "plan", 0.68, "normal"
    if _HABIT.search(clause):
        # "I've been swimming every morning", "I just started doing pilates": an ongoing habit or routine.
        return "other", 0.75, "normal"
    if _PROGRESSIVE.search(clause) and _SPECIFIC_DATE.search(clause):
        # "I'm driving up to Duluth on August 3rd": any arrangement pinned to a calendar date.
        return "plan", 0.68, "normal"
    return None, 0.0, "low"


_HABIT = re.compile(
    r"^(?:i've|i have|we've|he's|she's)\s+(?:(?:just|recently|finally|also|really)\s+)?been\s+(?!thinking|wondering|"
    r"waiting|meaning|trying|looking|dying|going back)\w{3,}ing\b|^(?:i|we|he|she)\s+(?:just\s+|recently\s+)?"
    r"(?:started|began|took up|picked up)\s+\w{3,}",
    re.IGNORECASE,
)
_PROGRESSIVE = re.compile(r"\b(?:i'm|i am|we're|we are|he's|she's)\s+(?:\w+ly\s+)?\w{3,}ing\b", re.IGNORECASE)


def _capture_confidence(raw: str, cleaned: str) -> float:
    """How well the device seems to have heard this utterance: fillers, stutters and fragments lower it."""
    raw_words = max(len(raw.split()), 1)
    lost = max(raw_words - len(cleaned.split()), 0) / raw_words
    conf = 0.95 - 0.5 * lost
    if len(cleaned.split()) < 4:
        conf -= 0.1
    return round(max(0.3, min(conf, 0.95)), 3)
