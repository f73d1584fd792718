"""Canonical serialisation, digests and claim keys. Pure: no database, no Django models.

- ``canonical_json``: sort_keys, compact separators, UTF-8 kept, datetimes as ISO UTC strings.
- ``commit_id(parent, mutations)``: sha256 of the canonical ``{"parent_commit_id", "mutations"}`` where each
  mutation is in sealed form (its ``payload`` replaced by ``payload_hash``), so forgetting a payload later
  leaves every commit id intact.
- ``proposition_key`` / ``text_key`` / ``token_signature`` identify "the same claim" across extractions and
  paraphrases, and are all that a refusal keeps.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from accounts import timestamps as accounts_timestamps
from ledger import values
from ledger.lexicon import KEY_STOPWORDS, NEGATIONS, SYNONYMS, key_stem, normalize_text

GENESIS = ""
ID_NAMESPACE = uuid.UUID("6f1d3c1e-8a52-4d3b-9f4e-4c1a2b7d9e00")


def _default(value: Any):
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("naive datetime in a ledger payload")
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def to_jsonable(value: Any) -> Any:
    """Round-trip through canonical JSON: what the database will store and what replay will see."""
    return json.loads(canonical_json(value))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest(value: Any) -> str:
    return sha256_hex(canonical_json(value))


def short_hash(text: str) -> str:
    return sha256_hex(text)[:16]


def iso(value: datetime | None) -> str | None:
    return None if value is None else _default(value)


def parse_iso(value: str | None) -> datetime | None:
    return accounts_timestamps.parse_iso(value) if value else None


# --- Commits ------------------------------------------------------------------------------------------
def seal(mutation: dict) -> dict:
    """The hashed form of a mutation: everything but ``payload``, plus ``payload_hash``."""
    sealed = {k: v for k, v in mutation.items() if k not in ("payload", "payload_hash", "forgotten")}
    if "payload" in mutation and mutation["payload"] is not None:
        sealed["payload_hash"] = digest(mutation["payload"])
    else:
        sealed["payload_hash"] = mutation.get("payload_hash", "")
    return sealed


def commit_id(parent_commit_id: str, mutations: list[dict]) -> str:
    return digest({"parent_commit_id": parent_commit_id or GENESIS, "mutations": [seal(m) for m in mutations]})


def derived_uuid(*parts: Any) -> str:
    """A deterministic id: same inputs, same id (facts, evidence and entities get theirs this way)."""
    return str(uuid.uuid5(ID_NAMESPACE, canonical_json(list(parts))))


# --- Claim keys ---------------------------------------------------------------------------------------
_FIRST_PERSON = {"i", "me", "my", "mine", "myself", "im", "ive", "ill", "id", "user", "users", "you", "your", "yours"}
_TOKEN_RE = re.compile(r"[0-9]+(?:[.:][0-9]+)*|[^\W\d_]+", re.UNICODE)


# The folding inside stored keys is ``ledger.lexicon.key_stem`` (frozen at ledger.lexicon.KEY_VERSION: a refusal
# keeps matching the claim it refused).
_stem = key_stem


# Capitalised sentence openers that are everyday words, not names ("Yesterday", "Apparently", "Moving").
OPENERS = frozenset(
    """yesterday today tonight tomorrow last next this every ok okay yeah yep hey hi hello thanks thank please
    remember note fyi btw anyway honestly basically also plus maybe perhaps user users likes loves lives works
    wants needs prefers""".split()
)


def is_common_word(word: str) -> bool:
    """An everyday word (for telling a capitalised sentence opener from a name)."""
    return (
        word in KEY_STOPWORDS
        or word in _FIRST_PERSON
        or word in OPENERS
        or word in SYNONYMS
        or word in NEGATIONS
        or word.endswith(("ly", "ing", "ed"))
    )


def _kept_tokens(text: str, names=()) -> list[tuple[str, str]]:
    """(stemmed token, kind) for every content word; kinds from ``ledger.values`` (n value, p name, w word)."""
    out: list[tuple[str, str]] = []
    for tok in values.scan(text, names=names, is_common=is_common_word):
        word = tok.text
        if tok.kind == values.NUMBER:
            out.append((word, "n"))
            continue
        word = "".join(_TOKEN_RE.findall(word))
        if not word or word in _FIRST_PERSON or word in KEY_STOPWORDS:
            continue  # who the claim is about is carried by the subject key, not the words
        stem = _stem(word)
        out.append((stem, "x" if stem == "not" else tok.kind))
    return out


def content_tokens(text: str) -> list[str]:
    """Normalized, stemmed content words; number words as digits ("twelve" -> "12"); first person dropped."""
    return [t for t, _ in _kept_tokens(text)]


def text_key(text: str) -> str:
    """Same claim, same wording modulo case, punctuation, pronouns, stopwords and word order."""
    return sha256_hex(" ".join(sorted(set(content_tokens(text)))))


def _token_hash(token: str, kind: str = "") -> str:
    # One kind letter + 15 hex digits: values ("n": numbers, times, dates, amounts), names ("p") and negation
    # ("x") stay recognisable after hashing, so similarity can tell "meeting at 3" from "meeting at 4",
    # "Lisbon" from "Porto" and "allergic" from "not allergic". The 15 digits depend on the token only.
    kind = kind or ("x" if token == "not" else "n" if token[:1].isdigit() else "w")
    return kind + short_hash("tok:" + token)[:15]


def token_signature(text: str, exclude_names=(), known_names=()) -> list[str]:
    """Hashed content tokens: lets a refusal match paraphrases without keeping any text.

    ``exclude_names``: the subject's names; they are carried by the subject key, and leaving them in would
    make every claim about the same person look alike. ``known_names``: names (e.g. the owner's entities)
    that count as proper nouns even when written in lower case.
    """
    excluded = {t for name in exclude_names for t in content_tokens(name)}
    known = {w for name in known_names for w in normalize_text(name).split()}
    kept = _kept_tokens(text, names=known)
    return sorted({_token_hash(t, kind) for t, kind in kept if t not in excluded})


def bodies(signature) -> set[str]:
    """A signature's hashes without their kind letter (a name written in lower case is still the same word)."""
    return {t[1:] for t in signature}


def values_conflict(a, b) -> bool:
    """Each claim holds a value (number, time, date, amount, name) the other does not mention: they say
    different things ("twelve years" vs "twenty years", "Lisbon" vs "Porto"), however similar the rest."""
    va, vb = {t[1:] for t in a if t[0] in "np"}, {t[1:] for t in b if t[0] in "np"}
    return bool(va - bodies(b)) and bool(vb - bodies(a))


def contradicts(a, b) -> bool:
    """Two signatures of claims about one subject that say opposite things: the same words with the polarity
    flipped ("allergic to peanuts" / "not allergic to peanuts", a detail or two added on one side), or the same
    words holding different values ("lives in Lisbon" / "lives in Porto", "at 3pm" / "at 4pm"). Only what the
    hashed words can show: a red bicycle and a blue one look alike here, a denial of one value beside another
    value ("not in Lisbon" / "in Porto") is no contradiction."""
    sa, sb = set(a), set(b)
    wa, wb = {t[1:] for t in sa if t[0] == "w"}, {t[1:] for t in sb if t[0] == "w"}
    if not wa or not wb:
        return False
    if any(t[0] == "x" for t in sa) != any(t[0] == "x" for t in sb):
        small, large = sorted((wa, wb), key=len)
        return small <= large and len(large - small) <= 2 and not values_conflict(sa, sb)
    return wa == wb and values_conflict(sa, sb)


def normalize_name(name: str) -> str:
    return normalize_text(name)


def subject_key(subject_kind: str, entity_id: str | None = None) -> str:
    if subject_kind == "third_party" and entity_id:
        return f"entity:{entity_id}"
    return subject_kind


def normalize_arguments(arguments: dict | None) -> dict:
    out = {}
    for key, value in sorted((arguments or {}).items()):
        if isinstance(value, str):
            out[str(key)] = normalize_text(value)
        elif isinstance(value, (list, tuple)):
            out[str(key)] = sorted(normalize_text(v) if isinstance(v, str) else canonical_json(v) for v in value)
        else:
            out[str(key)] = value
    return out


def proposition_key(subject: str, predicate: str, arguments: dict | None, content: str = "") -> str:
    """sha256 of canonical {subject, predicate, normalized arguments}. Without arguments the text stands in."""
    args = normalize_arguments(arguments)
    if not args:
        args = {"_text": " ".join(sorted(set(content_tokens(content))))}
    return digest({"subject": subject, "predicate": normalize_text(predicate or "states"), "arguments": args})


def similarity(a: list[str] | set[str], b: list[str] | set[str]) -> float:
    """Paraphrase similarity of two token signatures.

    Jaccard, raised when one claim is a (near) subset of the other: sharing at least three content words
    ("Maya lives in Portland" vs "Maya now lives in Portland, Oregon"), or all of a short claim's words with
    at most two added ("bought a kayak" vs "bought a kayak last week"). Opposite polarity or different
    values (``values_conflict``) score 0.
    """
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    if any(t[0] == "x" for t in sa) != any(t[0] == "x" for t in sb):
        return 0.0  # opposite polarity: a denial is never a paraphrase of the claim
    if values_conflict(sa, sb):
        return 0.0  # different values (numbers however written, dates, times, amounts, names): a different claim
    ba, bb = bodies(sa), bodies(sb)
    inter = len(ba & bb)
    jaccard = inter / len(ba | bb)
    containment = inter / min(len(ba), len(bb))
    if inter >= 3 and containment >= 0.85:
        return max(jaccard, containment * 0.9)
    if inter >= 2 and containment == 1.0 and len(ba ^ bb) <= 2:
        return max(jaccard, 0.75)  # the same short claim with a detail added ("... last week")
    return jaccard


PARAPHRASE_THRESHOLD = 0.6
