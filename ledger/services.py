"""Ledger writes. Every change to facts, evidence and entities is a commit (``ledger.chain.append``);
memory layers (identity, pinned facts, episodes) are plain rows written here too.

All functions take keyword-only arguments, never a request. Domain errors are ``ledger.exceptions``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from functools import wraps

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ledger import chain, hashing, permitted_uses, queries
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.models import (
    Entity,
    Evidence,
    Fact,
    Refusal,
    RefusalHit,
    Status,
    SubjectKind,
)
from ledger.validation import check_choice, check_owner, clamp01

logger = logging.getLogger(__name__)

CommitResult = chain.CommitResult
RefusalCheck = queries.RefusalCheck


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


class Outcome(StrEnum):
    """What ``propose_fact`` did with a claim."""

    ADMITTED = "admitted"
    CORROBORATED = "corroborated"  # an active fact already said this: evidence added
    DUPLICATE = "duplicate"  # the same evidence again: nothing written
    REFUSED = "refused"  # a lasting refusal
    ESCALATED = "escalated"  # conflicts with a held fact: admitted for review
    CONTRADICTED = "contradicted"  # weaker than the held fact: admitted as contradicted


@dataclass
class ProposeResult:
    outcome: Outcome
    fact: Fact | None = None
    commit_id: str = ""
    refusal: RefusalCheck = field(default_factory=RefusalCheck)
    previously_rejected: bool = False
    conflict_with: Fact | None = None

    @property
    def admitted(self) -> bool:
        return self.outcome in (Outcome.ADMITTED, Outcome.ESCALATED, Outcome.CONTRADICTED)


@dataclass
class TimeoutReport:
    decided: int = 0
    accepted: int = 0
    dropped: int = 0
    owners: int = 0


# --- helpers -------------------------------------------------------------------------------------------


def _aware(value, name: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidMutation(f"{name} must be a timezone-aware datetime")
    return value


def _evidence_mutation(ev: EvidenceIn, fact_ref: str) -> dict:
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
        "observed_at": hashing.iso(_aware(ev.observed_at, "evidence observed_at")),
        "payload": {
            "source_ref": ev.source_ref or {},
            "source_label": ev.source_label,
            "quote": ev.quote,
            "extractor_id": ev.extractor_id,
            "extractor_version": ev.extractor_version,
            "details": ev.details or {},
        },
    }


def _person_ref(owner, person, muts: list[dict], kind: str = "person") -> str:
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


def _fact(owner, public_id) -> Fact:
    return Fact.objects.select_related("subject_entity").get(owner=owner, public_id=public_id)


def _serialised(fn):
    """Run a read-then-write service under the owner's chain-head lock, so the checks it makes (refusals,
    duplicates, "does this person exist yet") still hold when it commits: two memory passes proposing the same
    claim or naming the same new person at once are serialised, and the second one sees the first one's rows."""

    @wraps(fn)
    def run(*args, owner, **kwargs):
        with transaction.atomic():
            chain.lock_head(owner)
            return fn(*args, owner=owner, **kwargs)

    return run


