"""People, places and organisations replaced by role tokens before the turn reader sees a turn.

The turn reader (``distill.turn_reader``) must learn *what kind of sentence* states a durable fact, never *who*
said it: a model that can see names learns the people of its training talk. So every input is masked the same
way in training and at run time:

- the owner's name (any of its words, any case, with or without "'s") → ``[OWNER]``;
- the other speakers' display names, when the source gives names → ``[OTHER]``;
- any other person the parser finds → ``[PERSON1]``, ``[PERSON2]``, … numbered by first mention in the
  conversation (so "she" and the name stay linkable within it, never across conversations);
- places and organisations → ``[PLACE]`` and ``[ORG]``: a town or an employer identifies a person as well as a
  name does;
- a proper noun the recogniser left out, inside a sentence → ``[NAME]``;
- and every word masked once is masked wherever it recurs in the conversation, in any case (the small parser
  finds a name in one sentence and misses it in the next; speech recognition writes "ilse" for "Ilse").

Device speaker labels ("SPEAKER_01", "0", "Unknown") never reach the text: the speaker is given as a role.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

OWNER, OTHER, PLACE, ORG, NAME = "[OWNER]", "[OTHER]", "[PLACE]", "[ORG]", "[NAME]"
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


def _known_names(text: str, names: dict[str, str]) -> str:
    """Every word that is a known name (any case, with or without "'s") → its token."""

    def swap(m: re.Match) -> str:
        word = m.group(0)
        base = re.sub(r"['\u2019]s$", "", word)
        token = names.get(base.lower())
        return word if token is None else token + word[len(base) :]

    return _WORD.sub(swap, text)


def mask_conversation(texts: Sequence[str], *, owner_name: str, speaker_names: Sequence[str] = ()) -> list[str]:
    """Each turn's text with names, places and organisations masked (one numbering of people per conversation).

    A person the parser finds once is masked wherever the words of that name recur in the conversation (the
    small parser misses a name in some sentences it finds it in others)."""
    from distill.extraction import nlp

    owner = name_words(owner_name)
    others = set().union(*(name_words(n) for n in speaker_names)) - owner if speaker_names else set()
    names = {w: OWNER for w in owner} | {w: OTHER for w in others}
    people: dict[str, str] = {}
    docs = nlp.parse(list(texts))
    nlp.entities(docs)
    spans = []
    for doc in docs:
        found = []
        for ent in doc.ents:
            if ent.label_ in _PERSON_LABELS:
                key = re.sub(r"['\u2019]s$", "", ent.text).lower()
                words = {w.lower().strip("'\u2019") for w in _WORD.findall(key) if len(w) > 1}
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
            for w in _WORD.findall(re.sub(r"['\u2019]s$", "", ent.text)):
                if len(w) > 1 and w[0].isupper():
                    names.setdefault(w.lower(), token)
            possessive = "'s" if re.search(r"['\u2019]s$", ent.text) or doc[ent.end - 1].tag_ == "POS" else ""
            found.append((ent.start_char, ent.end_char, token + possessive))
        covered = {i for ent in doc.ents for i in range(ent.start, ent.end)}
        for tok in doc:  # a proper noun the recogniser left out, inside a sentence: a name of some kind
            if tok.pos_ == "PROPN" and tok.i not in covered and not tok.is_sent_start and tok.text[:1].isupper():
                names.setdefault(tok.text.lower(), NAME)
        spans.append(found)
    out = []
    for doc, found in zip(docs, spans, strict=True):
        pieces, last = [], 0
        for start, end, token in found:
            pieces += [_known_names(doc.text[last:start], names), token]
            last = end
        pieces.append(_known_names(doc.text[last:], names))
        out.append("".join(pieces))
    return out
