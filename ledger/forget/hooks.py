"""Forget hooks: apps that keep copies of what the ledger forgets register here, so a forget removes those
copies in the same transaction (a failing hook rolls the whole forget back: nothing is half-forgotten).

The ledger cannot import those apps (imports run one way); they register from ``AppConfig.ready()``.

Two kinds of hook:

- ``register_forget_hook(fn)``: ``fn(*, owner, fact_ids, fact_public_ids, episode_ids)`` after ledger rows
  were deleted (recall drops their vectors, usage counts and cached blocks).
- ``register_forget_handler(fn)``: ``fn(event: ForgetEvent) -> dict[str, int]`` for every forget of a person,
  a source or a fact, also when no ledger row was left to delete. Sources use it to scrub what they store:
  a forgotten person's turns removed and name redacted in transcripts, chats and screen events (keeping only
  hashes), a forgotten source's documents. Return counts for the report (e.g. ``{"utterances_removed": 3}``).

Afterwards, ingest must keep the person out: ``forgotten_names(owner)`` gives a ``NameMatcher`` built from
the lasting refusals (hashes only) that tells whether a speaker name is forgotten and redacts mentions in text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

ForgetHook = Callable[..., None]
ForgetHandler = Callable[["ForgetEvent"], dict | None]
_HOOKS: list[ForgetHook] = []
_HANDLERS: list[ForgetHandler] = []

FORGOTTEN = "[forgotten]"


@dataclass(frozen=True)
class ForgetEvent:
    """What was forgotten. ``names`` (scope "entity") are the person's names and aliases, in memory only: a
    handler may use them to find and redact text but must never store them."""

    owner: object
    scope: str  # "entity" | "source" | "fact"
    commit_id: str = ""
    names: tuple[str, ...] = ()
    source_label: str = ""  # scope "source": the ledger source label, e.g. "wearable:bee", "chat:claude-code"
    fact_public_ids: tuple[str, ...] = ()
    matcher: NameMatcher | None = None  # scope "entity": matches and redacts the names (see NameMatcher)


def register_forget_hook(hook: ForgetHook) -> None:
    if hook not in _HOOKS:
        _HOOKS.append(hook)


def unregister_forget_hook(hook: ForgetHook) -> None:
    if hook in _HOOKS:
        _HOOKS.remove(hook)


def register_forget_handler(handler: ForgetHandler) -> None:
    if handler not in _HANDLERS:
        _HANDLERS.append(handler)


def unregister_forget_handler(handler: ForgetHandler) -> None:
    if handler in _HANDLERS:
        _HANDLERS.remove(handler)


def run_forget_hooks(*, owner, fact_ids=(), fact_public_ids=(), episode_ids=()) -> None:
    """Called inside the forgetting transaction; a failing hook rolls the forget back (nothing half-done)."""
    if not (fact_ids or episode_ids):
        return
    for hook in list(_HOOKS):
        hook(owner=owner, fact_ids=list(fact_ids), fact_public_ids=list(fact_public_ids), episode_ids=list(episode_ids))


def run_forget_handlers(event: ForgetEvent) -> dict[str, int]:
    """Every registered handler, in registration order, inside the caller's transaction; counts summed."""
    counts: dict[str, int] = {}
    for handler in list(_HANDLERS):
        for key, value in (handler(event) or {}).items():
            counts[key] = counts.get(key, 0) + int(value)
    return counts


# --- Matching forgotten names without keeping them ------------------------------------------------------
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def normalize_name(name: str) -> str:
    """Lowercase, accents folded, punctuation dropped (the same form ``ledger.hashing.normalize_name`` hashes)."""
    from ledger import hashing

    return hashing.normalize_name(name)


def name_hash(name: str) -> str:
    from ledger import hashing

    return hashing.short_hash("name:" + normalize_name(name))


@dataclass
class NameMatcher:
    """Hashes of forgotten names; finds them in speaker names and text (up to ``max_words`` words long)."""

    hashes: set[str] = field(default_factory=set)
    max_words: int = 4

    def __bool__(self) -> bool:
        return bool(self.hashes)

    def is_forgotten(self, name: str) -> bool:
        """A speaker or entity called ``name`` (or whose name contains a forgotten full name, "Dr. Lena Varga")."""
        if not self.hashes or not (name or "").strip():
            return False
        if name_hash(name) in self.hashes:
            return True
        # "Dr. Lena Varga" holds the forgotten full name; "Lena Park" only shares a first name: someone else.
        return any(len(_WORD.findall(name[a:b])) > 1 for a, b in self.spans(name))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of forgotten names in ``text`` (longest match first, not overlapping)."""
        if not self.hashes or not text:
            return []
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        out: list[tuple[int, int]] = []
        i = 0
        while i < len(words):
            hit = 0
            for n in range(min(self.max_words, len(words) - i), 0, -1):
                chunk = text[words[i][0] : words[i + n - 1][1]]  # "O'Brien" stays one name
                if name_hash(chunk) in self.hashes:
                    hit = n
                    break
            if hit:
                out.append((words[i][0], words[i + hit - 1][1]))
                i += hit
            else:
                i += 1
        return out

    def redact(self, text: str, replacement: str = FORGOTTEN) -> str:
        spans = self.spans(text)
        for start, end in reversed(spans):
            end2 = end + 2 if text[end : end + 2] in ("'s", "\u2019s") else end
            text = text[:start] + replacement + text[end2:]
        return text


def person_name_variants(names) -> list[str]:
    """A person's names, each full name's first word ("Lena Varga" -> "Lena": people are mostly called by their
    first name in conversation), and the family name after a title ("Ms Varga", "Dr Varga"): the family name
    alone is often a word ("Park", "Rose") and is left to the full forms."""
    out: list[str] = []
    for name in names:
        name = (name or "").strip()
        if not name:
            continue
        out.append(name)
        words = name.split()
        if len(words) > 1 and len(words[0].strip(".")) > 2 and words[0].rstrip(".").lower() not in _TITLES:
            out.append(words[0])
            out += [f"{title} {words[-1]}" for title in _ADDRESSED]
    return list(dict.fromkeys(out))


_TITLES = {"dr", "mr", "mrs", "ms", "mx", "prof", "sir", "aunt", "uncle"}
_ADDRESSED = ("Dr", "Mr", "Mrs", "Ms", "Miss", "Mx", "Prof")


def forgotten_names(owner) -> NameMatcher:
    """The owner's forgotten people (from lasting refusals; hashes only) as a matcher for ingest and scrubbing."""
    from ledger.models import Refusal

    hashes: set[str] = set()
    rows = Refusal.objects.filter(owner=owner, kind=Refusal.Kind.FORGOTTEN_ENTITY, lifted_at__isnull=True)
    for name_hashes in rows.values_list("name_hashes", flat=True):
        hashes.update(name_hashes or [])
    return NameMatcher(hashes=hashes)


def matcher_for(names) -> NameMatcher:
    return NameMatcher(hashes={name_hash(n) for n in person_name_variants(names)})