# --- Admission -------------------------------------------------------------------------------------------
@_serialised
def propose_fact(
    *,
    owner,
    content: str,
    evidence: EvidenceIn | list[EvidenceIn] | None = None,
    predicate: str = "states",
    arguments: dict | None = None,
    subject: str = "user",
    person=None,
    objects=(),
    capture_confidence: float = 0.5,
    veracity: float = 0.5,
    importance: str = "normal",
    tags=(),
    source_label: str = "",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    status: str = Status.PENDING_REVIEW,
    reason: str = "",
    author: str = "extractor",
    author_label: str = "",
    on_duplicate: str = "corroborate",
    exclusive: bool | None = None,
) -> ProposeResult:
    """Admit a claim through refusal, dedup and conflict checks, as one commit.

    Outcomes: "refused" (a lasting refusal, from any source; nothing written, a RefusalHit logged),
    "corroborated"/"duplicate" (an active fact already says this), "escalated" (conflicts with a held fact
    and is ambiguous and material: admitted as pending_review), "contradicted" (weaker than the held fact:
    admitted as contradicted), "admitted". Refusals hold for every source; a refused claim whose evidence
    (observed after the rejection) states a change is admitted as pending_review, marked previously_rejected,
    with the earlier rejection in its evidence details. Raises InvalidMutation for bad input.
    """
    claim = _Claim(
        owner=owner,
        content=(content or "").strip(),
        evidence=[evidence] if isinstance(evidence, EvidenceIn) else list(evidence or []),
        predicate=predicate,
        arguments=arguments,
        subject=subject,
        person=person,
        objects=objects,
        capture_confidence=capture_confidence,
        veracity=veracity,
        importance=importance,
        tags=tags,
        source_label=source_label,
        valid_from=valid_from,
        valid_to=valid_to,
        status=status,
        reason=reason,
    )
    _validate(claim, on_duplicate)
    names = queries.known_names(owner=owner)
    check = _check_refusal(claim, names)
    if check.refused:
        _record_refusal_hit(claim, check)
        return ProposeResult(Outcome.REFUSED, refusal=check)
    if check.previously_rejected:
        # A change stated after the rejection: back to review only, the earlier rejection shown beside it.
        claim.status, claim.reason = Status.PENDING_REVIEW, "changed-since-rejection"
        claim.evidence = [_with_previous_rejection(ev, check) for ev in claim.evidence]
    if on_duplicate != "new":
        duplicate = _corroborate_duplicate(claim, check, skip=on_duplicate == "skip", author=author, label=author_label)
        if duplicate is not None:
            return duplicate

    muts: list[dict] = []
    add_fact = _add_fact_mutation(claim, check, names, muts)
    fact_index = len(muts)
    muts.append(add_fact)
    muts.extend(_evidence_mutation(ev, f"${fact_index}") for ev in claim.evidence)
    is_exclusive = exclusive if exclusive is not None else predicate in permitted_uses.EXCLUSIVE_PREDICATES
    outcome, held = Outcome.ADMITTED, None
    if is_exclusive and claim.status in permitted_uses.ACTIVE_STATUSES and arguments:
        held = _conflicting_fact(owner, subject, person, predicate, claim.content, arguments)
        if held is not None:
            outcome = _resolve_conflict(claim, held, add_fact, f"${fact_index}", muts)
    result = commit(owner=owner, mutations=muts, author=author, author_label=author_label)
    return ProposeResult(
        outcome,
        fact=_fact(owner, result.created_ids[fact_index]),
        commit_id=result.commit_id,
        refusal=check,
        previously_rejected=check.previously_rejected,
        conflict_with=Fact.objects.get(pk=held.pk) if held is not None else None,
    )


@dataclass
class _Claim:
    """``propose_fact``'s arguments, validated once and handed to its steps."""

    owner: object
    content: str
    evidence: list[EvidenceIn]
    predicate: str
    arguments: dict | None
    subject: str
    person: object
    objects: tuple | list
    capture_confidence: float
    veracity: float
    importance: str
    tags: tuple | list
    source_label: str
    valid_from: datetime | None
    valid_to: datetime | None
    status: str
    reason: str


def _validate(claim: _Claim, on_duplicate: str) -> None:
    """Raise InvalidMutation for bad input; clamp the confidences and make the times aware."""
    if not claim.content:
        raise InvalidMutation("content must not be empty")
    check_choice(claim.subject, M.SUBJECT_KINDS, "subject")
    check_choice(claim.importance, permitted_uses.IMPORTANCE_ORDER, "importance")
    check_choice(claim.status, permitted_uses.STATUSES, "status")
    check_choice(on_duplicate, ("corroborate", "skip", "new"), "on_duplicate")
    claim.capture_confidence = clamp01(claim.capture_confidence, "capture_confidence")
    claim.veracity = clamp01(claim.veracity, "veracity")
    if claim.subject == SubjectKind.THIRD_PARTY and claim.person is None:
        raise InvalidMutation("a third_party claim needs the person it is about")
    if claim.arguments is not None and not isinstance(claim.arguments, dict):
        raise InvalidMutation("arguments must be an object keyed by slot")
    for ev in claim.evidence:
        if not isinstance(ev, EvidenceIn):
            raise InvalidMutation("evidence must be ledger.services.EvidenceIn")
        _aware(ev.observed_at, "evidence observed_at")
    claim.valid_from, claim.valid_to = _aware(claim.valid_from, "valid_from"), _aware(claim.valid_to, "valid_to")
    if claim.valid_from and claim.valid_to and claim.valid_to <= claim.valid_from:
        raise InvalidMutation("valid_to must be after valid_from")


