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
import unicodedata
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

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
    if not value:
        return None
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt


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
STOPWORDS = frozenset(
    """a an the and or but of to in on at for from by with as is are was were be been being am do does did
    has have had having that this these those it its it's there here then than so very really just also
    now currently still too yes he she they them his her their our we us who whom which what when where
    will would shall should can could may might must about into over after before up down out off again
    once some any all each more most other such only own same both few s t d ll m o re ve y said says say
    mentioned told tells tell noted thinks think believe believes apparently actually probably maybe
    kind sort well oh um uh""".split()
)
# Light synonym folding so common paraphrases land on the same token.
SYNONYMS = {
    "resides": "live",
    "reside": "live",
    "residing": "live",
    "resided": "live",
    "lives": "live",
    "living": "live",
    "lived": "live",
    "home": "live",
    "based": "live",
    "stays": "live",
    "stay": "live",
    "works": "work",
    "working": "work",
    "worked": "work",
    "employed": "work",
    "job": "work",
    "employer": "work",
    "likes": "like",
    "loves": "like",
    "love": "like",
    "enjoys": "like",
    "enjoy": "like",
    "fond": "like",
    "prefers": "prefer",
    "preferred": "prefer",
    "favorite": "prefer",
    "favourite": "prefer",
    "dislikes": "dislike",
    "hates": "dislike",
    "hate": "dislike",
    "moving": "move",
    "moved": "move",
    "moves": "move",
    "relocating": "move",
    "relocate": "move",
    "married": "spouse",
    "wife": "spouse",
    "husband": "spouse",
    "starting": "start",
    "started": "start",
    "starts": "start",
    "begins": "start",
    "beginning": "start",
    "allergic": "allergy",
    "allergies": "allergy",
    "kids": "child",
    "children": "child",
    "son": "child",
    "daughter": "child",
    "meeting": "meet",
    "meets": "meet",
    "met": "meet",
    "named": "name",
    "called": "name",
    "names": "name",
    "owns": "own",
    "owned": "own",
    "has": "own",
    "plays": "play",
    "playing": "play",
    "played": "play",
    "visits": "visit",
    "visiting": "visit",
    "visited": "visit",
    "going": "go",
    "goes": "go",
    "went": "go",
    "heading": "go",
    "bought": "buy",
    "buys": "buy",
    "purchased": "buy",
    "studies": "study",
    "studying": "study",
    "studied": "study",
}
_TOKEN_RE = re.compile(r"[0-9]+(?:[.:][0-9]+)*|[^\W\d_]+", re.UNICODE)


def normalize_text(text: str) -> str:
    """Lowercase, accents folded, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = text.replace("'", "").replace("\u2019", "")
    return " ".join(_TOKEN_RE.findall(text))


# Negation changes the claim: every form folds to one kept token.
NEGATIONS = frozenset(
    "not no never nobody none nothing neither nor cannot cant dont doesnt didnt isnt arent wasnt werent wont "
    "wouldnt shouldnt couldnt hasnt havent hadnt aint".split()
)


def _stem(token: str) -> str:
    if token in NEGATIONS:
        return "not"
    if token in SYNONYMS:
        return SYNONYMS[token]
    if token.isdigit() or len(token) <= 3:
        return token
    for suffix in ("ing", "ed", "es", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            stem = token[: -len(suffix)]
            return SYNONYMS.get(stem, stem)
    return token


def content_tokens(text: str) -> list[str]:
    """Normalized, stemmed content words (first-person and "the user" fold to ``user``)."""
    out: list[str] = []
    for tok in normalize_text(text).split():
        if tok in _FIRST_PERSON:
            continue  # who the claim is about is carried by the subject key, not the words
        if tok in STOPWORDS:
            continue
        out.append(_stem(tok))
    return out


def text_key(text: str) -> str:
    """Same claim, same wording modulo case, punctuation, pronouns, stopwords and word order."""
    return sha256_hex(" ".join(sorted(set(content_tokens(text)))))


def _token_hash(token: str) -> str:
    # One kind letter + 15 hex digits: numbers ("n") and negation ("x") stay recognisable after hashing, so
    # similarity can tell "meeting at 3" from "meeting at 4" and "allergic" from "not allergic".
    kind = "x" if token == "not" else "n" if token[:1].isdigit() else "w"
    return kind + short_hash("tok:" + token)[:15]


def token_signature(text: str, exclude_names=()) -> list[str]:
    """Hashed content tokens: lets a refusal match paraphrases without keeping any text.

    ``exclude_names``: the subject's names; they are carried by the subject key, and leaving them in would
    make every claim about the same person look alike.
    """
    excluded = {t for name in exclude_names for t in content_tokens(name)}
    return sorted({_token_hash(t) for t in content_tokens(text) if t not in excluded})


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
    numbers score 0.
    """
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    if any(t[0] == "x" for t in sa) != any(t[0] == "x" for t in sb):
        return 0.0  # opposite polarity: a denial is never a paraphrase of the claim
    na, nb = {t for t in sa if t[0] == "n"}, {t for t in sb if t[0] == "n"}
    if na and nb and na != nb:
        return 0.0  # different numbers (dates, times, amounts): a different claim
    inter = len(sa & sb)
    jaccard = inter / len(sa | sb)
    containment = inter / min(len(sa), len(sb))
    if inter >= 3 and containment >= 0.85:
        return max(jaccard, containment * 0.9)
    if inter >= 2 and containment == 1.0 and len(sa ^ sb) <= 2:
        return max(jaccard, 0.75)  # the same short claim with a detail added ("... last week")
    return jaccard


PARAPHRASE_THRESHOLD = 0.6
