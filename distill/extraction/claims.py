"""Is this clause a claim at all? Syntactic cues that separate durable statements from talk that only looks like one.

``assess(clause, sentence=..., utterance=...)`` returns ``None`` for a plain declarative claim, or a ``Shape`` with a
verdict and a reason:

- ``DROP`` (never accepted, never queued): figurative or joking speech (hyperbole markers: "this commute is
  killing me", "I could eat a horse", "a million times"), fragments with no finite verb ("Her sister's
  wedding."), passing actions (progressive aspect with a momentary marker, or a plan for the next hours),
  small offers and pleasantries (first-person volition with the listener as recipient: "I'll send you one of
  those"), claims whose object is a bare pronoun nobody resolved ("I'll tie them back"), questions (also
  indirect and tag questions without a question mark), counterfactual hypotheticals, quotes of media.
- ``REVIEW`` (plausible, less certain): a preference about a demonstrative object ("I hate this weather": about
  the moment, not a lasting taste), an ongoing activity with no durable marker, media mentioned nearby.

Every cue is about the shape of the sentence (tense and aspect, clause shape, pronoun objects, modal and offer
patterns, hyperbole markers); none names a person, place or topic. Part-of-speech readings come from
lemminflect's English lexicon (no model download).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lemminflect import getAllLemmas

DROP = "drop"
REVIEW = "review"


@dataclass(frozen=True)
class Shape:
    verdict: str  # DROP | REVIEW
    reason: str


@lru_cache(maxsize=8192)
def readings(word: str) -> frozenset[str]:
    """Universal POS tags a word can have ("wedding" → NOUN, VERB)."""
    return frozenset(getAllLemmas(word.lower()))


_WORDS = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|\d+")

# --- questions ------------------------------------------------------------------------------------------
_INDIRECT_QUESTION = re.compile(
    r"\b(?:wonder(?:ing)?|not sure|no idea|don't know|do not know|can't remember|trying to figure out|asking)\s+"
    r"(?:if|whether|what|how|why|when|where|who|which)\b",
    re.IGNORECASE,
)
_TAG_QUESTION = re.compile(
    r"(?:,\s*(?:right|correct|yeah|no|huh|or not|or what)|\b(?:isn't|aren't|don't|doesn't|didn't|won't|haven't|"
    r"hasn't|wasn't|weren't|can't|shouldn't)\s+(?:it|you|i|we|they|he|she|there))\s*[?.!]*$",
    re.IGNORECASE,
)
_INVERTED = re.compile(
    r"^(?:(?:what|where|when|why|how|who|which)\s+)?(?:do|does|did|are|is|was|were|have|has|can|could|will|would|"
    r"should|shall|may|am)\s+(?:you|i|we|they|he|she|it)\b",
    re.IGNORECASE,
)

# --- hypotheticals (counterfactual, not open conditions) ------------------------------------------------------
_COUNTERFACTUAL = re.compile(
    r"\b(?:would|wouldn't|i'd|we'd|you'd|could|wish|imagine|imagining|suppose|supposing|pretend|what if|if only|"
    r"someday|one day|in theory|in another life|if (?:i|you|we) (?:were|had|won)|dream(?:ing)? of|fantasi[sz]e)\b",
    re.IGNORECASE,
)

# --- figurative speech ------------------------------------------------------------------------------------
_HYPERBOLE = re.compile(
    r"\b(?:is|are|'s|'re|was|were|been|keeps?)\s+(?:\w+ly\s+|just\s+|slowly\s+)?(?:killing|murdering|destroying|"
    r"torturing|eating|draining|drowning|crushing)\s+(?:me|us)\b"
    r"|\b(?:kill|killed|murder|shoot)\s+me\b"
    r"|\b(?:i'm|i am|we're|i was)\s+(?:so\s+|literally\s+|actually\s+|totally\s+)?(?:dead|dying|starving|"
    r"freezing|melting|drowning|exploding)\b(?!\s+(?:of|from|in the hospital)\b)"
    r"|\bi could (?:die|kill|murder|eat an? \w+|sleep for)\b"
    r"|\bliterally\b"
    r"|\b(?:a|one) (?:million|billion|thousand|zillion|gazillion|hundred) (?:times|years|things|hours|miles)\b"
    r"|\bthe (?:best|worst|greatest) \w+ (?:ever|in the world|of all time)\b"
    r"|\b(?:to death|out of my mind|over the moon|losing my mind|lose my mind|the death of me|end of the world|"
    r"through the roof|on cloud nine|in a million years|for like ever|forever and ever)\b"
    r"|\bmy (?:brain|head|heart) (?:is|'s|was) (?:fried|exploding|spinning|melting|breaking|mush)\b"
    r"|\bmeans? (?:the world|everything)\b"
    r"|\b(?:i|we|you|he|she|they)\s+(?:basically|practically|virtually|pretty much)\s+(?:live|lives|living|"
    r"sleep|breathe|worship)\b"
    r"|\b(?:gonna|going to) die\b|\bto die for\b|\bdying to\b|\bever again\b"
    r"|\bdrives? (?:me|us) (?:crazy|nuts|insane|mad|up the wall)\b",
    re.IGNORECASE,
)

# --- media quotes -----------------------------------------------------------------------------------------
# A media noun, not the same word as a verb ("we didn't book anything", "I'll play the cello").
_NOT_AFTER_VERB_SLOT = r"(?<!\bto )(?<!\bi )(?<!\bwe )(?<!\byou )(?<!\bthey )(?<!'ll )(?<!n't )(?<!\bwill )(?<!\bcan )"
_MEDIA = re.compile(
    _NOT_AFTER_VERB_SLOT
    + r"\b(?:show|series|episode|season|sitcom|movie|film|trailer|book|novel|podcast|song|lyrics?|scene|character|"
    r"commercial|ad|meme|tv|cartoon|anime|play|musical|documentary|video)\b",
    re.IGNORECASE,
)
# "goes"/"went" quote only before the words ("and he goes, …"), never as motion ("I went to a fair").
_QUOTATIVE = re.compile(
    r"\b(?:(?:goes|went)(?=\s*[,:\"“])|was like|is like|'s like|were like|are like|says|said|yells|yelled|quote|"
    r"like in)\b",
    re.IGNORECASE,
)
_QUOTE_MARK = re.compile(r"[\"“”]")

# --- offers and pleasantries ----------------------------------------------------------------------------------
_VOLITION = r"(?:i'll|i will|i can|i could|let me|i'm gonna|i am gonna|i'm going to|i am going to|i'd be happy to|happy to|i'll just|i'll go)"
_OFFER = re.compile(
    rf"^{_VOLITION}\s+(?:\w+ly\s+|just\s+|also\s+)?\w+\s+(?:(?:it|that|this|them|one|some)\s+(?:to|for|with)\s+)?"
    rf"(?:you|ya|y'all)\b"
    rf"|^{_VOLITION}\b.*\b(?:for|to|with) (?:you|ya|y'all)\b",
    re.IGNORECASE,
)
_VAGUE_OBJECT = re.compile(
    r"\b(?:one of (?:those|these|them|mine)|some of (?:those|these|them)|a couple of (?:those|these|them)|"
    r"something|some|one)\s*[.!]?$",
    re.IGNORECASE,
)

_DEADLINE = re.compile(
    r"\b(?:by|on|before|until|next)\s+(?:the\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|\d{1,2}(?:st|nd|rd|th)?|"
    r"\w+(?:st|nd|rd|th)|end of (?:the )?(?:day|week|month)|week|month)\b",
    re.IGNORECASE,
)

# --- passing actions -----------------------------------------------------------------------------------------
_PROGRESSIVE = re.compile(
    r"\b(?:i'm|i am|we're|we are|you're|you are|he's|she's|they're)\s+(?:(?:just|still|only|really|also|"
    r"currently|now)\s+)*(\w+ing)\b",
    re.IGNORECASE,
)
_MOMENTARY = re.compile(
    r"\b(?:just|right now|real quick|quickly|for a (?:sec|second|minute|bit)|at the moment|on (?:my|our|the) way|"
    r"about to|in a (?:sec|second|minute|bit)|right back|as we speak|as we talk)\b",
    re.IGNORECASE,
)
# Within-the-day time words: a plan for the next hours is an errand, not a fact to keep.
_NEAR_TERM = re.compile(
    r"\b(?:tonight|later today|later(?! this| next| in| on)|this (?:afternoon|evening)|after (?:this|lunch|dinner|class)|"
    r"in a (?:bit|minute|sec|second|few minutes|couple (?:of )?minutes|while)|right now|at lunch|"
    r"for lunch|for dinner|real quick)\b",
    re.IGNORECASE,
)
_DURABLE_MARKER = re.compile(
    r"\b(?:these days|lately|every|each|always|usually|this (?:year|semester|season|term)|for a living|full[- ]time|"
    r"part[- ]time|since|for (?:\w+ )?(?:years|months|weeks)|nowadays|at the moment at|still)\b",
    re.IGNORECASE,
)
# Verbs whose progressive describes a state of life rather than a moment (-ing forms of general verbs).
_LIFE_STATE = re.compile(
    r"^(?:living|studying|training|expecting|retiring|moving|dating|adopting|renting|teaching|working|learning|"
    r"starting|joining|leaving|raising|recovering|volunteering|majoring|interning|coaching|running)$",
    re.IGNORECASE,
)
_PLAN_KIND = ("plan", "commitment", "decision")

# --- pronoun objects --------------------------------------------------------------------------------------------
_SUBJECT = re.compile(r"^(?:i|we|you|he|she|they|[A-Z][a-z]+)(?:'m|'re|'ve|'ll|'d|'s)?\s+", re.IGNORECASE)
_AUXILIARY = set(
    """am is are was were be been being have has had do does did will would can could shall should may might must
    don't doesn't didn't won't can't couldn't wouldn't shouldn't haven't hasn't hadn't isn't aren't wasn't weren't
    not never always just also still really even gonna wanna gotta going to usually often sometimes already
    definitely probably totally actually finally kinda sorta""".split()
)
_PRONOUN_OBJECTS = {"it", "them", "that", "this", "those", "these", "one", "ones", "him", "her", "some", "stuff"}
_PRONOUN_OBJECTS |= {"mine", "yours", "his", "hers", "ours", "theirs"}  # "I sprained mine twice"
# Verbs of feeling take an anticipatory "it" before a clause ("I love it when…"); other verbs' "it" is an object
# ("I sold it when I moved").
_EMOTIVE = re.compile(r"^(?:lov|lik|hat|enjoy|prefer|mind|appreciat|adore|dislik|can't stand)", re.IGNORECASE)
_PARTICLES = set("back up out off down in on over away around through along together again there here".split())
_COMPLEMENT_AFTER = set(
    """when that if how because to why where whether who what i you he she we they the a an my your his our their
    so as since""".split()
)
_DETERMINERS = set("a an the this that these those my your his her our their its some any no every each".split())
_ADJ_PREP = re.compile(r"^(?:\w+)\s+(?:to|of|at|with|about|for|on|in|from)$", re.IGNORECASE)


# Evaluative predicates: "X is awesome / the perfect mentor" says what the speaker thinks, not a fact about X.
_EVALUATIVE = re.compile(
    r"^(?:\w+(?:'s)?\s+){0,5}?\w*(?:\s+(?:is|are|was|were|looks?|sounds?|seems?)|'s|'re)\s+(?:so\s+|really\s+|just\s+|"
    r"definitely\s+|truly\s+|such\s+|totally\s+|absolutely\s+|pretty\s+)*(?:an?\s+|the\s+)?(?:awesome|amazing|"
    r"great|perfect|wonderful|incredible|inspiring|beautiful|gorgeous|lovely|brilliant|fantastic|cool|nice|sweet|"
    r"adorable|stunning|impressive|the best|a legend|a star|a genius|a rock ?star|a lifesaver|ok|okay|fine|alright|"
    r"all right|good|doing (?:well|good|great|okay|ok|fine)|the worst|terrible|hopeless|useless|a mess|a disaster)\b",
    re.IGNORECASE,
)
_PAST_PROGRESSIVE = re.compile(
    r"\b(?:i|we|you|he|she|they)\s+(?:was|were)\s+(?:just\s+|out\s+|still\s+|busy\s+)*(\w+ing)\b", re.IGNORECASE
)
# A preference about a particular thing or moment ("the yellow leaves", "how you paint", "this weather").
_AT_HAND = re.compile(
    r"\b(?:love[sd]?|hate[sd]?|like[sd]?|enjoy(?:s|ed)?|adore[sd]?|prefer(?:s|red)?)\s+(?:all\s+)?(?:the|this|that|"
    r"these|those|how|when|what|it|your|his|her|their|our)\b",
    re.IGNORECASE,
)


# Reported speech introduced by a quotative ("I was like, …", "and she goes, …"): the words are a performance.
_QUOTATIVE_BEFORE = re.compile(
    r"\b(?:was|were|is|am|'s|'m|'re|are)\s+(?:all\s+)?like,?\s*$|\b(?:goes|went|said|says)\s*,?\s*$", re.IGNORECASE
)


def _quoted_in_sentence(text: str, sentence: str) -> bool:
    at = sentence.find(text[: min(len(text), 24)])
    return at > 0 and bool(_QUOTATIVE_BEFORE.search(sentence[:at].rstrip(" ,")))


def assess(clause: str, *, sentence: str = "", utterance: str = "", kind: str = "") -> Shape | None:
    """The clause's claim shape; ``None`` when it reads as a plain declarative claim."""
    text = clause.strip()
    sentence = sentence or text
    utterance = utterance or sentence
    if _quoted_in_sentence(text, sentence):
        return Shape(DROP, "quoted speech")
    for check in (_question, _hypothetical, _figurative, _media_quote, _fragment, _offer, _pronoun_object, _opinion):
        reason = check(text, sentence, utterance)
        if reason:
            return Shape(DROP, reason)
    volunteered = re.match(rf"^{_VOLITION}\b", text, re.IGNORECASE)
    if volunteered and kind in ("", "other", *_PLAN_KIND) and not (_CALENDAR.search(text) or _DEADLINE.search(text)):
        # A volunteered action with no day at all ("I'll bring the chairs over"): a gesture, not a commitment.
        return Shape(DROP, "small offer or pleasantry")
    passing = _passing(text, kind)
    if passing:
        return passing
    if (kind == "preference" and re.search(r"\b(?:this|that|these|those)\s+[a-z]{3,}", text, re.IGNORECASE)) or (
        _AT_HAND.search(text)
    ):
        return Shape(REVIEW, "about something at hand, not a lasting preference")
    if _MEDIA.search(utterance) and kind not in ("work", "health"):
        return Shape(REVIEW, "media mentioned nearby")
    return None