def _check_refusal(claim: _Claim, names) -> RefusalCheck:
    return queries.check_refusal(
        owner=claim.owner,
        content=claim.content,
        subject=claim.subject,
        person=claim.person if claim.subject == SubjectKind.THIRD_PARTY else None,
        objects=claim.objects,
        predicate=claim.predicate,
        arguments=claim.arguments,
        source_label=claim.source_label,
        change_text=" ".join([claim.content, *(str(ev.quote or "") for ev in claim.evidence)]),
        observed_at=max((ev.observed_at for ev in claim.evidence if ev.observed_at), default=None),
        names=names,
    )


def _proposition_key(claim: _Claim) -> str:
    return queries.keys_for(
        owner=claim.owner,
        content=claim.content,
        subject=claim.subject,
        person=claim.person,
        predicate=claim.predicate,
        arguments=claim.arguments,
    )[0]


def _record_refusal_hit(claim: _Claim, check: RefusalCheck) -> None:
    RefusalHit.objects.create(
        owner=claim.owner,
        refusal=check.refusal,
        decision_commit_id=check.decision_commit_id,
        matched_on=check.matched_on,
        similarity=check.similarity,
        source_hash=hashing.short_hash(claim.source_label),
        proposition_key=_proposition_key(claim),
    )
    logger.info("ledger: claim refused (%s) -> decision %s", check.matched_on, check.decision_commit_id[:12])


def _corroborate_duplicate(
    claim: _Claim, check: RefusalCheck, *, skip: bool, author: str, label: str
) -> ProposeResult | None:
    """The same claim about the same subject, already held: its evidence is added (or, skipping, nothing)."""
    existing = _find_duplicate(claim.owner, _proposition_key(claim), claim.content, claim.subject, claim.person)
    if existing is None:
        return None
    if skip or not claim.evidence:
        return ProposeResult(Outcome.DUPLICATE, fact=existing, refusal=check)
    result = commit(
        owner=claim.owner,
        mutations=[_evidence_mutation(ev, str(existing.public_id)) for ev in claim.evidence],
        author=author,
        author_label=label,
    )
    return ProposeResult(
        Outcome.CORROBORATED, fact=_fact(claim.owner, existing.public_id), commit_id=result.commit_id, refusal=check
    )


def _add_fact_mutation(claim: _Claim, check: RefusalCheck, names, muts: list[dict]) -> dict:
    """The ADD_FACT mutation; the people it names are appended to ``muts`` first (as entity mutations)."""
    owner, subject, person = claim.owner, claim.subject, claim.person
    subject_ref = _person_ref(owner, person, muts) if subject == SubjectKind.THIRD_PARTY else None
    object_refs = [_person_ref(owner, o, muts, kind="other") for o in claim.objects]
    return {
        "type": M.ADD_FACT,
        "subject_kind": subject,
        "subject_entity_id": subject_ref,
        "object_entity_ids": object_refs,
        "importance": claim.importance,
        "status": claim.status,
        "capture_confidence": claim.capture_confidence,
        "veracity": claim.veracity,
        "valid_from": hashing.iso(claim.valid_from),
        "valid_to": hashing.iso(claim.valid_to),
        "previously_rejected": check.previously_rejected,
        "refusal_commit_id": check.decision_commit_id if check.previously_rejected else "",
        "token_hashes": hashing.token_signature(
            claim.content, queries.subject_names(owner=owner, subject=subject, person=person), known_names=names
        ),
        "payload": {
            "content": claim.content,
            "predicate": claim.predicate or "states",
            "arguments": claim.arguments or {},
            "tags": [str(t)[:100] for t in claim.tags],
            "source_label": claim.source_label[:200],
            "reason": claim.reason[:200],
        },
    }


