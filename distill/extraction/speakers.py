"""Who is speaking and who is addressed: provider names, self-introductions ("it's Hedda"), the owner's
greetings and vocatives, introductions of a relation ("This is Leif. My husband."). General cues only."""

from __future__ import annotations

import re

from distill.extraction.base import ConversationIn
from distill.extraction.screens import readings
from distill.extraction.text import clean

NOT_NAMES = set(
    """I The This That It There Here What When Where Why How Okay Ok Yes No Yeah Oh So And But Well Sure Thanks
Thank Hi Hey Bye Good Great Cool Nice Right Wait Also Just Then Now Today Tomorrow Tonight Everyone Everybody
Nobody Someone Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June
July August September October November December Mom Dad Mommy Daddy Honestly Actually Anyway Fine Perfect
Love Sorry Please Let Ugh Ha Wow God Congrats Congratulations Sounds Same Pretty Still Whatever Which Who
He She They We You It Its Careful Everything Nothing Something Somebody Anything Lots Guess Maybe Probably
Wow Whoa Aw Oops Yay Nope Yep Dude Man Honey Babe Sweetie Hello Hmm Mm Um Uh Ooh Ahh Ah Eh Huh
Definitely Totally Seriously Literally Basically Exactly Almost Never Always Sometimes Once Last Next First
Morning Evening Afternoon Night Cheers Howdy Welcome Bless Nah Naw Aye Och Oi Shh Psst Ahem Phew Yikes Yo Gosh
Golly Jeez Blimey Crikey Bah Meh Huh Eh Alright Hm Mhm Erm Ew Ahh Argh""".split()
)  # (the last lines: English greetings and interjections, said first in a sentence like a name)
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
# A name said to someone: at the start of a sentence (after an interjection too: "Yes, Mom, ...") or closing it.
_VOCATIVE_LEAD = re.compile(
    r"(?:^|[.!?]\s+)(?:(?i:yes|yeah|no|okay|ok|sure|thanks|oh|hey|hi|well|right),?\s+)?([A-Z][a-z]+)[,!]"
)
_VOCATIVE_TAIL = re.compile(r",\s*([A-Z][a-z]+)(?:[.!?]+|$)")
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)"
# A speaker naming themselves: "it's Hedda", "this is Tord Fahey, returning your call", "my name is Ana".
_SELF_INTRO = re.compile(
    rf"(?:^|[.!?,]\s+|\b(?i:hi|hey|hello|yes|yeah|please)[,!]?\s+)(?i:it's|it is|this is|my name is|call me|i'm|i am)\s+"
    rf"{_TITLE}?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b(?!')"
)
_TITLED = re.compile(rf"(?:^|[.!?]\s+){_TITLE}([A-Z][a-z]+)[,!?.]")
# The owner greeting or thanking someone by name, titles allowed: "Hi Mr. Fahey", "thanks, Dr. Lund".
_GREETING = re.compile(rf"\b(?i:hi|hey|hello|thanks|thank you|bye|morning)[,!]?\s+{_TITLE}?([A-Z][a-z]+)\b")


def is_real_name(label: str) -> bool:
    label = (label or "").strip()
    return bool(label) and not _GENERIC_LABEL.match(label) and label[0].isupper()


_KIN = (
    r"(?:husband|wife|partner|boyfriend|girlfriend|fianc\w*|sister|brother|mom|mother|dad|father|son|daughter|"
    r"cousin|aunt|uncle|grandmother|grandfather|grandma|grandpa|niece|nephew|roommate|best friend|boss)"
)
_INTRODUCTION = re.compile(
    rf"\b(?i:this is|meet|that's|here's)\s+(?:(?P<name1>[A-Z][a-z]+)[.,]\s+(?i:my|our)\s+(?P<rel1>(?i:{_KIN}))\b|"
    rf"(?i:my|our)\s+(?P<rel2>(?i:{_KIN})),?\s+(?P<name2>[A-Z][a-z]+)\b)"
)


def _addressee(text: str, owner: str) -> str:
    cleaned = clean(text)
    for pattern in (_VOCATIVE_LEAD, _VOCATIVE_TAIL):
        for m in pattern.finditer(cleaned):
            name = m.group(1)
            if pattern is _VOCATIVE_LEAD and _imperative(name):
                continue
            if _name_like(name) and name.lower() != owner.lower():
                return name
    return ""


def _imperative(word: str) -> bool:
    """A sentence-initial word that can be a verb is more likely an order ("Stop, you'll make me cry", "Look,
    …") than a name; names said first still count from a greeting or a closing vocative."""
    return "VERB" in readings(word)


def _name_like(word: str) -> bool:
    """Could this capitalised word be a person's name? Not a listed non-name, and not an English word that is
    only a verb, adjective or adverb ("Fixed, it was…", "Perfect, thanks")."""
    if word in NOT_NAMES:
        return False
    tags = readings(word)
    return not tags or "NOUN" in tags or "PROPN" in tags