def _question(text: str, sentence: str, utterance: str) -> str:
    if text.rstrip().endswith("?") or _INVERTED.match(text) or _TAG_QUESTION.search(text):
        return "question"
    if _INDIRECT_QUESTION.search(text):
        return "question"
    return ""


def _hypothetical(text: str, sentence: str, utterance: str) -> str:
    return "hypothetical" if _COUNTERFACTUAL.search(text) else ""


def _figurative(text: str, sentence: str, utterance: str) -> str:
    return "figurative or joking speech" if _HYPERBOLE.search(sentence) or _HYPERBOLE.search(text) else ""


def _media_quote(text: str, sentence: str, utterance: str) -> str:
    if _MEDIA.search(utterance) and (_QUOTE_MARK.search(utterance) or _QUOTATIVE.search(utterance)):
        return "quote of media"
    return ""


def _fragment(text: str, sentence: str, utterance: str) -> str:
    if re.search(r"\bto\s*[.!]?$", text, re.IGNORECASE):
        return "fragment with no claim"  # "Yeah, I'd love to": the verb phrase is left to the question before
    if re.search(r"\s{2,}", text.strip()):
        return "fragment with no claim"  # quoted words were cut out ("I loved   as a kid"): the rest is no sentence
    return "" if has_finite_verb(text) else "fragment with no claim"