def _resolve_conflict(claim: _Claim, held: Fact, add_fact: dict, new_ref: str, muts: list[dict]) -> Outcome:
    """An exclusive predicate already holds another value: escalate, keep the held one, or supersede it."""
    decision = permitted_uses.conflict_resolution(
        new_veracity=claim.veracity,
        new_importance=claim.importance,
        held_veracity=held.veracity,
        held_importance=held.importance,
    )
    if decision == "escalate":
        add_fact["status"] = Status.PENDING_REVIEW
        add_fact["payload"]["reason"] = "conflict-escalated"
        return Outcome.ESCALATED
    if decision == "keep_held":
        add_fact["status"] = Status.CONTRADICTED
        add_fact["payload"]["reason"] = "weaker-than-held"
        return Outcome.CONTRADICTED
    later = claim.valid_from is not None and (held.valid_from is None or claim.valid_from > held.valid_from)
    muts.append(
        {
            "type": M.SUPERSEDE_FACT,
            "old_fact_id": str(held.public_id),
            "new_fact_id": new_ref,
            "kind": "update" if later else "contradict",
        }
    )
    return Outcome.ADMITTED


def _with_previous_rejection(ev: EvidenceIn, check: RefusalCheck) -> EvidenceIn:
    ref = check.refusal
    earlier = {
        "refusal_id": str(ref.public_id),
        "kind": ref.kind,
        "decision_commit_id": ref.decision_commit_id,
        "decided_at": hashing.iso(ref.recorded_at),
        "fact_id": str(ref.fact_public_id) if ref.fact_public_id else None,
        "matched_on": check.matched_on,
    }
    return replace(ev, details={**(ev.details or {}), "previous_rejection": earlier})


def _find_duplicate(owner, pkey: str, content: str, subject: str, person) -> Fact | None:
    """``find_by_proposition_key(pkey) or find_by_text(content, subject, person)`` in one round trip."""
    wanted = Q(proposition_key=pkey)
    text = Q(text_key=hashing.text_key(content), subject_kind=subject)
    if subject == "third_party" and person is not None:
        entity = (
            person if isinstance(person, Entity) else queries.find_entity(owner=owner, name=queries.person_name(person))
        )
        text = (
            None if entity is None else text & Q(subject_entity__public_id=queries.surviving_entity(entity).public_id)
        )
    if text is not None:
        wanted |= text
    rows = list(Fact.objects.owned_by(owner).filter(wanted, status__in=queries.ACTIVE).order_by("recorded_at"))
    by_key = next((f for f in rows if f.proposition_key == pkey), None)
    if by_key is not None or text is None:
        return by_key
    return next((f for f in rows if f.text_key == hashing.text_key(content) and f.subject_kind == subject), None)


def _conflicting_fact(owner, subject, person, predicate, content, arguments) -> Fact | None:
    qs = Fact.objects.owned_by(owner).active().filter(predicate=predicate)
    qs = queries._filter_subject(qs, owner, subject, person if subject == "third_party" else None)
    skey = queries.resolve_subject_key(owner=owner, subject=subject, person=person)
    pkey = hashing.proposition_key(skey, predicate, arguments, content)
    return qs.exclude(proposition_key=pkey).valid_at(timezone.now()).order_by("-recorded_at").first()


def add_evidence(
    *, owner, fact: Fact, evidence: EvidenceIn, author: str = "extractor", author_label: str = ""
) -> Evidence:
    """Corroborate ``fact`` with one more piece of evidence (raises veracity when from another source)."""
    check_owner(fact, owner, "Fact")
    result = commit(
        owner=owner,
        mutations=[_evidence_mutation(evidence, str(fact.public_id))],
        author=author,
        author_label=author_label,
    )
    return Evidence.objects.get(owner=owner, public_id=result.created_ids[0])


