"""Claims that rest on two turns: the answer to another speaker's question about the answerer.

- yes/no and how-long questions (present or perfect; a past "did you…?" asks about a passing event): "Do you keep
  bees?" / "Yes, two hives." → "<answerer> keeps bees"; "How long have you been teaching?" / "Twelve years." →
  "<answerer> has been teaching for twelve years";
- a short verbless answer to a wh-question: "Where did you grow up?" / "Tartu." → "<answerer> grew up in
  Tartu", "What instrument do you play?" / "The oboe." → "<answerer> plays the oboe", "What's your favourite
  dish?" / "Ramen." → "<answerer>'s favourite dish is Ramen";
- ``QUESTIONS``: the everyday questions about a person ("What do you do?", "Where do you live?", "Date of
  birth?") and how a short answer reads as a statement;
- any other question to the answerer ("you", "your") answered without a verb ("When's your birthday?" / "March
  fourth, ninety-five."): the answer's own words, which the memory quotes with the question
  (``verbless_answer``; no sentence is built).

The built sentence goes through the same parse screen as any claim (``parse_claims.not_a_claim``: questions,
hypotheticals, talk about the moment, offers, figurative speech). The cues are grammatical (auxiliaries,
pronouns, part-of-speech readings from lemminflect); none names a person, place or topic.
"""

from __future__ import annotations

import re

from accounts.wordforms import inflect, lemmas_of
from distill.extraction.base import Candidate, ConversationIn, TurnIn
from distill.extraction.grammar import third_singular
from distill.extraction.screens import has_finite_verb, not_a_claim, readings
from distill.extraction.speakers import NOT_NAMES
from distill.extraction.text import _SENTENCE, clean

ANSWERED = "answer to a question about the answerer"
REVIEW_CONFIDENCE = 0.7  # an answer rests on two turns: review, never accepted on this path alone
# Nouns of media: "What show are you watching?" asks about a screen, not the person.
_MEDIA = re.compile(r"\b(?:show|series|movie|film|episode|season|podcast|book|song|album|game|channel)s?\b", re.I)


def yes_no_candidate(conv: ConversationIn, pos: int, utt: TurnIn, owner: str, names: dict, classify):
    """The answer to another speaker's yes/no or how-long question about the answerer ("Do you keep bees?" /
    "Yes, two hives."): a statement about the answerer, for review."""
    asked = conv.turns[pos - 1] if pos else None
    if asked is None or (asked.speaker_name == utt.speaker_name and asked.is_owner == utt.is_owner):
        return None
    person = "" if utt.is_owner else names.get(utt.speaker_name, "")
    if not (utt.is_owner or person):
        return None
    question = _SENTENCE.split(clean(asked.text))[-1]
    content = answered_question(question, clean(utt.text), owner if utt.is_owner else person)
    if not content:
        return None
    kind, _, importance = classify(content)
    words = {w for w in re.findall(r"[a-z0-9]+", content.lower()) if len(w) > 2} - {(person or owner).lower()}
    return Candidate(
        subject="user" if utt.is_owner else f"person:{person}",
        predicate=f"{kind or 'other'}:answer",
        args=sorted(words),
        content=content,
        kind=kind or "other",
        importance=importance if kind else "low",
        extraction_confidence=REVIEW_CONFIDENCE,
        capture_confidence=1.0,
        attribution="user" if utt.is_owner else "third_party",
        person=person,
        flags=["answer to a question"],
        ceiling="pending_review",
        ceiling_reason=ANSWERED,
    )


# --- any question to the answerer, answered without a verb ----------------------------------------------------
VERBLESS_CONFIDENCE = 0.7  # the answer's meaning is in the question: two turns, and no verb of its own
MAX_ANSWER_WORDS = 12
_SECOND_PERSON = {"you", "your", "yours", "yourself", "ya", "u"}
_FINITE = {"VBD", "VBP", "VBZ", "MD"}