def has_finite_verb(text: str) -> bool:
    """True when the clause has a tensed verb: an auxiliary or modal, a verbal clitic ('m 're 've 'll 'd, or 's
    not used as a possessive), or a verb right after a subject pronoun or name."""
    words = _WORDS.findall(text)
    for i, w in enumerate(words):
        low = w.lower()
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if low in _AUXILIARY - {"not", "never", "always", "just", "also", "still", "really", "even"}:
            return True
        if re.search(r"'(?:m|re|ve|ll|d)$|n't$", low):
            return True
        if low.endswith("'s") and not _possessive(nxt, words[i + 2] if i + 2 < len(words) else ""):
            return True
        if low in ("i", "you", "we", "they", "he", "she") and nxt and _verb_after_subject(words, i + 1):
            return True
        if i > 0 and "VERB" in readings(low) and low.endswith(("ed", "s")) and low not in ("is", "was", "has"):
            prev = words[i - 1].lower()
            # "lease ends", "Tom works", "sister moved": a tensed form after a noun phrase (not "the ends").
            last = i == len(words) - 1
            if "NOUN" not in readings(low) or (not last and prev not in _DETERMINERS and _is_nominal(words[i - 1])):
                return True
        if i > 0 and _base_verb_on_object(words[i - 1], low, nxt):
            return True
    return False