def decide(
    *,
    owner,
    fact: Fact,
    status: str,
    reason: str = "",
    veracity: float | None = None,
    author: str = "reviewer",
    author_label: str = "",
) -> Fact:
    """Set a fact's epistemic status (review decisions, promotions, demotions). Rejection records a refusal."""
    check_owner(fact, owner, "Fact")
    check_choice(status, permitted_uses.STATUSES, "status")
    m = {"type": M.SET_STATUS, "fact_id": str(fact.public_id), "status": status, "payload": {"reason": reason[:200]}}
    if veracity is not None:
        m["veracity"] = clamp01(veracity, "veracity")
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return _fact(owner, fact.public_id)


set_status = decide


def supersede(
    *,
    owner,
    old: Fact,
    new: Fact,
    kind: str = "update",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    author: str = "system",
    author_label: str = "",
) -> Fact:
    """``new`` replaces ``old``: kind "update" (the world changed; old holds until new's valid_from) or
    "contradict" (old was wrong: it becomes contradicted). Returns the refreshed old fact."""
    check_owner(old, owner, "Fact")
    check_owner(new, owner, "Fact")
    check_choice(kind, M.SUPERSEDE_KINDS, "kind")
    m = {"type": M.SUPERSEDE_FACT, "old_fact_id": str(old.public_id), "new_fact_id": str(new.public_id), "kind": kind}
    valid_from, valid_to = _aware(valid_from, "valid_from"), _aware(valid_to, "valid_to")
    if valid_from:
        m["valid_from"] = hashing.iso(valid_from)
    if valid_to:
        m["valid_to"] = hashing.iso(valid_to)
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return _fact(owner, old.public_id)


def refine(
    *,
    owner,
    fact: Fact,
    content: str,
    arguments: dict | None = None,
    predicate: str | None = None,
    author="user",
    status: str | None = None,
    reason: str = "",
) -> Fact:
    """Restate a fact more precisely (same fact, new version). With ``status`` the same commit also decides it
    (a reviewer's edit-then-accept is one commit)."""
    check_owner(fact, owner, "Fact")
    if status is not None:
        check_choice(status, permitted_uses.STATUSES, "status")
    content = (content or "").strip()
    if not content:
        raise InvalidMutation("content must not be empty")
    skey = hashing.subject_key(fact.subject_kind, str(fact.subject_entity.public_id) if fact.subject_entity else None)
    pred = predicate or fact.predicate
    args = arguments if arguments is not None else fact.arguments
    payload = {"content": content}
    if predicate:
        payload["predicate"] = predicate
    if arguments is not None:
        payload["arguments"] = arguments
    names = [fact.subject_entity.name, *fact.subject_entity.aliases] if fact.subject_entity else []
    m = {
        "type": M.REFINE_FACT,
        "fact_id": str(fact.public_id),
        "proposition_key": hashing.proposition_key(skey, pred, args, content),
        "token_hashes": hashing.token_signature(content, names),
        "payload": payload,
    }
    muts = [m]
    if status is not None:
        fid = str(fact.public_id)
        muts.append({"type": M.SET_STATUS, "fact_id": fid, "status": status, "payload": {"reason": reason[:200]}})
    commit(owner=owner, mutations=muts, author=author)
    return _fact(owner, fact.public_id)


def retract(*, owner, fact: Fact, reason: str = "", author: str = "user", author_label: str = "") -> Fact:
    """Withdraw a fact as untrue. A lasting refusal keeps re-extractions from bringing it back."""
    check_owner(fact, owner, "Fact")
    m = {"type": M.RETRACT_FACT, "fact_id": str(fact.public_id), "payload": {"reason": reason[:200]}}
    commit(owner=owner, mutations=[m], author=author, author_label=author_label)
    return _fact(owner, fact.public_id)


