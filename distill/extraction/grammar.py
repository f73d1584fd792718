"""Rewriting a first- or second-person clause as a third-person sentence about a named person.

"I don't eat meat" → "Tove doesn't eat meat"; "I have two kids" → "Tove has two kids"; "how I fix it" → "how Tove
fixes it"; "my sister" → "Tove's sister" (every time: "their" could be read as the sister's); "you're my best friend" said by Ana
to Tove → "Tove is Ana's best friend". Verb agreement uses lemminflect's English lexicon (base form → -s form:
"carry" → "carries", "fix" → "fixes", "go" → "goes"); past forms and modals are left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from accounts.wordforms import inflect, lemmas_of

MODALS = {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "won't", "can't", "couldn't"}
MODALS |= {"wouldn't", "shouldn't", "mustn't", "mightn't", "cannot"}
# Words that may stand between a subject and its verb without changing agreement.
_ADVERBS = set(
    """always never just also still only even really usually often sometimes already mostly actually kinda sorta
    totally definitely probably rarely seldom finally generally normally typically basically recently truly
    absolutely honestly literally currently now then first""".split()
)
# Fixed agreements: the first-/second-person form → the third-person singular form.
_AGREE = {
    "am": "is",
    "are": "is",
    "were": "was",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "dont": "doesn't",
    "haven't": "hasn't",
    "havent": "hasn't",
    "aren't": "isn't",
    "weren't": "wasn't",
    "ain't": "isn't",
    "go": "goes",
}
# Contracted subject forms.
_CONTRACTED_FIRST = {"i'm": "is", "i've": "has", "i'll": "will", "i'd": "would", "im": "is", "ive": "has"}
_CONTRACTED_SECOND = {"you're": "is", "you've": "has", "you'll": "will", "you'd": "would", "youre": "is"}

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[^A-Za-z\s]+|\s+")


@lru_cache(maxsize=4096)
def third_singular(verb: str) -> str:
    """The -s form of a base-form verb ("fix" → "fixes"); any other word unchanged."""
    lower = verb.lower().replace("’", "'")
    if lower in _AGREE:
        return _match_case(verb, _AGREE[lower])
    if lower in MODALS:
        return verb
    readings = lemmas_of(lower)
    lemmas = readings.get("VERB", ()) + readings.get("AUX", ())
    if lower not in lemmas:
        return verb  # not a base-form verb: a past form, a participle, an adjective, a noun
    if any(lower in inflect(lemma, tag="VBD") for lemma in lemmas[: lemmas.index(lower)]):
        return verb  # read first as a past form: "I found a flat" (find), "I saw it" (see), not "founds", "saws"
    forms = inflect(lower, tag="VBZ")
    return _match_case(verb, forms[0]) if forms else verb


def _match_case(original: str, new: str) -> str:
    return new[:1].upper() + new[1:] if original[:1].isupper() else new


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text)


def _next_word(toks: list[str], i: int) -> int:
    j = i + 1
    while j < len(toks) and toks[j].isspace():
        j += 1
    return j


# A time in the past: with a verb whose past form is its base form ("quit", "put", "read"), it is the past.
_PAST_TIME = re.compile(
    r"\b(?:yesterday|ago|last (?:week|month|year|night|\w+day)|back in|in (?:19|20)\d\d|when (?:i|you) was|"
    r"in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b",
    re.IGNORECASE,
)


def _agree_after(toks: list[str], i: int) -> None:
    """Make the verb after the subject at ``toks[i]`` agree with a third-person singular subject, skipping
    adverbs ("Tove always forgets")."""
    j = _next_word(toks, i)
    while j < len(toks) and toks[j].lower() in _ADVERBS:
        j = _next_word(toks, j)
    if j < len(toks) and toks[j][:1].isalpha():
        word = toks[j]
        past = inflect(word.lower(), tag="VBD")
        if past and past[0] == word.lower() and _PAST_TIME.search("".join(toks)):
            return  # "I quit sugar in January": past, not "quits"
        toks[j] = third_singular(word)


def third_person(clause: str, name: str, person: str, *, speaker: str = "", addressee: str = "") -> str:
    """Rewrite ``clause`` (``person`` = "first" or "second") about ``name``; the other grammatical person, when it
    appears, refers to ``speaker`` (in a second-person clause) or ``addressee`` (in a first-person clause).
    Returns a sentence: capitalised, one final full stop. (A rewrite that comes out wrong, "Ana and Tove is", is
    caught by the text step's check and the speaker is quoted instead.)"""
    toks = _tokens(_drop_emphatic(clause))
    subject_words = {"first": ("i",), "second": ("you",)}[person]
    contracted = _CONTRACTED_FIRST if person == "first" else _CONTRACTED_SECOND
    out: list[str] = []
    for i, tok in enumerate(toks):
        low = tok.lower().replace("’", "'")
        if low in contracted:
            out.append(f"{name} {contracted[low]}")
            if low in ("i'd", "you'd"):
                nxt = _next_word(toks, i)
                if nxt < len(toks) and toks[nxt].lower() in ("been", "had", "gone", "done", "seen", "never"):
                    out[-1] = f"{name} had"
            continue
        if low in subject_words and _is_subject(toks, i, person):
            out.append(name)
            _agree_after(toks, i)
            continue
        repl = _first_person_other(low, name) if person == "first" else _second_person_other(low, name)
        if repl is not None:
            out.append(repl)
            continue
        cross = _cross_reference(low, speaker if person == "second" else addressee, person)
        if cross is not None and low in ("you", "i") and _is_subject(toks, i, "second"):
            _agree_after(toks, i)  # "…and you bring the cake" → "…and Rosa brings the cake"
        out.append(cross if cross is not None else tok)
    text = "".join(out).strip(" ,.;:")
    return (text[:1].upper() + text[1:] + ".") if text else ""


_EMPHATIC = re.compile(r"(?<=\w)(?:,)?\s+(?:myself|yourself)(?=\s*(?:[,.!?]|$|\s+(?:too|as well|actually)\b))", re.I)


# "Me, I …" / "Me I …": the speaker named twice as the topic, in many Englishes (West and East African,
# Caribbean, French-influenced): one subject, not two
_TOPIC_DOUBLED = re.compile(r"^\s*me\b\s*,?\s+(?=i\b)", re.I)  # "i\b" holds before "'m", "'ll" too


def _drop_emphatic(clause: str) -> str:
    """ "I don't eat pork myself" → "I don't eat pork": an emphatic reflexive after its object; a reflexive
    object right after its verb ("I taught myself") stays. A fronted "me" before "I" goes too ("Me, I drive the
    night bus" → "I drive the night bus")."""

    def repl(m: re.Match) -> str:
        before = clause[: m.start()].split()
        prev = before[-1].lower().strip(",") if before else ""
        tags = lemmas_of(prev)
        return m.group(0) if "VERB" in tags and "NOUN" not in tags else ""

    return _EMPHATIC.sub(repl, _TOPIC_DOUBLED.sub("", clause))


def _is_subject(toks: list[str], i: int, person: str) -> bool:
    if person == "first":
        return True  # "I" is always a subject
    # "you" is a subject at the start of a clause or after a conjunction/complementiser; otherwise an object.
    prev = [t for t in toks[:i] if not t.isspace()]
    if not prev:
        return True
    if prev[-1].lower() in {",", "and", "but", "so", "that", "because", "if", "when", "how", "where", "why"}:
        return True
    # A relative clause after a noun: "the people you work with" ("you" is its subject), not "send you the file".
    j = _next_word(toks, i)
    nxt = lemmas_of(toks[j].lower()) if j < len(toks) else {}
    det = prev[-2].lower() if len(prev) > 1 else ""
    noun = "NOUN" in lemmas_of(prev[-1].lower()) and det in _DETERMINERS
    return noun and "VERB" in nxt


_DETERMINERS = set("the a an this that these those all every some any my your his her our their".split())


def _first_person_other(low: str, name: str) -> str | None:
    if low == "my":
        return f"{name}'s"
    if low == "mine":
        return f"{name}'s"
    if low == "me":
        return name
    if low == "myself":
        return "themself"  # emphatic uses ("I don't eat pork myself") are removed before, see _drop_emphatic
    if low in ("we", "we're", "we've", "we'll", "we'd"):
        rest = {"we": "", "we're": " are", "we've": " have", "we'll": " will", "we'd": " would"}[low]
        return f"{name} and others{rest}"
    if low == "our":
        return f"{name}'s"
    if low == "ours":
        return f"{name}'s"
    if low == "us":
        return f"{name} and others"
    return None


def _second_person_other(low: str, name: str) -> str | None:
    if low == "your":
        return f"{name}'s"
    if low == "yours":
        return f"{name}'s"
    if low == "you":
        return name  # an object "you" (subjects are handled before)
    if low == "yourself":
        return "themself"
    return None


def _cross_reference(low: str, other: str, person: str) -> str | None:
    """The other party inside the clause: "my" in a second-person clause is the speaker's."""
    if not other:
        return None
    if person == "second" and low in ("my", "mine"):
        return f"{other}'s"
    if person == "second" and low in ("me", "i"):
        return other
    if person == "second" and low in _CONTRACTED_FIRST:
        return f"{other} {_CONTRACTED_FIRST[low]}"  # "You did the work and I'm proud" → "… and Ana is proud"
    if person == "first" and low in ("your", "yours"):
        return f"{other}'s"
    if person == "first" and low == "you":
        return other
    return None