def verbless_answer(conv: ConversationIn, pos: int, utt: TurnIn, owner: str, names: dict, classify):
    """The answer to another speaker's question to the answerer, said without a verb of its own ("How long have
    you been on the ferries?" / "Nine years. Six of them on nights."): a candidate about the answerer whose
    content is the answer's verbless sentences, flagged as an answer so that its memory quotes them with the
    question (``distill.steps.text``). None when the question is not to the answerer, or the answer has a verb,
    is only a courtesy, a yes or a no, or says nothing (no noun, name, number or adjective). Asked at most,
    never accepted on its own."""
    from distill.extraction import nlp

    asked = conv.turns[pos - 1] if pos else None
    if asked is None or (asked.speaker_name == utt.speaker_name and asked.is_owner == utt.is_owner):
        return None
    question = _SENTENCE.split(clean(asked.text).strip())[-1]
    if not question.endswith("?"):
        return None
    qdoc, adoc = nlp.parse([question, clean(utt.text)])
    if not any(t.lower_ in _SECOND_PERSON for t in qdoc):
        return None  # a question about someone else, or about the world
    answer = _verbless_lead(adoc)
    if not answer:
        return None
    person = "" if utt.is_owner else names.get(utt.speaker_name, "")
    attribution = "user" if utt.is_owner else ("third_party" if person else "unknown")
    kind, importance, _ = classify(question)
    return Candidate(
        subject="user" if attribution == "user" else (f"person:{person}" if person else "unknown"),
        predicate=f"{kind or 'other'}:answer",
        args=sorted({t.lower_ for t in adoc if t.pos_ in ("NOUN", "PROPN", "NUM", "ADJ")}),
        content=answer,
        kind=kind or "other",
        importance=importance if kind else "normal",
        extraction_confidence=VERBLESS_CONFIDENCE * (0.6 if attribution == "unknown" else 1.0),
        capture_confidence=1.0,
        attribution=attribution,
        person=person,
        flags=["answer to a question"] + (["speaker not identified"] if attribution == "unknown" else []),
        # Review at most, like any answer that rests on its question: a verbless reply is as often a joke or a
        # deflection ("Oh, every day. Twice a day.") as a fact, and the question's words are not the answerer's.
        ceiling="pending_review",
        ceiling_reason=ANSWERED if attribution != "unknown" else "subject uncertain",
    )


def _word_of_substance(tok) -> bool:
    """A noun or adjective English knows ("Hm", "Mm-hm" are none: sounds the tagger calls nouns)."""
    return tok.pos_ in ("NOUN", "ADJ", "NUM") and not tok.is_stop and bool(readings(tok.lower_))


def _verbless_lead(doc) -> str:
    """The answer's opening sentences that have no finite verb and say something (a noun, a name, a number, an
    adjective), after a leading courtesy or yes ("Yeah. Nine years." → "Nine years."); "" when the first
    sentence that says something has a verb, or there is none."""
    kept: list[str] = []
    for sent in doc.sents:
        words = [t for t in sent if not t.is_punct]
        if not words:
            continue
        says = [
            t for t in words if t.like_num or (t.pos_ == "PROPN" and t.text not in NOT_NAMES) or _word_of_substance(t)
        ]
        finite = any(t.tag_ in _FINITE for t in words)
        if not kept and not says and not finite and len(words) <= 3:
            continue  # "Yeah.", "Oh, wow.": a courtesy or a yes before the answer
        if finite or not says or len(words) > MAX_ANSWER_WORDS or sent.text.rstrip().endswith("?"):
            break
        kept.append(sent.text.strip())
        if len(kept) == 2:
            break
    return " ".join(kept)