def remove_evidence(*, owner, evidence: Evidence, author: str = "user") -> None:
    """Delete one piece of evidence (e.g. attached by mistake). The fact keeps its other evidence."""
    check_owner(evidence, owner, "Evidence")
    commit(owner=owner, mutations=[{"type": M.REMOVE_EVIDENCE, "evidence_id": str(evidence.public_id)}], author=author)


def tombstone_evidence(
    *, owner, evidence: Evidence, reason: str = "", source_deleted: bool = False, author: str = "system"
) -> Evidence:
    """Withdraw one support but keep the record. A fact left without live evidence becomes
    ``source_tombstoned`` (source_deleted=True) or ``tombstoned``."""
    check_owner(evidence, owner, "Evidence")
    m = {
        "type": M.TOMBSTONE_EVIDENCE,
        "evidence_id": str(evidence.public_id),
        "source_deleted": source_deleted,
        "payload": {"reason": reason[:200] or ("source_deleted" if source_deleted else "withdrawn")},
    }
    commit(owner=owner, mutations=[m], author=author)
    return Evidence.objects.get(pk=evidence.pk)


# --- Entities -------------------------------------------------------------------------------------------
@_serialised
def ensure_entity(*, owner, name: str, kind: str = "person", aliases=(), author: str = "system") -> Entity:
    """The entity named ``name`` (by name or alias), created if new."""
    found = queries.find_entity(owner=owner, name=name)
    if found is not None:
        return found
    muts: list[dict] = []
    _person_ref(owner, {"name": name, "kind": kind, "aliases": list(aliases)}, muts)
    result = commit(owner=owner, mutations=muts, author=author)
    return Entity.objects.get(owner=owner, public_id=result.created_ids[0])


def merge_entities(*, owner, target: Entity, others, author: str = "user") -> Entity:
    """Merge ``others`` into ``target``: names become aliases, facts point at ``target``."""
    check_owner(target, owner, "Entity")
    others = list(others)
    for o in others:
        check_owner(o, owner, "Entity")
    m = {"type": M.MERGE_ENTITIES, "target_id": str(target.public_id), "source_ids": [str(o.public_id) for o in others]}
    commit(owner=owner, mutations=[m], author=author)
    return Entity.objects.get(pk=target.pk)


def split_entity(*, owner, entity: Entity, name: str, aliases=(), fact_ids=(), kind=None, author="user") -> Entity:
    """Split a wrongly merged entity: a new entity ``name`` takes ``fact_ids`` and ``aliases``."""
    check_owner(entity, owner, "Entity")
    if not (name or "").strip():
        raise InvalidMutation("the new entity needs a name")
    moved = [name, *aliases]
    m = {
        "type": M.SPLIT_ENTITY,
        "entity_id": str(entity.public_id),
        "fact_ids": [str(f) for f in fact_ids],
        "remove_alias_hashes": sorted({hashing.short_hash("name:" + hashing.normalize_name(a)) for a in moved}),
        "payload": {"name": name.strip(), "aliases": list(aliases)},
    }
    if kind:
        m["kind"] = kind
    result = commit(owner=owner, mutations=[m], author=author)
    return Entity.objects.get(owner=owner, public_id=result.created_ids[0])


