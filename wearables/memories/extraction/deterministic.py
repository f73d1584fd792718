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

from wearables.memories.extraction.base import (
    Candidate,
    ConversationIn,
    DayInput,
    Evidence,
    ExtractionResult,
    Extractor,
    UtteranceIn,
)
from wearables.memories.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection

# --- cleanup ------------------------------------------------------------------------------------------
# "er" only in lower or sentence case: an upper-case "ER" is an acronym (the emergency room), not a filler.
_FILLERS = re.compile(r"(?<![\w'])(?:um+|uh+|(?-i:[Ee]r+m?)|hmm+|mm+|ah+)(?![\w'])[,.]?\s*", re.IGNORECASE)
_LIKE_FILLER = re.compile(r",\s*like,\s*|\blike,\s+|,\s*like\s+(?=\w)", re.IGNORECASE)
_STUTTER = re.compile(r"\b(\w+(?:'\w+)?)(?:[,\s]+\1\b)+", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_LIKE_NUMBER = re.compile(
    r"\blike\s+(?=(?:a |an )?(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|a few|a couple|half)\b)",
    re.IGNORECASE,
)


def clean(text: str) -> str:
    text = _ABBREV.sub(lambda m: m.group(1) + " ", text or "")
    text = _FILLERS.sub("", text)
    text = _LIKE_FILLER.sub(" ", text)
    # Repeated words are stutters, but digits read one by one ("1 1 0 4") must survive unchanged.
    text = _STUTTER.sub(lambda m: m.group(0) if m.group(1).isdigit() else m.group(1), text)
    text = _DISCOURSE.sub(" ", text)
    text = _LIKE_NUMBER.sub("", text)
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    text = re.sub(r"^[,.\s]+", "", text)
    return _SPACES.sub(" ", text).strip()


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_CLAUSE = re.compile(
    r"[;:]\s+|,\s+(?=(?:so|and|but|because|which|though)\b)|,\s+(?=(?:i|i'm|i've|i'll|my|we|we're|you're|you'll)\b)",
    re.IGNORECASE,
)
_ABBREV = re.compile(r"\b(St|Dr|Mr|Mrs|Ms|Mt|Jr|Sr|Prof)\.\s", re.IGNORECASE)
_DISCOURSE = re.compile(
    r"(?:^|(?<=[,.!?]\s))(?:i mean|you know|i know|like),?\s+|,\s*(?:you know|i mean),?", re.IGNORECASE
)
_LEAD = re.compile(
    r"^(?:(?:so|and|but|because|which|though|oh|okay|ok|yeah|yes|no|well|honestly|anyway|also|actually|"
    r"right|sure|plus|then)\b[,\s]*)+",
    re.IGNORECASE,
)
_TRAILING_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+$")
_QUOTED = re.compile(r"[\"“”][^\"“”]*[\"“”]")


_CONDITION = re.compile(r"\b(?:if|unless|assuming|provided|in case|once)\b", re.IGNORECASE)


def clauses(text: str) -> list[tuple[str, bool]]:
    """Split into clauses; returns (clause, is_question). Quoted speech is removed (it is somebody else's)."""
    return [(part, question) for part, question, _ in clauses_with_context(text)]


def clauses_with_context(text: str) -> list[tuple[str, bool, bool]]:
    """(clause, is_question, is_conditional): a clause whose sentence opened with a condition ("so if it goes
    through, I'm moving in on the twentieth") is conditional even though the split dropped the "if"."""
    out = []
    for sentence in _SENTENCE.split(text):
        question = sentence.rstrip().endswith("?")
        sentence = _QUOTED.sub(" ", sentence)
        conditional = False
        for part in _CLAUSE.split(sentence):
            part = _LEAD.sub("", part.strip())
            part = _TRAILING_VOCATIVE.sub("", part.strip(" ,.!")).strip(" ,.!")
            if part and out and is_time_fragment(part) and not out[-1][1]:
                # "I'm coming to Tulsa. The ninth to the twelfth.": a verbless date completes the clause before.
                prev, prev_q, prev_cond = out[-1]
                part = part[:1].lower() + part[1:] if part[:4].lower() == "the " else part
                out[-1] = (f"{prev}, {part}", prev_q or question, prev_cond)
                continue
            if part:
                out.append((part, question, conditional))
                if _CONDITION.search(part):
                    conditional = True
    return out


_TIME_WORDS = set(
    """the to from on at until till through thru and of a in by around about between
    morning evening night noon afternoon midnight am pm a.m p.m o'clock half quarter past
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays
    sundays january february march april may june july august september october november december
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty first second third fourth fifth sixth seventh eighth ninth tenth
    eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth
    next this week weekend month""".split()
)
_DATE_ANCHOR = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|"
    r"august|september|october|november|december|\d{1,2}(?:st|nd|rd|th)?|\w+(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)


def is_time_fragment(text: str) -> bool:
    """A verbless run of date and time words ("Saturday the twentieth", "the 9th to the 12th", "July 4")."""
    words = re.findall(r"[a-z0-9.:'-]+", text.lower())
    if not words or len(words) > 10:
        return False
    ok = all(
        w.strip(".") in _TIME_WORDS or re.fullmatch(r"\d{1,4}(?:st|nd|rd|th)?|\d{1,2}:\d{2}|[a-z]+-[a-z]+", w)
        for w in words
    )
    return ok and bool(_DATE_ANCHOR.search(text))


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
            r"\b(work(?:s|ed|ing)? (?:at|as|for|in|on|nights|days)|my job|(?:a|an|the|as)\s+(?:[\w-]+\s+){0,2}(?:designer|engineer|"
            r"developer|nurse|teacher|doctor|dentist|lawyer|director|manager|lead|founder|contractor|consultant|"
            r"recruiter|agent|chef|musician|professor|student|intern|treasurer|secretary|president|chair|coordinator|"
            r"administrator|supervisor|owner|accountant|architect|electrician|plumber|mechanic|paramedic|attorney|analyst|"
            r"editor|writer|journalist|photographer|pilot|firefighter|officer|librarian|pastor|barista|bartender|"
            r"cashier|driver|carpenter|programmer|technician|surgeon|physician|midwife|principal|coach|tutor|trainer|"
            r"instructor|veterinarian|pharmacist|therapist|\w+ologist|\w+ician)\b|hired|promot\w*|retir\w*|parental leave|"
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
_CANCEL = re.compile(
    r"\b(cancel\w*|call(?:ed)? (?:it )?off|can't make it|can't do|not happening|never ?mind|scratch that|"
    r"push(?:ed)? it|postpon\w*|reschedul\w*|rain check|is off|'s off|instead|moved (?:it|the \w+) to|"
    r"not anymore|no longer|change of plans?|let's push)\b",
    re.IGNORECASE,
)

_FIRST_PERSON = re.compile(
    r"^(i|i'm|i am|i've|i have|i'll|i will|i was|my|we|we're|we've|we'll|we were|our)\b", re.IGNORECASE
)
_SECOND_PERSON = re.compile(r"^(you're|you are|you'll|you will|you've|you have|you were|your)\b", re.IGNORECASE)
_NAMED_SUBJECT = re.compile(
    r"^([A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:'s| is| has| was| will| works| lives| moved| got| starts| started| "
    r"just| finally| already)\b"
)
_NOT_NAMES = set(
    """I The This That It There Here What When Where Why How Okay Ok Yes No Yeah Oh So And But Well Sure Thanks
Thank Hi Hey Bye Good Great Cool Nice Right Wait Also Just Then Now Today Tomorrow Tonight Everyone Everybody
Nobody Someone Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
July August September October November December Mom Dad Mommy Daddy Honestly Actually Anyway Fine Perfect
Love Sorry Please Let Ugh Ha Wow God Congrats Congratulations Sounds Same Pretty Still Whatever Which Who
He She They We You It Its Careful Everything Nothing Something Somebody Anything Lots Guess Maybe Probably
Wow Whoa Aw Oops Yay Nope Yep Dude Man Honey Babe Sweetie Hello Hmm Mm Um Uh Ooh Ahh Ah Eh Huh
Definitely Totally Seriously Literally Basically Exactly Almost Never Always Sometimes Once Last Next First""".split()
)
_KIN_VOCATIVES = {
    "mom": "mother",
    "mommy": "mother",
    "mum": "mother",
    "mama": "mother",
    "ma": "mother",
    "dad": "father",
    "daddy": "father",
    "papa": "father",
    "grandma": "grandmother",
    "grandpa": "grandfather",
}
_GENERIC_LABEL = re.compile(
    r"^(?:unknown(?: speaker)?|user|speaker[ _]?\d+|\d+|speaker|guest|other|you|me)$", re.IGNORECASE
)
_VOCATIVE_LEAD = re.compile(r"(?:^|[.!?]\s+)([A-Z][a-z]+)[,!]")
_VOCATIVE_TAIL = re.compile(r",\s*([A-Z][a-z]+)[.!?]*(?=\s|$)")
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)"
# A speaker naming themselves: "it's Hannah", "this is Tom Brennan, returning your call", "my name is Ana".
_SELF_INTRO = re.compile(
    rf"(?:^|[.!?,]\s+|\b(?i:hi|hey|hello|yes|yeah|please)[,!]?\s+)(?i:it's|it is|this is|my name is|call me|i'm|i am)\s+"
    rf"{_TITLE}?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b(?!')"
)
# The wearer greeting or thanking someone by name, titles allowed: "Hi Mr. Brennan", "thanks, Dr. Cho".
_GREETING = re.compile(rf"\b(?i:hi|hey|hello|thanks|thank you|bye|morning)[,!]?\s+{_TITLE}?([A-Z][a-z]+)\b")


