"""Claims whose subject is not spelled out at the start of the clause, recovered from the sentence's shape and the
turns around it. Everything found here is plausible, never certain: the extractor caps it at review.

- **Implicit first person** (chat ellipsis): "Took a short trip to Lisbon last week", "Been learning the cello",
  "Still working on the thesis" are the speaker's own statements with the "I" left out. Only a sentence-initial
  past-tense verb (a form that is not also its base form, so never an imperative like "Put it there"), "been", or
  an adverb such as "still" before an -ing verb qualify.
- **Fronted adverbial**: "Last spring I ran a marathon", "At the lab, I mostly run assays": a time or place phrase
  with no verb of its own before a first-person subject.
- **First-person possessive predicate**: "Birdwatching is my favourite hobby", "Chess has been my escape since
  school", "Gardening matters to me": a non-pronoun subject said to be something of the speaker's, or to act on
  the speaker.
- **A pronoun resolved to the one person named**: "he's training for a triathlon" right after a turn that named
  exactly one third party ("Have you met Oskar?").
- **Answers to questions about the answerer**: yes/no (present or perfect; a past "did you…?" asks about a
  passing event): "Do you keep bees?" / "Yes, two hives." → "<answerer> keeps bees"; a short verbless answer to
  a wh-question: "Where did you grow up?" / "Tartu." → "<answerer> grew up in Tartu", "What instrument do you
  play?" / "The oboe." → "<answerer> plays the oboe", "What's your favourite dish?" / "Ramen." → "<answerer>'s
  favourite dish is Ramen"; "How long have you been teaching?" / "Twelve years." → "<answerer> has been teaching
  for twelve years". The same claim screen as any clause applies (media, passing actions, offers).
- Around all of these: a sarcasm cue counts in its own sentence only, a dash or "and it/she/I …" starts a new
  clause (see ``text``), and a pronoun near talk about a show, or with an unnamed relative in view, stays
  unresolved.

``QUESTIONS`` holds the fixed question templates the extractor tried first ("What do you do?", "Date of birth?").

All cues are grammatical (part-of-speech readings from lemminflect, pronouns, auxiliaries); none names a person,
place or topic.
"""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getInflection

from distill.extraction.base import Candidate, ConversationIn, UtteranceIn
from distill.extraction.claims import _MEDIA, DROP, assess, has_finite_verb, readings
from distill.extraction.grammar import third_singular
from distill.extraction.speakers import _KIN
from distill.extraction.text import _LEAD, _SENTENCE, clean

IMPLICIT_SUBJECT = "subject left out: the speaker's own statement"
FRONTED = "time or place phrase before the speaker's statement"
POSSESSIVE = "described through something of the speaker's"
RESOLVED = "pronoun resolved to the one person named before"
ANSWERED = "answer to a question about the answerer"

REVIEW_CONFIDENCE = 0.7  # as a plain statement outside the memorable kinds: review, never accepted


def reframe(clause: str, sentence: str, *, has_subject: bool, named: bool) -> tuple[str, str]:
    """A first-person statement whose "I" is left out, or comes after a fronted phrase, or that describes a
    subject through something of the speaker's: the clause to read, and why it is only plausible ("" if none)."""
    if has_subject:
        return clause, ""
    restored = implicit_first_person(clause, sentence)
    if restored:
        return restored, IMPLICIT_SUBJECT
    if fronted_first_person(clause):
        return clause, FRONTED
    first = clause.split()[0].split("'")[0]
    if (not named or readings(first) or _gerund(first)) and possessive_predicate(clause):
        # "Painting's my escape": a capitalised first word that is an English word, not only a name.
        return clause, POSSESSIVE
    return clause, ""


def _gerund(word: str) -> bool:
    """ "Birdwatching", "Kitesurfing": an -ing word the dictionary lacks is an activity, not a person's name."""
    return len(word) > 6 and word.lower().endswith("ing")


def recent_turns(conv: ConversationIn, pos: int, wearer: str) -> tuple[list[str], set[str]]:
    """The turn at ``pos`` and the three before it, and every speaker's name words (lower case)."""
    speakers = {wearer.lower()} | {w.lower() for u in conv.utterances for w in u.speaker_name.split()}
    return [clean(u.text) for u in conv.utterances[max(0, pos - 3) : pos + 1]], speakers


