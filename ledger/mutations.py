"""Typed mutations: their shapes, validation, and the deterministic ids filled in before hashing.

A mutation is a JSON object ``{"type": ..., <ids, enums, numbers, times, hashes>, "payload": {<content>}}``.
Everything that could carry personal content (text, names, quotes, source refs, tags, reasons) lives in
``payload``; the rest holds only ids, enums, numbers, times and hashes. Commit ids hash the sealed form
(payload replaced by its hash), so a forget can drop payloads and the chain still verifies.

Within one commit a mutation can point at an id created by an earlier one with ``"$<index>"``
(e.g. ``{"type": "add_evidence", "fact_id": "$0", ...}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledger import hashing, permitted_uses
from ledger.exceptions import InvalidMutation

ADD_ENTITY = "add_entity"
ADD_FACT = "add_fact"
SUPERSEDE_FACT = "supersede_fact"
REFINE_FACT = "refine_fact"
RETRACT_FACT = "retract_fact"
ADD_EVIDENCE = "add_evidence"
REMOVE_EVIDENCE = "remove_evidence"
TOMBSTONE_EVIDENCE = "tombstone_evidence"
MERGE_ENTITIES = "merge_entities"
SPLIT_ENTITY = "split_entity"
REASSIGN_FACT_SUBJECT = "reassign_fact_subject"
SET_STATUS = "set_status"
FORGET = "forget"
LIFT_REFUSAL = "lift_refusal"

# The field (if any) holding the id a mutation creates; filled deterministically when missing.
CREATES = {ADD_ENTITY: "entity_id", ADD_FACT: "fact_id", ADD_EVIDENCE: "evidence_id", SPLIT_ENTITY: "new_entity_id"}

ENTITY_KINDS = ("person", "place", "organization", "project", "other")
SUBJECT_KINDS = ("user", "third_party", "unknown")
SUPERSEDE_KINDS = ("contradict", "update")

# field -> kind; "?" suffix = optional. Kinds: id, ids, str, float01, time, status, enum:<a|b>, hashes, bool
SCHEMAS: dict[str, dict[str, str]] = {
    ADD_ENTITY: {"entity_id": "id", "kind": "enum:entity", "name_hashes": "hashes?"},
    ADD_FACT: {
        "fact_id": "id",
        "subject_kind": "enum:subject",
        "subject_entity_id": "id?",
        "object_entity_ids": "ids?",
        "importance": "enum:importance?",
        "status": "status",
        "capture_confidence": "float01",
        "veracity": "float01",
        "valid_from": "time?",
        "valid_to": "time?",
        "proposition_key": "str?",
        "text_key": "str?",
        "token_hashes": "hashes?",
        "source_hash": "str?",
        "previously_rejected": "bool?",
        "refusal_commit_id": "str?",
    },
    ADD_EVIDENCE: {
        "evidence_id": "id",
        "fact_id": "id",
        "source_type": "str",
        "source_hash": "str?",
        "capture_confidence": "float01",
        "observed_at": "time?",
    },
    REMOVE_EVIDENCE: {"evidence_id": "id"},
    TOMBSTONE_EVIDENCE: {"evidence_id": "id", "source_deleted": "bool?"},
    SET_STATUS: {"fact_id": "id", "status": "status", "veracity": "float01?"},
    RETRACT_FACT: {"fact_id": "id"},
    SUPERSEDE_FACT: {
        "old_fact_id": "id",
        "new_fact_id": "id",
        "kind": "enum:supersede",
        "valid_from": "time?",
        "valid_to": "time?",
    },
    REFINE_FACT: {"fact_id": "id", "proposition_key": "str?", "text_key": "str?", "token_hashes": "hashes?"},
    REASSIGN_FACT_SUBJECT: {
        "fact_id": "id",
        "subject_kind": "enum:subject",
        "subject_entity_id": "id?",
        "proposition_key": "str?",
    },
    MERGE_ENTITIES: {"target_id": "id", "source_ids": "ids"},
    SPLIT_ENTITY: {
        "entity_id": "id",
        "new_entity_id": "id",
        "kind": "enum:entity?",
        "fact_ids": "ids?",
        "name_hashes": "hashes?",
        "remove_alias_hashes": "hashes?",
    },
    FORGET: {
        "scope": "enum:forget",
        "scope_hash": "str?",
        "fact_ids": "ids?",
        "evidence_ids": "ids?",
        "entity_ids": "ids?",
        "refusals": "refusals?",
        "episodes": "int?",
    },
    LIFT_REFUSAL: {"refusal_id": "id"},
}
TYPES = tuple(SCHEMAS)
ENUMS = {
    "entity": ENTITY_KINDS,
    "subject": SUBJECT_KINDS,
    "importance": permitted_uses.IMPORTANCE_ORDER,
    "supersede": SUPERSEDE_KINDS,
    "forget": ("fact", "source", "entity"),
}
# Payload fields a mutation type may carry (content).
PAYLOADS: dict[str, tuple[str, ...]] = {
    ADD_ENTITY: ("name", "aliases"),
    ADD_FACT: ("content", "predicate", "arguments", "tags", "source_label", "reason"),
    ADD_EVIDENCE: ("source_ref", "source_label", "quote", "extractor_id", "extractor_version", "details"),
    TOMBSTONE_EVIDENCE: ("reason",),
    SET_STATUS: ("reason",),
    RETRACT_FACT: ("reason",),
    LIFT_REFUSAL: ("reason",),
    REFINE_FACT: ("content", "predicate", "arguments"),
    SPLIT_ENTITY: ("name", "aliases"),
}
REQUIRED_PAYLOAD = {ADD_ENTITY: ("name",), ADD_FACT: ("content",), REFINE_FACT: ("content",), SPLIT_ENTITY: ("name",)}
REFUSAL_FIELDS = ("kind", "subject_key", "proposition_key", "text_key", "token_hashes", "source_hashes", "name_hashes")


def _fail(index: int, message: str):
    raise InvalidMutation(f"mutation {index}: {message}")


def _check_field(index: int, name: str, kind: str, value: Any) -> Any:
    if kind == "id":
        if not isinstance(value, str) or not value:
            _fail(index, f"{name} must be an id string")
        try:
            import uuid

            return str(uuid.UUID(value))
        except ValueError:
            _fail(index, f"{name} is not a valid uuid")
    if kind == "ids":
        if not isinstance(value, list):
            _fail(index, f"{name} must be a list of ids")
        return [_check_field(index, name, "id", v) for v in value]
    if kind == "str":
        if not isinstance(value, str):
            _fail(index, f"{name} must be a string")
        return value
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            _fail(index, f"{name} must be an integer")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            _fail(index, f"{name} must be true or false")
        return value
    if kind == "float01":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            _fail(index, f"{name} must be a number between 0 and 1")
        return float(value)
    if kind == "time":
        try:
            parsed = hashing.parse_iso(value) if isinstance(value, str) else None
        except ValueError:
            parsed = None
        if parsed is None:
            _fail(index, f"{name} must be an ISO 8601 datetime")
        return hashing.iso(parsed)
    if kind == "status":
        if value not in permitted_uses.STATUSES:
            _fail(index, f"{name} must be one of {', '.join(permitted_uses.STATUSES)}")
        return value
    if kind.startswith("enum:"):
        choices = ENUMS[kind[5:]]
        if value not in choices:
            _fail(index, f"{name} must be one of {', '.join(choices)}")
        return value
    if kind == "hashes":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            _fail(index, f"{name} must be a list of hash strings")
        return sorted(set(value))
    if kind == "refusals":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            _fail(index, f"{name} must be a list of objects")
        return [{k: r.get(k, [] if k.endswith("hashes") else "") for k in REFUSAL_FIELDS} for r in value]
    raise AssertionError(kind)


def validate(mutation: Any, index: int = 0) -> dict:
    """Return a clean copy of ``mutation`` or raise ``InvalidMutation`` with a readable message."""
    if not isinstance(mutation, dict):
        _fail(index, "must be an object")
    mtype = mutation.get("type")
    if mtype not in SCHEMAS:
        _fail(index, f"unknown type {mtype!r}; expected one of {', '.join(TYPES)}")
    schema = SCHEMAS[mtype]
    allowed = set(schema) | {"type", "payload"}
    extra = set(mutation) - allowed - {"payload_hash", "forgotten"}
    if extra:
        _fail(index, f"unexpected field(s) for {mtype}: {', '.join(sorted(extra))}")
    out: dict[str, Any] = {"type": mtype}
    for name, kind in schema.items():
        optional = kind.endswith("?")
        kind = kind.rstrip("?")
        value = mutation.get(name)
        if value is None:
            if not optional:
                _fail(index, f"{mtype} needs {name}")
            continue
        out[name] = _check_field(index, name, kind, value)
    payload = mutation.get("payload")
    if mtype in PAYLOADS:
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            _fail(index, "payload must be an object")
        unknown = set(payload) - set(PAYLOADS[mtype])
        if unknown:
            _fail(index, f"unexpected payload field(s) for {mtype}: {', '.join(sorted(unknown))}")
        for name in REQUIRED_PAYLOAD.get(mtype, ()):
            if not isinstance(payload.get(name), str) or not payload[name].strip():
                _fail(index, f"{mtype} needs payload.{name}")
        out["payload"] = hashing.to_jsonable(payload)
    elif payload:
        _fail(index, f"{mtype} takes no payload")
    if mtype == ADD_FACT and out["subject_kind"] == "third_party" and not out.get("subject_entity_id"):
        _fail(index, "a third_party fact needs subject_entity_id (the person)")
    return out


def _resolve_refs(value: Any, created: dict[int, str], index: int) -> Any:
    if isinstance(value, str) and value.startswith("$") and value[1:].isdigit():
        ref = int(value[1:])
        if ref not in created:
            _fail(index, f"reference {value} does not name an id created earlier in this commit")
        return created[ref]
    if isinstance(value, list):
        return [_resolve_refs(v, created, index) for v in value]
    return value


def _fill_keys(m: dict) -> None:
    """Derive claim keys from the payload when a caller (e.g. the HTTP API) left them out."""
    payload = m.get("payload") or {}
    if m["type"] in (ADD_FACT, REFINE_FACT):
        content = payload.get("content", "")
        m.setdefault("text_key", hashing.text_key(content))
        m.setdefault("token_hashes", hashing.token_signature(content))
        if m["type"] == ADD_FACT:
            subject = hashing.subject_key(m["subject_kind"], m.get("subject_entity_id"))
            m.setdefault(
                "proposition_key",
                hashing.proposition_key(subject, payload.get("predicate", "states"), payload.get("arguments"), content),
            )
            m.setdefault("source_hash", hashing.short_hash(payload.get("source_label", "")))
    if m["type"] == ADD_EVIDENCE:
        m.setdefault("source_hash", hashing.short_hash(payload.get("source_label", "")))
    if m["type"] in (ADD_ENTITY, SPLIT_ENTITY) and "name_hashes" not in m:
        names = [payload.get("name", "")] + list(payload.get("aliases") or [])
        m["name_hashes"] = sorted({hashing.short_hash("name:" + hashing.normalize_name(n)) for n in names if n})


@dataclass
class Prepared:
    mutations: list[dict]
    created_ids: list[str | None]
    derived_ids: set[str] = field(default_factory=set)


def prepare(mutations: Any, parent_commit_id: str, namespace: str = "") -> Prepared:
    """Validate, resolve ``$n`` references and fill deterministic ids/keys.

    Same owner ``namespace`` + parent + input -> same output; the namespace keeps ids unique across owners.
    """
    if not isinstance(mutations, list) or not mutations:
        raise InvalidMutation("a commit needs a non-empty list of mutations")
    created: dict[int, str] = {}
    out: list[dict] = []
    created_ids: list[str | None] = []
    derived: set[str] = set()
    for index, raw in enumerate(mutations):
        if not isinstance(raw, dict):
            _fail(index, "must be an object")
        m = {k: _resolve_refs(v, created, index) for k, v in raw.items() if k != "payload"}
        if "payload" in raw:
            m["payload"] = raw["payload"]
        id_field = CREATES.get(m.get("type"))
        if id_field and not m.get(id_field):
            basis = hashing.seal({k: v for k, v in m.items() if k != id_field})
            m[id_field] = hashing.derived_uuid(m["type"], namespace, parent_commit_id, index, basis)
            derived.add(m[id_field])
        m = validate(m, index)
        _fill_keys(m)
        out.append(m)
        if id_field:
            created[index] = m[id_field]
        created_ids.append(m.get(id_field) if id_field else None)
    return Prepared(out, created_ids, derived)


def targets(m: dict) -> list[str]:
    """Every object id a mutation touches (for CommitRef: history and forget)."""
    ids: list[str] = []
    for name, kind in SCHEMAS[m["type"]].items():
        value = m.get(name)
        if value is None:
            continue
        if kind.rstrip("?") == "id":
            ids.append(value)
        elif kind.rstrip("?") == "ids":
            ids.extend(value)
    return list(dict.fromkeys(ids))


def payload_owners(m: dict) -> list[str]:
    """Ids whose forgetting must drop this mutation's payload (the payload is their content)."""
    t = m["type"]
    if t == ADD_ENTITY:
        return [m["entity_id"]]
    if t in (ADD_FACT, SET_STATUS, RETRACT_FACT, REFINE_FACT):
        return [m["fact_id"]]
    if t == ADD_EVIDENCE:
        return [m["evidence_id"], m["fact_id"]]
    if t == TOMBSTONE_EVIDENCE:
        return [m["evidence_id"]]
    if t == SPLIT_ENTITY:
        return [m["new_entity_id"]]
    return []