class SpeakerNames(dict):
    """label -> person name; ``sure`` holds the labels named by the provider or by the speaker themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.sure: set[str] = set()


SELF_INTRO_WEIGHT = 5


SELF_INTRO_WEIGHT = 5
SURE_ADDRESSES = 2  # a label called by the same name in this many turns is surely that person
# What a vocative can never be: a place, a firm, a date or a number (the recogniser's labels).
# (Not ORG or NORP: the small model gives those to rare first names.)
_NOT_A_PERSON = {"GPE", "LOC", "FAC", "DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY"}


def _resolve_speakers(conv: ConversationIn, owner: str) -> SpeakerNames:
    """Map each non-owner speaker label to a person name: the provider's name when it has one, else the name
    they give themselves ("it's Hedda"), else the name the others call them by (a vocative or greeting in a
    turn of another speaker right before or after theirs, anywhere in the conversation; a kinship word only from
    the owner: "Mum" is the owner's mother). A label called by one name in two or more turns, or naming itself,
    is sure."""
    votes: dict[str, dict[str, int]] = {}
    addressed: dict[str, dict[str, set[int]]] = {}
    names = SpeakerNames()
    intros: dict[str, set[str]] = {}
    utts = conv.turns
    # Words used as places in this conversation ("lock in Lisbon", "back from Tulsa") are not people's names.
    places = {m.group(1) for u in utts for m in _PLACE_USE.finditer(clean(u.text))}
    for i, utt in enumerate(utts):
        if utt.is_owner:
            continue
        if is_real_name(utt.speaker_name):
            names[utt.speaker_name] = utt.speaker_name
            names.sure.add(utt.speaker_name)
            continue
        introduced = {g for m in _INTRODUCTION.finditer(clean(utt.text)) for g in (m.group("name1"), m.group("name2"))}
        for m in _SELF_INTRO.finditer(clean(utt.text)):
            name = m.group(1)
            if name in introduced:
                continue  # "This is Leif. My husband.": introducing someone else, not themselves
            if name.split()[0] not in NOT_NAMES and name.split()[0].lower() != owner.lower():
                # Naming yourself is the strongest cue talk gives.
                votes.setdefault(utt.speaker_name, {}).setdefault(name, 0)
                votes[utt.speaker_name][name] += SELF_INTRO_WEIGHT
                intros.setdefault(utt.speaker_name, set()).add(name)
        for j in (i - 1, i + 1):
            if not 0 <= j < len(utts) or not _another(utts[j], utt):
                continue
            for name, weight in _vocatives(utts[j], owner, places):
                votes.setdefault(utt.speaker_name, {}).setdefault(name, 0)
                votes[utt.speaker_name][name] += weight
                addressed.setdefault(utt.speaker_name, {}).setdefault(name, set()).add(j)
    taken = set(names.values())
    for label, counts in votes.items():
        counts = _merge_name_parts(counts)
        best = max(counts.items(), key=lambda kv: kv[1])
        if best[0] not in taken:
            names[label] = best[0]
            taken.add(best[0])
            turns = {j for name, js in addressed.get(label, {}).items() if name in best[0].split() or name == best[0]
                     for j in js}  # fmt: skip
            if best[0] in intros.get(label, set()) or len(turns) >= SURE_ADDRESSES:
                names.sure.add(label)
    return names


def _another(a, b) -> bool:
    return a.speaker_name != b.speaker_name or a.is_owner != b.is_owner


def _vocatives(turn, owner: str, places: set[str]) -> list[tuple[str, int]]:
    """(name, weight) of each name ``turn`` says to someone: a trailing vocative ("..., Petra!") or a greeting
    weighs more than a leading word, a title ("Mrs. Ferro!") most. Only words the parser reads as proper nouns
    and the recogniser as no place, firm, date or number ("Shh,", "Naw,", "Fourteen," are not names); a kinship
    word only when the owner says it, as the owner's kin. Another speaker's vocative weighs less: with three or
    more people talking it may be said to someone else."""
    text = clean(turn.text)
    found = [(m.group(1), 1) for m in _VOCATIVE_LEAD.finditer(text) if not _imperative(m.group(1))]
    found += [(m.group(1), 3) for m in _TITLED.finditer(text)]
    found += [(m.group(1), 2) for m in _VOCATIVE_TAIL.finditer(text)]
    found += [(m.group(1), 2) for m in _GREETING.finditer(text)]
    out = []
    for name, weight in found:
        kin = _KIN_VOCATIVES.get(name.lower())
        if kin:
            if turn.is_owner:
                out.append((f"{owner}'s {kin}", weight + 1))
            continue
        if not _name_like(name) or name in places or name.lower() == owner.lower() or not _read_as_a_name(text, name):
            continue
        out.append((name, weight if turn.is_owner else max(weight - 1, 1)))
    return out


def _read_as_a_name(text: str, name: str) -> bool:
    """Does the parse of ``text`` read ``name`` as a proper noun that is no place, firm, date or number?"""
    from distill.extraction import nlp

    doc = nlp.parse([text])[0]
    tokens = [t for t in doc if t.text == name]
    if not tokens:
        return True  # the tokeniser split it otherwise: the pattern's reading stands
    nlp.entities([doc])
    # A word the parser makes the root of its own sentence ("Morning, …", "Shh, …") is a greeting or an
    # interjection, not a name said to someone.
    return any(t.tag_ in ("NNP", "NNPS") and t.dep_ != "ROOT" and t.ent_type_ not in _NOT_A_PERSON for t in tokens)


_PLACE_USE = re.compile(
    r"\b(?:in|from|into|near|visiting|around|through|outside|downtown|flights? to|trip to|move to|moving to|"
    r"fly(?:ing)? to|drive to|driving to|(?:went|go|goes|going|gone|been|came|come|coming|back|moved|headed|heading|"
    r"travel(?:l?ed|ling)?) to)\s+([A-Z][a-z]+)\b(?!')"
)


def _merge_name_parts(counts: dict[str, int]) -> dict[str, int]:
    """ "Tord Fahey" (self-introduction) and "Fahey" (greeting "Hi Mr. Fahey") are one person: fold a single
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
