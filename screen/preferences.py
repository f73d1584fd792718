"""User preferences as policy: "track all ranked matches", "do not retain shopping research".

A preference is stored as ``{action, subject, text}`` on the owner's ``ScreenSource``: ``action`` is ``track``
(curate matching events into durable memory) or ``exclude`` (never retain: curation ignores them and their
evidence excerpts are dropped). ``subject`` is the content words of the phrase after the verb; an event matches
when every subject word (singular or plural) appears in its type, title, entities or attributes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from accounts.exceptions import DomainError
from accounts.wordforms import lemma_of
from screen.text import words

TRACK, EXCLUDE = "track", "exclude"
_EXCLUDE_VERBS = re.compile(
    r"^\s*(?:please\s+)?(?:do\s+not|don'?t|never|stop)\s+(?:retain|keep|track|remember|store|record|save)\s+", re.I
)
_TRACK_VERBS = re.compile(r"^\s*(?:please\s+)?(?:always\s+)?(?:track|keep|remember|record|retain|save)\s+", re.I)
_FILLER = frozenset(
    "all my any every the of a an about and for on in research stuff things activity activities session sessions "
    "work browsing".split()
)


class PreferenceError(DomainError):
    status_code = 422


@dataclass(frozen=True)
class Preference:
    action: str
    subject: list[str]
    text: str

    def as_dict(self) -> dict:
        return {"action": self.action, "subject": self.subject, "text": self.text}


@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    """A word's singular ("matches" -> "match", "stories" -> "story", "news" and "analysis" stay), from
    lemminflect's English lexicon; it keeps readable words, which the API returns as the subject
    (``["ranked", "match"]``), where a Snowball stem would not (``purchase`` -> ``purchas``)."""
    lemmas = lemma_of(word, upos="NOUN")
    return lemmas[0] if lemmas else word


def parse(text: str) -> Preference:
    """Read one preference phrase; raises ``PreferenceError`` when it says neither track nor not-retain."""
    phrase = (text or "").strip()
    if not phrase or len(phrase) > 200 or not phrase.isprintable():
        raise PreferenceError("a preference is 1 to 200 characters")
    m = _EXCLUDE_VERBS.match(phrase)
    action = EXCLUDE if m else None
    if m is None:
        m = _TRACK_VERBS.match(phrase)
        action = TRACK if m else None
    if m is None:
        raise PreferenceError("say what to do: 'track …' or 'do not retain …'")
    subject = [_stem(w) for w in words(phrase[m.end() :]) if w not in _FILLER]
    if not subject:
        raise PreferenceError("say what the preference is about")
    return Preference(action, subject, phrase)


def event_words(event) -> set[str]:
    parts = [event.event_type.replace(".", " ").replace("_", " "), event.title, " ".join(map(str, event.entities))]
    parts += [str(v) for v in (event.attributes or {}).values() if isinstance(v, (str, int))]
    parts += [str(a) for a in (event.user_actions or [])]
    return {_stem(w) for w in words(" ".join(parts))}


def matching(preferences: list[dict], event) -> Preference | None:
    """The first preference whose subject words all appear in the event; exclusions win over tracking."""
    have = event_words(event)
    found = None
    for raw in preferences or []:
        pref = Preference(raw.get("action", ""), list(raw.get("subject") or []), raw.get("text", ""))
        if pref.subject and all(w in have or _related(w, have) for w in pref.subject):
            if pref.action == EXCLUDE:
                return pref
            found = found or pref
    return found


# A subject word may name the event's namespace by a near word ("shopping" for "purchase"): the few generic
# namespaces the generic path itself produces are given their everyday names, nothing domain-specific beyond it.
_NAMESPACE_NAMES = {"purchase": {"shopping", "buying", "order", "checkout"}, "software": {"coding", "programming"}}


def _related(word: str, have: set[str]) -> bool:
    return any(word in names and ns in have for ns, names in _NAMESPACE_NAMES.items())