def _base_verb_on_object(before: str, word: str, nxt: str) -> bool:
    """ "Long walks help me", "friends keep us sane": a plural noun phrase, a present verb, an object pronoun.
    Not an infinitive or an imperative ("to keep me", "please help me")."""
    if nxt.lower() not in ("me", "us", "them", "him") or "VERB" not in readings(word):
        return False
    before = before.lower()
    return before not in _DETERMINERS | {"to", "please", "let", "and", "or"} and _is_nominal(before)


def _verb_after_subject(words: list[str], j: int) -> bool:
    while j < len(words) and words[j].lower() in _AUXILIARY:
        j += 1
    return j < len(words) and "VERB" in readings(words[j])


def _possessive(nxt: str, after: str) -> bool:
    """ "sister's wedding" (possessive) vs "Tom's moving" / "she's a nurse" (is)."""
    if not nxt:
        return False
    tags = readings(nxt)
    if nxt.lower() in ("a", "an", "the", "not", "never", "been", "got", "gone", "going", "always", "just", "so"):
        return False
    if "NOUN" in tags and nxt.lower().endswith("ing"):
        # "wedding" closing the clause is a noun; "training for a race" is a verb.
        return not after or after.lower() not in ("for", "to", "at", "in", "on", "with", "a", "the", "my", "his", "her")
    return "NOUN" in tags and "ADJ" not in tags and not (tags & {"VERB"} and nxt.lower().endswith("ed"))