def yes_no_candidate(conv: ConversationIn, pos: int, utt: UtteranceIn, wearer: str, names: dict, classify):
    """The answer to another speaker's yes/no or how-long question about the answerer ("Do you keep bees?" /
    "Yes, two hives."): a statement about the answerer, for review."""
    asked = conv.utterances[pos - 1] if pos else None
    if asked is None or (asked.speaker_name == utt.speaker_name and asked.is_wearer == utt.is_wearer):
        return None
    person = "" if utt.is_wearer else names.get(utt.speaker_name, "")
    if not (utt.is_wearer or person):
        return None
    question = _SENTENCE.split(clean(asked.text))[-1]
    content = answered_question(question, clean(utt.text), wearer if utt.is_wearer else person)
    if not content:
        return None
    kind, _, importance = classify(content)
    words = {w for w in re.findall(r"[a-z0-9]+", content.lower()) if len(w) > 2} - {(person or wearer).lower()}
    return Candidate(
        subject="user" if utt.is_wearer else f"person:{person}",
        predicate=f"{kind or 'other'}:answer",
        args=sorted(words),
        content=content,
        kind=kind or "other",
        importance=importance if kind else "low",
        extraction_confidence=REVIEW_CONFIDENCE,
        capture_confidence=1.0,
        attribution="user" if utt.is_wearer else "third_party",
        person=person,
        flags=["answer to a question"],
        ceiling="pending_review",
        ceiling_reason=ANSWERED,
    )


# --- implicit first person ------------------------------------------------------------------------------------
_PRE_ADVERBS = set("just recently finally also still already actually only even never always then once".split())
_PROGRESSIVE_ADVERBS = {"still", "currently", "now", "also"}
_CLOSED_NOUNS = set("another that this these those all each every it them some".split())  # lemminflect: NOUN
_DETERMINER_NEXT = set("a an the my our some two three four five six seven eight nine ten".split())


def implicit_first_person(clause: str, sentence: str) -> str:
    """The clause with its left-out "I" restored ("Took a trip" → "I took a trip"), or "" when it has a subject
    or is not the start of its sentence (a coordinated clause shares the subject of the clause before)."""
    head = _LEAD.sub("", sentence.strip()).lstrip(" ,")
    if not head.startswith(clause[: min(len(clause), 20)]):
        return ""
    words = clause.split()
    if len(words) < 3:
        return ""
    i = 0
    while i < len(words) - 1 and words[i].lower() in _PRE_ADVERBS:
        i += 1
    word = re.sub(r"[^A-Za-z']", "", words[i]).lower()
    nxt = re.sub(r"[^A-Za-z']", "", words[i + 1]).lower() if i + 1 < len(words) else ""
    rest = _lower_first(clause)
    if word == "been" and nxt:
        return f"I've {rest}"
    if i > 0 and word.endswith("ing") and words[i - 1].lower() in _PROGRESSIVE_ADVERBS and "VERB" in readings(word):
        return f"I'm {rest}"
    if _past_only(word) and (not ({"ADJ", "NOUN"} & readings(word)) or nxt in _DETERMINER_NEXT):
        if "NOUN" in readings(nxt) and nxt not in _DETERMINER_NEXT | _CLOSED_NOUNS:
            return ""  # "Iced tea please": a participle before a noun is a noun phrase, not a verb and its object
        return f"I {rest}"
    return ""


def _past_only(word: str) -> bool:
    """A past-tense verb form that is not also a base form: "took", "started" (not "put", "read", "cut")."""
    lemmas = getAllLemmas(word).get("VERB", ())
    if not lemmas or word in lemmas:
        return False
    return any(word in getInflection(lemma, tag="VBD") for lemma in lemmas)


def _lower_first(text: str) -> str:
    return text if text[:2] in ("I ", "I'") else text[:1].lower() + text[1:]