def _content_tokens(text: str) -> set[str]:
    return {t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP and len(t) > 1}


def is_real_name(label: str) -> bool:
    label = (label or "").strip()
    return bool(label) and not _GENERIC_LABEL.match(label) and label[0].isupper()


# --- rendering ----------------------------------------------------------------------------------------
_BASE_VERBS = set(
    """love hate like prefer want need work live carry take eat drink run teach own have do go make play study
    know think feel drive walk swim read write cook manage lead""".split()
)


def _third_person_verb(word: str) -> str:
    lower = word.lower()
    if lower == "have":
        return "has"
    if lower == "do":
        return "does"
    if lower == "go":
        return "goes"
    if lower not in _BASE_VERBS:
        return word
    if lower.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def render(clause: str, name: str, person: str) -> str:
    """Rewrite a first/second-person clause in the third person about ``name``."""
    text = clause
    pairs = []
    if person == "first":
        pairs = [
            (r"\bI'm\b|\bI am\b", f"{name} is"),
            (r"\bI've\b|\bI have\b", f"{name} has"),
            (r"\bI'll\b|\bI will\b", f"{name} will"),
            (r"\bI'd\b", f"{name} would"),
            (r"\bI was\b", f"{name} was"),
            (r"\bwe're\b|\bwe are\b", f"{name} and others are"),
            (r"\bwe've\b", f"{name} and others have"),
            (r"\bwe'll\b", f"{name} and others will"),
            (r"\bwe\b", f"{name} and others"),
            (r"\bour\b", f"{name}'s"),
            (r"\bmyself\b", name),
            (r"\bmy\b", f"{name}'s"),
            (r"\bme\b", name),
        ]
    elif person == "second":
        pairs = [
            (r"\byou're\b|\byou are\b", f"{name} is"),
            (r"\byou've\b|\byou have\b", f"{name} has"),
            (r"\byou'll\b|\byou will\b", f"{name} will"),
            (r"\byou were\b", f"{name} was"),
            (r"\byour\b", f"{name}'s"),
            (r"\byou\b", name),
        ]
    for pattern, repl in pairs:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    if person == "first":
        text = re.sub(
            rf"\b{re.escape(name)} (\w+)",
            lambda m: f"{name} {_third_person_verb(m.group(1))}",
            re.sub(r"\bI\b", name, text),
            count=1,
        )
    text = text.strip(" ,.")
    return text[:1].upper() + text[1:] + "."