# --- answers to yes/no and how-long questions -------------------------------------------------------------------
_YES_NO = re.compile(
    r"^(?:so,?\s+|and\s+|but\s+)?(?P<aux>do|are|were|have|has)\s+you\s+(?!guys\b|all\b|two\b|both\b)"
    r"(?:ever\s+|still\s+|already\s+|also\s+)?(?P<rest>[a-z][\w' -]+?)\s*\?$",
    re.IGNORECASE,
)
_HOW_LONG = re.compile(
    r"^(?:so,?\s+|and\s+)?how long (?P<aux>have|has)\s+you\s+(?P<rest>been\s+[a-z][\w' -]+?)\s*\?$", re.IGNORECASE
)
_YES = re.compile(
    r"^(?:yes|yeah|yep|yup|definitely|absolutely|of course|i do|i did|i am|i have|i was)\b(?!\s+(?:and|but)\s+no\b)",
    re.IGNORECASE,
)
_NO = re.compile(r"^(?:no|nope|not really|i don't|i didn't|i'm not|i haven't|i wasn't)\s*[.!]?$", re.IGNORECASE)
_DURATION = re.compile(
    r"^(?:about |almost |nearly |over |around |like )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|fifteen|twenty|thirty|forty|fifty|a few|a couple of|several)(?:\s+and a half)?\s+"
    r"(?:years?|months?|weeks?|decades?)\b",
    re.IGNORECASE,
)
# Verbs of a passing offer or request: "Do you want a coffee?" / "Yes please" is no fact about anyone.
_OFFER_VERBS = set("want need mind fancy wanna".split())
_PERSONAL = re.compile(r"\b(?:i|me|my|mine|we|us|our|you|your|yours|it|that|this|them|one|him|her)\b", re.IGNORECASE)


# "So, Bram, what …?", "Okay and do you …?": discourse words and a vocative before the question proper.
_QUESTION_LEAD = re.compile(r"^(?:(?:so|and|okay|ok|oh|well|hey|but)\b,?\s*)*(?:[A-Z][a-z]+,\s*)?", re.IGNORECASE)


def answered_question(question: str, answer: str, name: str) -> str:
    """A sentence about the answerer (``name``) from a yes/no or how-long question with "you" as its subject and
    a plain answer; "" when the pair has no such reading."""
    answer = answer.strip()
    question = _QUESTION_LEAD.sub("", question.strip())
    m = _HOW_LONG.match(question)
    if m:
        duration = _DURATION.match(answer)
        rest = m.group("rest")
        if not duration or _PERSONAL.search(rest):
            return ""
        return f"{name} has {rest} for {duration.group(0).strip().lower()}."
    wh = _wh_answer(question.strip(), answer, name)
    if wh:
        rest = wh[len(name) :]
        why = not_a_claim(wh)
        return "" if why and why != "no claim" else wh
    m = _YES_NO.match(question.strip())
    if not m:
        return ""
    aux, rest = m.group("aux").lower(), m.group("rest").strip()
    if _PERSONAL.search(rest) or len(rest.split()) < 2 or rest.split()[0].lower() in _OFFER_VERBS:
        return ""
    first_answer = _reply(answer)
    if _YES.match(first_answer):
        negative = False
    elif _NO.match(first_answer):
        negative = True
    else:
        return ""
    verb, _, tail = rest.partition(" ")
    sentence = _declarative(aux, verb, tail, negative)
    if not sentence or not_a_claim(f"{name} {sentence}.") not in ("", "no claim"):
        return ""  # passing actions, offers...: the same screen as any other claim
    return f"{name} {sentence}."


# "What instrument do you play?" / "Where did you grow up?" / "What are you reading?" / "What's your favourite …?"
_WH_VERB = re.compile(
    r"^(?:so,?\s+|and\s+)?(?P<wh>where|what|which|what kind of|what sort of|what type of)(?P<noun>\s+[a-z]+)??\s+"
    r"(?P<aux>do|did|are)\s+you\s+(?:usually\s+|currently\s+|still\s+)?(?P<verb>[a-z]+)(?P<tail>(?:\s+[a-z]+){0,2})\s*\?$",
    re.IGNORECASE,
)
_WH_FAVOURITE = re.compile(
    r"^(?:so,?\s+|and\s+)?(?:what's|what is|who's|who is)\s+your\s+(?P<what>(?:favou?rite\s+)?[a-z]+(?:\s+[a-z]+)?)\s*\?$",
    re.IGNORECASE,
)
_PREPOSITION = re.compile(r"^(?:in|at|on|near|for|with|from|by|outside|downtown|across)\b", re.IGNORECASE)
_NOT_AN_ANSWER = re.compile(
    r"^(?:i|you|we|he|she|they|it|that|this|what|why|who|how|no|nothing|not|none|same|dunno|hmm|um|uh|ha|oh|well|"
    r"yes|yeah|sure|maybe|depends|nowhere|anything|everything|whatever)\b",
    re.IGNORECASE,
)