# --- fronted adverbial ---------------------------------------------------------------------------------------
_FRONTED = re.compile(
    r"^(?P<adverbial>[A-Za-z0-9][\w' -]{1,60}?),?\s+(?P<core>(?:i|i'm|i've|i'll|i was)\s+\S.*)$", re.IGNORECASE
)
_ADVERBIAL_START = re.compile(
    r"^(?:last|this|next|on|in|at|over|during|after|before|since|earlier|yesterday|today|recently|lately|back|"
    r"a (?:few|couple)|every|for|around|(?:one|two|three|four|five|six|seven|eight|nine|ten|a) \w+ ago)\b",
    re.IGNORECASE,
)
_NOT_IN_ADVERBIAL = re.compile(
    r"\b(?:i|you|he|she|they|we|it|me|him|her|them|us|and|or|but|if|when|because|that|who|which)$|"
    r"\b(?:you|he|she|they|it|if|unless|when|because|that|who|which)\b",
    re.IGNORECASE,
)


def fronted_first_person(clause: str) -> bool:
    """A time or place phrase, with no verb or person of its own, before a first-person subject."""
    m = _FRONTED.match(clause)
    if not m:
        return False
    adverbial = m.group("adverbial")
    if not _ADVERBIAL_START.match(adverbial) or _NOT_IN_ADVERBIAL.search(adverbial):
        return False
    return len(adverbial.split()) <= 8 and not has_finite_verb(adverbial)


# --- possessive predicate ---------------------------------------------------------------------------------------
_SPEAKER_IN_PREDICATE = re.compile(r"^(?:me\b|(?:[\w'-]+\s+){0,6}?(?:my\s+\w+|to me\b))", re.IGNORECASE)
_PRONOUN_SUBJECT = re.compile(
    r"^(?:it|this|that|these|those|he|she|they|there|here|which|what|who|you|we|i|everything|something|"
    r"nothing|anything|all|one|mine|yours|ours|his|hers|theirs)\b",
    re.IGNORECASE,
)


def possessive_predicate(clause: str) -> bool:
    """ "Birdwatching is my favourite hobby", "Gardening matters to me": a (not pronoun, not "your") subject of up
    to six words, a copula or a present-tense verb, then something of the speaker's or the speaker."""
    words = clause.split()
    if not words or _PRONOUN_SUBJECT.match(clause):
        return False
    for k in range(1, min(7, len(words) - 1)):
        subject, verb = words[:k], words[k].lower()
        if subject[-1].lower().endswith("'s"):
            subject, verb, k = subject[:-1] + [subject[-1][:-2]], "is", k - 1
        text = " ".join(subject)
        first = readings(subject[0])
        if subject[-1].lower() in _DETERMINER_NEXT or (
            first and not first - {"VERB"} and not subject[0].lower().endswith("ing")
        ):
            return False  # "Appreciate the support…": a verb first is an imperative or a dropped "I", not a subject
        if (
            not re.fullmatch(r"[\w' -]+", text)
            or re.search(r"\b(?:you|your|me|i)\b", text, re.IGNORECASE)
            or has_finite_verb(text)
        ):
            return False
        if (verb in _COPULAS or _present_verb(verb)) and _SPEAKER_IN_PREDICATE.match(" ".join(words[k + 1 :])):
            return True  # else the verb may still be a noun of a longer subject ("Long climbs … keep me calm")
    return False


def _present_verb(word: str) -> bool:
    """A present-tense verb after a noun subject: "matters" (-s form) or "keep" (a base form, plural subject)."""
    lemmas = getAllLemmas(word).get("VERB", ())
    if not lemmas or len(word) < 4:
        return False
    return word in lemmas or any(word in getInflection(lemma, tag="VBZ") for lemma in lemmas)


_COPULAS = set("is was are were has have remains became".split())


# --- pronoun resolution -----------------------------------------------------------------------------------------
_PRONOUN_START = re.compile(r"^(?P<pronoun>he|she)(?P<clitic>'s|'ll|'d)?\b", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|^\W+)$")
# "your sister", "my boss": a person in the window who is not named is a referent too (then "she" is ambiguous).
_KIN_PHRASE = re.compile(rf"\b(?:my|your|his|her|our|their|the)\s+(?:\w+\s+)?{_KIN}\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}(?:'s)?(?:\s+[A-Z][a-z]{2,}(?:'s)?)*")


def pronoun_subject(clause: str) -> bool:
    return bool(_PRONOUN_START.match(clause))