def _opinion(text: str, sentence: str, utterance: str) -> str:
    return "an opinion or compliment, not a fact" if _EVALUATIVE.match(text) else ""


def _offer(text: str, sentence: str, utterance: str) -> str:
    if re.match(rf"^{_VOLITION}\b", text, re.IGNORECASE) and _VAGUE_OBJECT.search(text):
        return "small offer or pleasantry"
    if _OFFER.search(text) and not _DEADLINE.search(text):
        # A promise to the listener pinned to a day ("the draft to you by Friday") is a commitment: kept.
        return "small offer or pleasantry"
    return ""


def _pronoun_object(text: str, sentence: str, utterance: str) -> str:
    """The predicate's first complement is a bare pronoun ("I'll tie them back", "I'm allergic to it")."""
    m = _SUBJECT.match(text)
    if not m:
        return ""
    words = _WORDS.findall(text[m.end() :])
    i = 0
    while i < len(words) and words[i].lower() in _AUXILIARY:
        i += 1
    if i >= len(words):
        return ""
    i += 1  # the main verb (or the adjective after a copula)
    if (
        i < len(words)
        and _ADJ_PREP.match(f"{words[i - 1]} {words[i]}")
        and words[i].lower()
        in (
            "to",
            "of",
            "at",
            "with",
            "about",
            "for",
            "on",
            "in",
            "from",
        )
    ):
        i += 1  # "allergic to", "afraid of"
    while i < len(words) and words[i].lower() in _PARTICLES:
        i += 1
    if i >= len(words):
        return ""
    obj = words[i].lower()
    after = words[i + 1].lower() if i + 1 < len(words) else ""
    if obj in ("you", "ya", "y'all") and len(words) - i <= 4:
        return "small offer or pleasantry"  # "I love you", "I'll miss you guys", "I owe you one"
    if obj not in _PRONOUN_OBJECTS:
        return ""
    if obj in ("mine", "yours", "hers", "ours", "theirs") or (
        obj in ("it", "them") and after in _COMPLEMENT_AFTER and not _EMOTIVE.match(words[i - 1])
    ):
        return "object is a pronoun nobody resolved"  # "I sprained mine twice", "I sold it when I moved"
    if after in _COMPLEMENT_AFTER and obj in ("it", "that", "this") and (obj != "it" or _EMOTIVE.match(words[i - 1])):
        return ""  # "I love it when…", "I hate that you…": the clause that follows is the object
    if obj in ("that", "this", "those", "these", "her", "some", "one") and after and _is_nominal(after):
        return ""  # a determiner: "that bakery", "her cooking", "one sister"
    rest = words[i + 1 :]
    if all(w.lower() in _PARTICLES or w.lower() in _AUXILIARY for w in rest) or len(rest) <= 4:
        return "object is a pronoun nobody resolved"
    return ""