def _short_np(answer: str) -> str:
    """The answer's first sentence when it is a short verbless phrase ("The cello.", "At the county hospital")."""
    first = _reply(answer).strip(" ,")
    words = first.split()
    if not words or len(words) > 6 or _NOT_AN_ANSWER.match(first) or has_finite_verb(first):
        return ""
    return first[:1].lower() + first[1:] if words[0].lower() in ("the", "a", "an", "at", "in", "on") else first


def _wh_answer(question: str, answer: str, name: str) -> str:
    favourite, m = _WH_FAVOURITE.match(question), _WH_VERB.match(question)
    if not (favourite or m):
        return ""  # (before the answer's parse: most turns answer no such question)
    np = _short_np(answer)
    if not np:
        return ""
    if favourite:
        return f"{name}'s {favourite.group('what').lower()} is {np}."
    if _PERSONAL.search(m.group("tail") or "") or m.group("verb").lower() in _OFFER_VERBS | {"mean", "think"}:
        return ""
    if _MEDIA.search(m.group("noun") or ""):
        return ""  # "What show are you watching?": about media
    wh, aux, verb, tail = m.group("wh").lower(), m.group("aux").lower(), m.group("verb").lower(), m.group("tail")
    if aux == "are":
        if not verb.endswith("ing") or "VERB" not in readings(verb):
            return ""
        head = f"is {verb}"
    elif verb not in lemmas_of(verb).get("VERB", ()):
        return ""
    elif aux == "did":
        if wh != "where":
            return ""  # "What did you eat?": a passing event; "Where did you grow up?" is kept
        head = (inflect(verb, tag="VBD") or ("",))[0]
    else:
        head = third_singular(verb)
    if not head:
        return ""
    if wh == "where":
        if aux == "are":
            return ""  # "Where are you going?": a movement, not a fact
        if not (_PREPOSITION.match(np) or (np[:1].isupper() and not readings(np.split()[0].strip(",.!")))):
            return ""  # "The beach." after "where": in, at or to is a guess; a proper name takes "in"
        place = np if _PREPOSITION.match(np) else f"in {np}"
        return f"{name} {head}{tail} {place}."
    if tail.strip():
        return ""  # "What do you do for fun?": where the answer goes in the sentence is unclear
    return f"{name} {head} {np}."


_COURTESY = re.compile(r"^(?:thanks|thank you|wow|oh|aw+|hey|hi|haha|ha|glad|cool|nice|great)\b", re.IGNORECASE)


def _reply(answer: str) -> str:
    """The answer's first sentence that is not a courtesy ("Thanks, Ana! Glad you like it. Yeah, I do." → "Yeah, I
    do"): at most two courtesies are skipped."""
    parts = [p.strip() for p in re.split(r"[.!?]+", answer) if p.strip()]
    for part in parts[:3]:
        if not _COURTESY.match(part):
            return part
    return ""


def _declarative(aux: str, verb: str, tail: str, negative: bool) -> str:
    if aux in ("are", "were"):
        be = "is" if aux == "are" else "was"
        return f"{be}{' not' if negative else ''} {verb} {tail}".strip()
    if aux in ("have", "has"):
        if "VERB" not in readings(verb) or verb.endswith("ing"):
            return ""
        return f"{'hasn' + chr(39) + 't' if negative else 'has'} {verb} {tail}".strip()
    if "VERB" not in readings(verb) or verb not in lemmas_of(verb).get("VERB", ()):
        return ""  # "Do you ..." needs a base-form verb next
    if negative:
        return f"{'doesn' if aux == 'do' else 'didn'}'t {verb} {tail}".strip()
    if aux == "did":
        past = inflect(verb, tag="VBD")
        return f"{past[0] if past else verb} {tail}".strip()
    return f"{third_singular(verb)} {tail}".strip()


# Questions about the person answering, and how their short answer reads as a statement about them.
QUESTIONS: list[tuple[re.Pattern, str, str, str]] = [
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
ANSWER_NOT_NP = re.compile(
    r"^(?:i|i'm|i am|i don't|you|we|it's|it is|that's|no idea|not sure|why|what|who|nothing|none|none of|"
    r"same|guess|ha|haha|ew|hmm|uh|um)\b",
    re.IGNORECASE,
)