# --- the extractor ------------------------------------------------------------------------------------
class DeterministicExtractor(Extractor):
    ID = "deterministic"
    VERSION = "1.1"

    def extract(self, day: DayInput) -> ExtractionResult:
        result = ExtractionResult(extractor=self.ID, extractor_version=self.VERSION)
        wearer = (day.wearer_name or "The user").split()[0]
        later_texts = _later_texts(day.conversations)
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
        for clause, question, conditional in clauses_with_context(text):
            cand = self._from_clause(clause, question, utt, prev, nxt, wearer, names, wearer_guess=wearer_guess)
            if cand is not None:
                found.append((cand, conditional))
                twin = _relation_twin(cand, wearer)
                if twin is not None:
                    found.append((twin, conditional))
        qa = self._from_answer(conv, pos, utt, wearer, names)
        if qa is not None:
            found.append((qa, False))
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
            if cand.kind in ("plan", "commitment", "decision") and _cancelled_later(cand, later):
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
        rule = next((r for r in _QUESTIONS if r[0].search(question)), None)
        if rule is None:
            return None
        _, template, kind, importance = rule
        answer = _SENTENCE.split(clean(utt.text))[0].strip(" .!,")
        answer = _LEAD.sub("", answer).strip(" .!,")
        words = answer.split()
        if not words or len(words) > 6 or answer.endswith("?") or _ANSWER_NOT_NP.match(answer):
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

    def _from_clause(self, clause, question, utt, prev, nxt, wearer, names, wearer_guess=False) -> Candidate | None:
        if question or len(clause) < 8:
            return None
        if _FIRST_PERSON.match(clause):
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
        else:
            m = _NAMED_SUBJECT.match(clause)
            if not m or m.group(1).split()[0] in _NOT_NAMES:
                return None
            grammatical = "third"
            if m.group(1).split()[0].lower() == wearer.lower():
                attribution, person = "user", ""
            else:
                attribution, person = "third_party", m.group(1)

        kind, confidence, importance = _classify(clause)
        if kind is None:
            return None
        flags: list[str] = []
        display_name = wearer if attribution == "user" else (person or "Someone")
        if grammatical == "second" and attribution == "third_party":
            content = render(render(clause, person, "second").rstrip("."), wearer, "first")
            relation = _MY_RELATION.search(clause)
            if kind == "relationship" and relation:
                # "Ada, you're my only sister": the wearer's own relation, a fact about the wearer (the extractor
                # adds the mirror fact about the other person, see _relation_twin).
                content = f"{wearer}'s {relation.group(0)[3:]} is {person}."
                flags.append(f"{RELATION_FLAG}{person}")
                attribution, person, display_name = "user", "", wearer
        else:
            content = render(clause, display_name, grammatical) if grammatical != "third" else _sentence(clause)
        if len(_content_tokens(content) - {display_name.lower()}) < 2:
            return None

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
        if _SARCASM.search(clause) or _SARCASM.search(clean(utt.text)):
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
        )


