"""People, places and organisations replaced by role tokens before the turn reader sees a turn.

The turn reader (``distill.turn_reader``) must learn *what kind of sentence* states a durable fact, never *who*
said it: a model that can see names learns the people of its training talk. So every input is masked the same
way in training and at run time:

- the owner's name (any of its words, any case, with or without "'s") → ``[OWNER]``;
- the other speakers' display names, when the source gives names → ``[OTHER]``;
- any other person the parser finds → ``[PERSON1]``, ``[PERSON2]``, … numbered by first mention in the
  conversation (so "she" and the name stay linkable within it, never across conversations);
- places and organisations → ``[PLACE]`` and ``[ORG]``: a town or an employer identifies a person as well as a
  name does.

Device speaker labels ("SPEAKER_01", "0", "Unknown") never reach the text: the speaker is given as a role.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

OWNER, OTHER, PLACE, ORG = "[OWNER]", "[OTHER]", "[PLACE]", "[ORG]"
_PERSON_LABELS = {"PERSON"}
_PLACE_LABELS = {"GPE", "LOC", "FAC"}
_ORG_LABELS = {"ORG"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
# Device labels that are not names: Limitless "user"/"Unknown", Bee digits, Omi "SPEAKER_00".
_LABEL = re.compile(r"^(?:user|unknown|speaker[ _-]?\d+|\d+|you|me|assistant|system)$", re.IGNORECASE)


def name_words(name: str) -> set[str]:
    """The words of a display name worth masking (a device label gives none)."""
    if not name or _LABEL.match(name.strip()):
        return set()
    return {w.lower().strip("'\u2019") for w in _WORD.findall(name) if len(w) > 1}


def _known_names(text: str, owner: set[str], others: set[str]) -> str:
    def swap(m: re.Match) -> str:
        word = m.group(0)
        base = re.sub(r"['\u2019]s$", "", word).lower()
        tail = word[len(base) :] if len(word) > len(base) else ""
        if base in owner:
            return OWNER + tail
        if base in others:
            return OTHER + tail
        return word

    return _WORD.sub(swap, text)


def mask_conversation(texts: Sequence[str], *, owner_name: str, speaker_names: Sequence[str] = ()) -> list[str]:
    """Each turn's text with names, places and organisations masked (one numbering of people per conversation)."""
    from distill.extraction import nlp

    owner = name_words(owner_name)
    others = set().union(*(name_words(n) for n in speaker_names)) - owner if speaker_names else set()
    people: dict[str, str] = {}
    out = []
    docs = nlp.parse(list(texts))
    nlp.entities(docs)
    for doc in docs:
        pieces, last = [], 0
        for ent in doc.ents:
            if ent.label_ in _PERSON_LABELS:
                key = re.sub(r"['\u2019]s$", "", ent.text).lower()
                words = set(key.split())
                if words & owner:
                    token = OWNER
                elif words & others:
                    token = OTHER
                else:
                    token = people.setdefault(key, f"[PERSON{len(people) + 1}]")
            elif ent.label_ in _PLACE_LABELS:
                token = PLACE
            elif ent.label_ in _ORG_LABELS:
                token = ORG
            else:
                continue
            possessive = "'s" if re.search(r"['\u2019]s$", ent.text) or doc[ent.end - 1].tag_ == "POS" else ""
            pieces += [doc.text[last : ent.start_char], token + possessive]
            last = ent.end_char
        pieces.append(doc.text[last:])
        out.append(_known_names("".join(pieces), owner, others))
    return out