def _is_nominal(word: str) -> bool:
    tags = readings(word)
    return bool(tags & {"NOUN", "ADJ", "PROPN"}) or word[:1].isupper() or word.isdigit() or not tags


_MOMENT_PHRASE = re.compile(
    r"\b(?:on (?:my|our) way|right back|about to|right now|real quick|in a (?:sec|second|minute|bit)|as we speak|"
    r"(?:i'm|i am|we're) off to)\b",
    re.IGNORECASE,
)


_FUTURE = re.compile(
    r"\b(?:will|'ll|can|gonna|going to|about to|have to|need to|got to|gotta)\b|^(?:i'm|i am|we're)\s+\w+ing\b",
    re.IGNORECASE,
)
# Same-day times: "today", "before ten", "at three", "by noon" (not a calendar date).
_SAME_DAY = re.compile(
    r"\b(?:today|(?:before|by|at|until|around)\s+(?:noon|midnight|\d{1,2}(?::\d\d)?(?:\s*[ap]\.?m\.?)?|one|two|"
    r"three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?!\w|\s*(?:st|nd|rd|th|of|o'clock on)\b))",
    re.IGNORECASE,
)
_CALENDAR = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|weekend|week|month|year|january|"
    r"february|march|april|june|july|august|september|october|november|december|\d{1,2}(?:st|nd|rd|th)|"
    r"\w+(?:st|nd|rd|th))\b",
    re.IGNORECASE,
)


def _passing(text: str, kind: str) -> Shape | None:
    if _MOMENT_PHRASE.search(text) and not _DURABLE_MARKER.search(text):
        return Shape(DROP, "passing action")
    near = _NEAR_TERM.search(text) or (_SAME_DAY.search(text) and not _CALENDAR.search(text))
    errand_kind = kind in _PLAN_KIND or kind in ("", "other")  # a memorable kind (health, place…) is no errand
    if near and errand_kind and (kind in _PLAN_KIND or _FUTURE.search(text)) and not _DURABLE_MARKER.search(text):
        return Shape(DROP, "passing action")  # a plan for the next hours is an errand, not a fact to keep
    past = _PAST_PROGRESSIVE.search(text)
    if past and "VERB" in readings(past.group(1)) and not _LIFE_STATE.match(past.group(1)):
        if not _DURABLE_MARKER.search(text):
            return Shape(DROP, "passing action")  # "I was out walking when…": the background of a story
    m = _PROGRESSIVE.search(text)
    if not m:
        return None
    verb = m.group(1)
    if "VERB" not in readings(verb):
        return None  # "I'm interesting", "she's amazing": adjectives, not aspect
    if _LIFE_STATE.match(verb):
        return None
    if _MOMENTARY.search(text):
        return Shape(DROP, "passing action")
    if not _DURABLE_MARKER.search(text) and kind not in ("health",) + _PLAN_KIND:
        return Shape(REVIEW, "ongoing activity, not a lasting fact")
    return None


_VAGUE_ENDS = _PRONOUN_OBJECTS | set("you me us there here so to".split())
_HABIT_SUBJECT = re.compile(
    r"^(?:i|we)\s+(?:(?:don't|do not|never|always|usually|often|still|also|really|mostly)\s+)*([a-z]+)\s+(\S.*)$",
    re.IGNORECASE,
)


def habitual_present(clause: str) -> bool:
    """ "I keep bees", "we don't own a car", "I speak Dutch": a first-person present simple verb (its base form,
    not an auxiliary) with a noun object. The simple present states a habit or a state, not a passing event."""
    m = _HABIT_SUBJECT.match(clause.strip(" .!"))
    if not m:
        return False
    verb, rest = m.group(1).lower(), m.group(2).split()
    if verb == "have":
        if not (rest[0].lower() in _DETERMINERS or rest[0].isdigit() or _is_nominal(rest[0])):
            return False  # "I have been…", "I have to…": an auxiliary, not possession
    elif verb in _AUXILIARY or verb not in getAllLemmas(verb).get("VERB", ()):
        return False  # not a verb, or not its base form ("baked" is an event)
    return not {rest[0].lower(), rest[-1].lower()} & _VAGUE_ENDS
