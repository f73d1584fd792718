"""Who is speaking and who is addressed: provider names, self-introductions ("it's Hannah"), the owner's
greetings and vocatives, introductions of a relation ("This is Marcus. My husband."). General cues only."""

from __future__ import annotations

import re

from distill.extraction.base import ConversationIn
from distill.extraction.screens import readings
from distill.extraction.text import clean

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
# A name said to someone: at the start of a sentence (after an interjection too: "Yes, Mom, ...") or closing it.
_VOCATIVE_LEAD = re.compile(
    r"(?:^|[.!?]\s+)(?:(?i:yes|yeah|no|okay|ok|sure|thanks|oh|hey|hi|well|right),?\s+)?([A-Z][a-z]+)[,!]"
)
_VOCATIVE_TAIL = re.compile(r",\s*([A-Z][a-z]+)(?:[.!?]+|$)")
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)"
# A speaker naming themselves: "it's Hannah", "this is Tom Brennan, returning your call", "my name is Ana".
_SELF_INTRO = re.compile(
    rf"(?:^|[.!?,]\s+|\b(?i:hi|hey|hello|yes|yeah|please)[,!]?\s+)(?i:it's|it is|this is|my name is|call me|i'm|i am)\s+"
    rf"{_TITLE}?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\b(?!')"
)
_TITLED = re.compile(rf"(?:^|[.!?]\s+){_TITLE}([A-Z][a-z]+)[,!?.]")
# The owner greeting or thanking someone by name, titles allowed: "Hi Mr. Brennan", "thanks, Dr. Cho".
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
    if word in _NOT_NAMES:
        return False
    tags = readings(word)
    return not tags or "NOUN" in tags or "PROPN" in tags


class SpeakerNames(dict):
    """label -> person name; ``sure`` holds the labels named by the provider or by the speaker themselves."""

    def __init__(self) -> None:
        super().__init__()
        self.sure: set[str] = set()


SELF_INTRO_WEIGHT = 5


def _resolve_speakers(conv: ConversationIn, owner: str) -> SpeakerNames:
    """Map each non-owner speaker label to a person name: the provider's name when it has one, else the name
    they give themselves ("it's Hannah"), else the name the owner calls them by (a vocative or greeting in the
    owner's turn right before or after theirs)."""
    votes: dict[str, dict[str, int]] = {}
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
                continue  # "This is Marcus. My husband.": introducing someone else, not themselves
            if name.split()[0] not in _NOT_NAMES and name.split()[0].lower() != owner.lower():
                # Naming yourself is the strongest cue talk gives.
                votes.setdefault(utt.speaker_name, {}).setdefault(name, 0)
                votes[utt.speaker_name][name] += SELF_INTRO_WEIGHT
                intros.setdefault(utt.speaker_name, set()).add(name)
        for j in (i - 1, i + 1):
            if 0 <= j < len(utts) and utts[j].is_owner:
                text = clean(utts[j].text)
                # A trailing vocative ("..., Petra!") is a safer name than a leading word.
                found = [(m.group(1), 1) for m in _VOCATIVE_LEAD.finditer(text) if not _imperative(m.group(1))]
                found += [(m.group(1), 3) for m in _TITLED.finditer(text)]  # "Mrs. Ortiz!": surely a name
                found += [(m.group(1), 2) for m in _VOCATIVE_TAIL.finditer(text)]
                found += [(m.group(1), 2) for m in _GREETING.finditer(text)]
                for name, weight in found:
                    kin = _KIN_VOCATIVES.get(name.lower())
                    if kin:
                        name, weight = f"{owner}'s {kin}", weight + 1
                    if (kin or (_name_like(name) and name not in places)) and name.lower() != owner.lower():
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