def resolve_pronoun(window: list[str], exclude: set[str], is_name, *, before: str = "") -> str:
    """The one person named in ``window`` besides the speakers (``exclude``, lower case), in the last text only
    before ``before`` (the clause itself); "" when none or several are. A full name folds in its parts ("Dev" and
    "Dev Kapoor" are one person); a capitalised word at the start of a sentence counts too: doubt only leaves the
    pronoun unresolved."""
    texts = list(window)
    if texts and before and before[:20] in texts[-1]:
        texts[-1] = texts[-1][: texts[-1].index(before[:20])]
    if any(_MEDIA.search(text) for text in texts):
        return ""  # talk about a show or a book: "he" may be a character
    found: set[str] = {m.group(0).lower() for text in texts for m in _KIN_PHRASE.finditer(text)}
    for text in texts:
        for m in _CAPITALISED.finditer(text):
            words = [w.removesuffix("'s") for w in m.group(0).split()]
            if _SENTENCE_START.search(text[: m.start()]) and readings(words[0]):
                words = words[1:]  # "Seventh", "Under": an English word opening a sentence is no name
            words = [w for w in words if w.lower() not in exclude and is_name(w)]
            if not words or re.search(
                rf"\b(?:in|from|to|at|near|into|visiting|around|the|a|an|my|our|this)\s+{words[0]}\b", text, re.I
            ):
                continue  # a place or a thing: "back from Tulsa", "the Vasaloppet"
            found.add(" ".join(words))
    found = {n for n in found if not any(n != other and n in other.split() for other in found)}
    one = next(iter(found)) if len(found) == 1 else ""
    return "" if _KIN_PHRASE.fullmatch(one) else one  # an unnamed relative only makes the pronoun ambiguous


def name_pronoun(clause: str, name: str) -> str:
    """ "he's training for a triathlon" → "Oskar is training for a triathlon"."""
    m = _PRONOUN_START.match(clause)
    if not m:
        return clause
    clitic = (m.group("clitic") or "").lower()
    rest = clause[m.end() :]
    if clitic == "'s":
        word = rest.split()[0].lower() if rest.split() else ""
        verb = " has" if word in ("been", "got", "had", "gone", "done", "never", "always") else " is"
        return f"{name}{verb}{rest}"
    expanded = {"'ll": " will", "'d": " would", "": ""}[clitic]
    return f"{name}{expanded}{rest}"


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
        shape = assess(wh if rest.startswith("'s") else f"she{rest}", utterance=answer)  # a pronoun: any verb tense
        return "" if shape is not None and (shape.verdict == DROP or "media" in shape.reason) else wh
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
    if not sentence or assess(f"{name} {sentence}", utterance=f"{question} {answer}") is not None:
        return ""  # media, passing actions, offers...: the same screen as any other claim
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
    np = _short_np(answer)
    if not np:
        return ""
    m = _WH_FAVOURITE.match(question)
    if m:
        return f"{name}'s {m.group('what').lower()} is {np}."
    m = _WH_VERB.match(question)
    if not m or _PERSONAL.search(m.group("tail") or "") or m.group("verb").lower() in _OFFER_VERBS | {"mean", "think"}:
        return ""
    if _MEDIA.search(m.group("noun") or ""):
        return ""  # "What show are you watching?": about media
    wh, aux, verb, tail = m.group("wh").lower(), m.group("aux").lower(), m.group("verb").lower(), m.group("tail")
    if aux == "are":
        if not verb.endswith("ing") or "VERB" not in readings(verb):
            return ""
        head = f"is {verb}"
    elif verb not in getAllLemmas(verb).get("VERB", ()):
        return ""
    elif aux == "did":
        if wh != "where":
            return ""  # "What did you eat?": a passing event; "Where did you grow up?" is kept
        head = (getInflection(verb, tag="VBD") or ("",))[0]
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
    if "VERB" not in readings(verb) or verb not in getAllLemmas(verb).get("VERB", ()):
        return ""  # "Do you ..." needs a base-form verb next
    if negative:
        return f"{'doesn' if aux == 'do' else 'didn'}'t {verb} {tail}".strip()
    if aux == "did":
        past = getInflection(verb, tag="VBD")
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