_PRONOUN_HEAD = re.compile(r"\b(?:i'm|you're|we're|he's|she's|they're|i am|you are)\s+(\w+(?:\s+\w+)?)", re.IGNORECASE)


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


# Questions about the person answering, and how their short answer reads as a statement about them.
_QUESTIONS: list[tuple[re.Pattern, str, str, str]] = [
    (
        re.compile(
            r"\b(?:what do you do(?: for (?:work|a living))?|what's your (?:job|line of work)|what are you "
            r"doing these days for work)\b",
            re.IGNORECASE,
        ),
        "{name} works as {answer}.",
        "work",
        "normal",
    ),
    (
        re.compile(r"\b(?:date of birth|(?:when's|when is|what's) your (?:birthday|dob))\b", re.IGNORECASE),
        "{name}'s date of birth is {answer}.",
        "identity",
        "normal",
    ),
    (re.compile(r"\bwhere do you live\b", re.IGNORECASE), "{name} lives in {answer}.", "place", "normal"),
    (
        re.compile(r"\bwhere are you (?:from|originally from)\b", re.IGNORECASE),
        "{name} is from {answer}.",
        "identity",
        "normal",
    ),
    (re.compile(r"\bwhere do you work\b", re.IGNORECASE), "{name} works at {answer}.", "work", "normal"),
    (re.compile(r"\bhow old are you\b", re.IGNORECASE), "{name} is {answer} years old.", "identity", "normal"),
]
_ANSWER_NOT_NP = re.compile(
    r"^(?:i|i'm|i am|i don't|you|we|it's|it is|that's|no idea|not sure|why|what|who|nothing|none|none of|"
    r"same|guess|ha|haha|ew|hmm|uh|um)\b",
    re.IGNORECASE,
)

