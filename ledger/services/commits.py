"""What every ledger write shares: the evidence a caller hands in, one commit of mutations under the owner's
chain head, and the mutations for evidence and people."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import wraps

from django.db import transaction

from ledger import chain, hashing, queries
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.models import (
    Entity,
    Fact,
)
from ledger.validation import check_choice, check_owner, clamp01

CommitResult = chain.CommitResult


@dataclass(frozen=True)
class EvidenceIn:
    """One piece of support for a claim, as a caller hands it to the ledger (quote already redacted)."""

    source_type: str
    source_ref: dict = field(default_factory=dict)
    quote: str = ""
    extractor_id: str = ""
    extractor_version: str = ""
    capture_confidence: float = 0.5
    observed_at: datetime | None = None
    source_label: str = ""
    details: dict = field(default_factory=dict)


def aware(value, name: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidMutation(f"{name} must be a timezone-aware datetime")
    return value


def evidence_mutation(ev: EvidenceIn, fact_ref: str) -> dict:
    if not isinstance(ev, EvidenceIn):
        raise InvalidMutation("evidence must be ledger.services.EvidenceIn")
    if not ev.source_type:
        raise InvalidMutation("evidence needs a source_type")
    return {
        "type": M.ADD_EVIDENCE,
        "fact_id": fact_ref,
        "source_type": ev.source_type[:50],
        "source_hash": hashing.short_hash(ev.source_label),
        "capture_confidence": clamp01(ev.capture_confidence, "evidence capture_confidence"),
        "observed_at": hashing.iso(aware(ev.observed_at, "evidence observed_at")),
        "payload": {
            "source_ref": ev.source_ref or {},
            "source_label": ev.source_label,
            "quote": ev.quote,
            "extractor_id": ev.extractor_id,
            "extractor_version": ev.extractor_version,
            "details": ev.details or {},
        },
    }


def person_ref(owner, person, muts: list[dict], kind: str = "person") -> str:
    """Entity id for ``person`` (Entity, name, or {"name", "kind", "aliases"}); adds an add_entity if new."""
    if isinstance(person, Entity):
        check_owner(person, owner, "Entity")
        return str(queries.surviving_entity(person).public_id)
    if isinstance(person, dict):
        name, kind, aliases = str(person.get("name", "")), person.get("kind", kind), list(person.get("aliases") or [])
    else:
        name, aliases = str(person or ""), []
    name = name.strip()
    if not name:
        raise InvalidMutation("a person needs a name")
    found = queries.find_entity(owner=owner, name=name)
    if found is not None:
        return str(found.public_id)
    for i, m in enumerate(muts):  # same new person twice in one proposal
        if m["type"] == M.ADD_ENTITY and hashing.normalize_name(m["payload"]["name"]) == hashing.normalize_name(name):
            return f"${i}"
    muts.append(
        {
            "type": M.ADD_ENTITY,
            "kind": check_choice(kind, M.ENTITY_KINDS, "entity kind"),
            "payload": {"name": name[:200], "aliases": [a[:200] for a in aliases]},
        }
    )
    return f"${len(muts) - 1}"


def commit(
    *, owner, mutations: list[dict], expected_head: str | None = None, author: str = "system", author_label: str = ""
) -> CommitResult:
    """Append raw mutations as one commit (see ``ledger.chain.append``). Raises HeadConflict, InvalidMutation."""
    return chain.append(
        owner=owner, mutations=mutations, expected_head=expected_head, author=author, author_label=author_label
    )


def fact_by_id(owner, public_id) -> Fact:
    return Fact.objects.select_related("subject_entity").get(owner=owner, public_id=public_id)


def serialised(fn):
    """Run a read-then-write service under the owner's chain-head lock, so the checks it makes (refusals,
    duplicates, "does this person exist yet") still hold when it commits: two memory passes proposing the same
    claim or naming the same new person at once are serialised, and the second one sees the first one's rows."""

    @wraps(fn)
    def run(*args, owner, **kwargs):
        with transaction.atomic():
            chain.lock_head(owner)
            return fn(*args, owner=owner, **kwargs)

    return run