def merge_fact_into(*, owner, fact: Fact, into: Fact, author: str = "reviewer", author_label: str = "") -> list[str]:
    """Fold ``fact`` into ``into`` (the same claim, already held), as one commit: ``fact``'s live evidence is
    copied onto ``into`` and ``fact`` becomes superseded (reason "merged-into:<id>"). Returns the copied
    evidence ids (a review undo removes them). Raises InvalidMutation for a fact merged into itself."""
    check_owner(fact, owner, "Fact")
    check_owner(into, owner, "Fact")
    if fact.pk == into.pk:
        raise InvalidMutation("a fact cannot be merged into itself")
    copies = [
        EvidenceIn(
            source_type=ev.source_type,
            source_ref=ev.source_ref,
            quote=ev.quote,
            extractor_id=ev.extractor_id,
            extractor_version=ev.extractor_version,
            capture_confidence=ev.capture_confidence,
            observed_at=ev.observed_at,
            source_label=ev.source_label,
            details=ev.details,
        )
        for ev in fact.evidence.live().order_by("recorded_at")
    ]
    muts = [_evidence_mutation(ev, str(into.public_id)) for ev in copies]
    muts.append(
        {
            "type": M.SET_STATUS,
            "fact_id": str(fact.public_id),
            "status": Status.SUPERSEDED,
            "payload": {"reason": f"merged-into:{into.public_id}"},
        }
    )
    result = commit(owner=owner, mutations=muts, author=author, author_label=author_label)
    return [i for i in result.created_ids[: len(copies)] if i]


def reassign_fact_subject(*, owner, fact: Fact, subject: str, person=None, author: str = "user") -> Fact:
    """Correct whom a fact is about (user / third_party with a person / unknown)."""
    check_owner(fact, owner, "Fact")
    check_choice(subject, M.SUBJECT_KINDS, "subject")
    muts: list[dict] = []
    ref = None
    if subject == "third_party":
        if person is None:
            raise InvalidMutation("a third_party subject needs the person")
        ref = _person_ref(owner, person, muts)
    m = {"type": M.REASSIGN_FACT_SUBJECT, "fact_id": str(fact.public_id), "subject_kind": subject}
    if ref:
        m["subject_entity_id"] = ref
        if not ref.startswith("$"):
            m["proposition_key"] = hashing.proposition_key(
                hashing.subject_key(subject, ref), fact.predicate, fact.arguments, fact.content
            )
    else:
        m["proposition_key"] = hashing.proposition_key(subject, fact.predicate, fact.arguments, fact.content)
    muts.append(m)
    commit(owner=owner, mutations=muts, author=author)
    return _fact(owner, fact.public_id)


def lift_refusal(*, owner, refusal: Refusal, reason: str = "", author: str = "user") -> Refusal:
    """The person takes a refusal back explicitly (a commit): the claim may be proposed again (to review)."""
    check_owner(refusal, owner, "Refusal")
    if refusal.lifted_at is not None:
        raise InvalidMutation("this refusal is already lifted")
    m = {"type": M.LIFT_REFUSAL, "refusal_id": str(refusal.public_id), "payload": {"reason": reason[:200]}}
    commit(owner=owner, mutations=[m], author=author)
    return Refusal.objects.get(pk=refusal.pk)


# --- Timeouts -------------------------------------------------------------------------------------------
def decide_timeouts(*, owner=None, older_than: timedelta | None = None, now: datetime | None = None) -> TimeoutReport:
    """Decide pending items nobody reviewed within the timeout (``permitted_uses.timeout_decision``); counted."""
    now = now or timezone.now()
    older_than = older_than or timedelta(days=getattr(settings, "ALMANAC_LEDGER_PENDING_TIMEOUT_DAYS", 14))
    qs = Fact.objects.filter(status__in=permitted_uses.PENDING_STATUSES, updated_at__lt=now - older_than)
    if owner is not None:
        qs = qs.filter(owner=owner)
    report = TimeoutReport()
    owners = set()
    for fact in qs.select_related("owner").order_by("owner_id", "recorded_at").iterator():
        status, reason = permitted_uses.timeout_decision(
            status=fact.status,
            veracity=fact.veracity,
            capture_confidence=fact.capture_confidence,
            importance=fact.importance,
        )
        if status == fact.status:
            continue
        decide(owner=fact.owner, fact=fact, status=status, reason=reason, author="system", author_label="timeout")
        owners.add(fact.owner_id)
        report.decided += 1
        if status == Status.ACCEPTED:
            report.accepted += 1
        else:
            report.dropped += 1
    report.owners = len(owners)
    if report.decided:
        logger.info(
            "ledger: %d timeout decisions (%d accepted, %d dropped)", report.decided, report.accepted, report.dropped
        )
    return report