_KIN = (
    r"(?:husband|wife|partner|boyfriend|girlfriend|fianc\w*|sister|brother|mom|mother|dad|father|son|daughter|"
    r"cousin|aunt|uncle|grandmother|grandfather|grandma|grandpa|niece|nephew|roommate|best friend|boss)"
)
_INTRODUCTION = re.compile(
    rf"\b(?i:this is|meet|that's|here's)\s+(?:(?P<name1>[A-Z][a-z]+)[.,]\s+(?i:my|our)\s+(?P<rel1>(?i:{_KIN}))\b|"
    rf"(?i:my|our)\s+(?P<rel2>(?i:{_KIN})),?\s+(?P<name2>[A-Z][a-z]+)\b)"
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


def _addressee(text: str, wearer: str) -> str:
    cleaned = clean(text)
    for pattern in (_VOCATIVE_LEAD, _VOCATIVE_TAIL):
        for m in pattern.finditer(cleaned):
            name = m.group(1)
            if name not in _NOT_NAMES and name.lower() != wearer.lower():
                return name
    return ""


def _sentence(clause: str) -> str:
    clause = clause.strip(" ,.")
    return clause[:1].upper() + clause[1:] + "."


def _classify(clause: str) -> tuple[str | None, float, str]:
    for kind, pattern, confidence, importance in _KIND_RULES:
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


class SpeakerNames(dict):
    """label -> person name; ``sure`` holds the labels named by the provider or by the speaker themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.sure: set[str] = set()


SELF_INTRO_WEIGHT = 5


def _resolve_speakers(conv: ConversationIn, wearer: str) -> SpeakerNames:
    """Map each non-wearer speaker label to a person name: the provider's name when it has one, else the name
    they give themselves ("it's Hannah"), else the name the wearer calls them by (a vocative or greeting in the
    wearer's turn right before or after theirs)."""
    votes: dict[str, dict[str, int]] = {}
    names = SpeakerNames()
    intros: dict[str, set[str]] = {}
    utts = conv.utterances
    # Words used as places in this conversation ("lock in Lisbon", "back from Tulsa") are not people's names.
    places = {m.group(1) for u in utts for m in _PLACE_USE.finditer(clean(u.text))}
    for i, utt in enumerate(utts):
        if utt.is_wearer:
            continue
        if is_real_name(utt.speaker_name):
            names[utt.speaker_name] = utt.speaker_name
            names.sure.add(utt.speaker_name)
            continue
        introduced = {g for m in _INTRODUCTION.finditer(clean(utt.text)) for g in (m.group("name1"), m.group("name2"))}
        for m in _SELF_INTRO.finditer(clean(utt.text)):
            name = m.group(1)
            if name in introduced:
                continue  # "This is Marcus. My husband.": introducing someone else, not themselves
            if name.split()[0] not in _NOT_NAMES and name.split()[0].lower() != wearer.lower():
                # Naming yourself is the strongest cue a transcript gives.
                votes.setdefault(utt.speaker_name, {}).setdefault(name, 0)
                votes[utt.speaker_name][name] += SELF_INTRO_WEIGHT
                intros.setdefault(utt.speaker_name, set()).add(name)
        for j in (i - 1, i + 1):
            if 0 <= j < len(utts) and utts[j].is_wearer:
                text = clean(utts[j].text)
                # A trailing vocative ("..., Petra!") is a safer name than a leading word.
                found = [(m.group(1), 1) for m in _VOCATIVE_LEAD.finditer(text)]
                found += [(m.group(1), 2) for m in _VOCATIVE_TAIL.finditer(text)]
                found += [(m.group(1), 2) for m in _GREETING.finditer(text)]
                for name, weight in found:
                    kin = _KIN_VOCATIVES.get(name.lower())
                    if kin:
                        name, weight = f"{wearer}'s {kin}", weight + 1
                    if (kin or (name not in _NOT_NAMES and name not in places)) and name.lower() != wearer.lower():
                        votes.setdefault(utt.speaker_name, {}).setdefault(name, 0)
                        votes[utt.speaker_name][name] += weight
    taken = set(names.values())
    for label, counts in votes.items():
        counts = _merge_name_parts(counts)
        best = max(counts.items(), key=lambda kv: kv[1])
        if best[0] not in taken:
            names[label] = best[0]
            taken.add(best[0])
            if best[0] in intros.get(label, set()):
                names.sure.add(label)
    return names


_PLACE_USE = re.compile(
    r"\b(?:in|from|into|near|visiting|around|through|outside|downtown|flights? to|trip to|move to|moving to|"
    r"fly(?:ing)? to|drive to|driving to)\s+([A-Z][a-z]+)\b(?!')"
)


def _merge_name_parts(counts: dict[str, int]) -> dict[str, int]:
    """ "Tom Brennan" (self-introduction) and "Brennan" (greeting "Hi Mr. Brennan") are one person: fold a single
    word into the full name that contains it."""
    merged = dict(counts)
    for name in counts:
        if " " in name:
            continue
        for full in counts:
            if full != name and name in full.split():
                merged[full] += merged.pop(name, 0)
                break
    return merged


def _later_texts(conversations: list[ConversationIn]) -> list[tuple[int, int, str]]:
    out = []
    for ci, conv in enumerate(conversations):
        for pos, utt in enumerate(conv.utterances):
            out.append((ci, pos, clean(utt.text)))
    return out


def _cancelled_later(cand: Candidate, later: list[str]) -> bool:
    """A plan is doubtful when a later utterance the same day cancels or moves something sharing its terms."""
    name = cand.content.split()[0].lower().strip("'s")
    key_terms = {t for t in _content_tokens(cand.content) if len(t) > 3 and t != name}
    for text in later:
        if _CANCEL.search(text) and key_terms & _content_tokens(text):
            return True
    return False
