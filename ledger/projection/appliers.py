"""The appliers (one function per mutation type) and ``MemoryState``, the in-memory ``State`` a rebuild runs them
on. Why live and rebuilt projections cannot drift is told once, in the package docstring (``ledger.projection``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ledger import hashing, permitted_uses
from ledger import mutations as M
from ledger.choices import RefusalKind, Status
from ledger.exceptions import InvalidMutation

ENTITY_FIELDS = ("public_id", "kind", "name", "aliases", "merged_into", "recorded_at")
FACT_FIELDS = (
    "public_id", "subject_kind", "subject_entity_id", "object_entity_ids", "predicate", "arguments", "content",
    "importance", "tags", "source_label", "source_hash", "capture_confidence", "veracity", "base_veracity",
    "uncertainty_reasons", "status", "status_reason", "previously_rejected", "refusal_commit_id", "valid_from",
    "valid_to", "recorded_at", "retired_at", "updated_at", "superseded_by", "supersedes", "proposition_key",
    "text_key", "token_hashes", "created_commit_id", "last_commit_id",
)  # fmt: skip
EVIDENCE_FIELDS = (
    "public_id", "fact_id", "source_type", "source_ref", "source_label", "source_hash", "quote", "extractor_id",
    "extractor_version", "capture_confidence", "observed_at", "details", "recorded_at", "tombstoned_at",
    "tombstone_reason",
)  # fmt: skip
VERSION_FIELDS = (
    "fact_id", "version", "status", "content", "veracity", "valid_from", "valid_to", "recorded_from", "recorded_to",
    "commit_id",
)  # fmt: skip
REFUSAL_FIELDS = (
    "public_id", "kind", "subject_key", "proposition_key", "text_key", "token_hashes", "source_hashes",
    "name_hashes", "fact_public_id", "decision_commit_id", "recorded_at", "lifted_at",
)  # fmt: skip

# How much one independent corroborating source raises belief (scaled by its capture confidence).
CORROBORATION_GAIN = 0.35
MAX_VERACITY = 0.99


@dataclass(frozen=True)
class Ctx:
    commit_id: str
    at: datetime
    index: int


def _fail(ctx: Ctx, message: str):
    raise InvalidMutation(f"mutation {ctx.index}: {message}")


def _t(value: str | None) -> datetime | None:
    return hashing.parse_iso(value)


# --- State -------------------------------------------------------------------------------------------
class MemoryState:
    """The whole projection in dicts: what rebuild computes before touching the tables."""

    def __init__(self):
        self.facts: dict[str, dict] = {}
        self.evidence: dict[str, dict] = {}
        self.evidence_by_fact: dict[str, list[str]] = {}
        self.entities: dict[str, dict] = {}
        self.versions: dict[str, list[dict]] = {}
        self.refusals: dict[str, dict] = {}

    def get_fact(self, fid):
        return self.facts.get(fid)

    def put_fact(self, fact):
        self.facts[fact["public_id"]] = fact
        self.evidence_by_fact.setdefault(fact["public_id"], [])

    def delete_fact(self, fid):
        for eid in self.evidence_by_fact.pop(fid, []):
            self.evidence.pop(eid, None)
        self.versions.pop(fid, None)
        self.facts.pop(fid, None)

    def evidence_of(self, fid):
        return [self.evidence[e] for e in self.evidence_by_fact.get(fid, [])]

    def get_evidence(self, eid):
        return self.evidence.get(eid)

    def put_evidence(self, ev):
        if ev["public_id"] not in self.evidence:
            self.evidence_by_fact.setdefault(ev["fact_id"], []).append(ev["public_id"])
        self.evidence[ev["public_id"]] = ev

    def delete_evidence(self, eid):
        ev = self.evidence.pop(eid, None)
        if ev:
            self.evidence_by_fact[ev["fact_id"]].remove(eid)

    def get_entity(self, eid):
        return self.entities.get(eid)

    def put_entity(self, ent):
        self.entities[ent["public_id"]] = ent

    def delete_entity(self, eid):
        self.entities.pop(eid, None)

    def entities_merged_into(self, eid):
        return [e for e in self.entities.values() if e["merged_into"] == eid]

    def facts_referencing(self, eid):
        return [f for f in self.facts.values() if f["subject_entity_id"] == eid or eid in f["object_entity_ids"]]

    def current_version(self, fid):
        versions = self.versions.get(fid)
        return versions[-1] if versions else None

    def put_version(self, v):
        versions = self.versions.setdefault(v["fact_id"], [])
        if versions and versions[-1]["version"] == v["version"]:
            versions[-1] = v
        else:
            versions.append(v)

    def refusals_for_fact(self, fid):
        return [r for r in self.refusals.values() if r["fact_public_id"] == fid]

    def put_refusal(self, r):
        self.refusals[r["public_id"]] = r

    def get_refusal(self, rid):
        return self.refusals.get(rid)


# --- Appliers ----------------------------------------------------------------------------------------
def _veracity(fact: dict, evidence: list[dict]) -> float:
    """Base belief raised by each independent live source other than the fact's own (noisy-or)."""
    best: dict[str, float] = {}
    for ev in evidence:
        if ev["tombstoned_at"] is None and ev["source_hash"] != fact["source_hash"]:
            best[ev["source_hash"]] = max(best.get(ev["source_hash"], 0.0), ev["capture_confidence"])
    v = fact["base_veracity"]
    for src in sorted(best):
        v = v + (1 - v) * CORROBORATION_GAIN * best[src]
    return round(min(max(v, fact["base_veracity"]), MAX_VERACITY if best else 1.0), 6)


def _reasons(fact: dict, evidence: list[dict]) -> list[str]:
    sources = {ev["source_hash"] for ev in evidence if ev["tombstoned_at"] is None} | {fact["source_hash"]}
    reasons = []
    if len(sources) <= 1:
        reasons.append("single_source")
    if fact["capture_confidence"] < permitted_uses.BAND_FLOOR["medium"]:
        reasons.append("low_capture_signal")
    if fact["status"] == Status.CONTRADICTED or (fact["superseded_by"] and fact["status"] == Status.SUPERSEDED):
        reasons.append("contradicted_by")
    if fact["subject_kind"] == "third_party":
        reasons.append("third_party_subject")
    if fact["previously_rejected"]:
        reasons.append("previously_rejected")
    return reasons


def _recompute(state, fact: dict) -> None:
    evidence = state.evidence_of(fact["public_id"])
    fact["veracity"] = _veracity(fact, evidence)
    fact["uncertainty_reasons"] = _reasons(fact, evidence)


def _save(state, fact: dict, ctx: Ctx) -> None:
    """Persist a changed fact: retirement time, last commit, and a new record-time version when state moved."""
    _recompute(state, fact)
    if fact["status"] in permitted_uses.RETIRED_STATUSES:
        if fact["retired_at"] is None:
            fact["retired_at"] = ctx.at
    else:
        fact["retired_at"] = None
    fact["updated_at"] = ctx.at
    fact["last_commit_id"] = ctx.commit_id
    state.put_fact(fact)
    snap = {k: fact[k] for k in ("status", "content", "veracity", "valid_from", "valid_to")}
    cur = state.current_version(fact["public_id"])
    if cur is not None and all(cur[k] == v for k, v in snap.items()):
        return
    if cur is not None and cur["commit_id"] == ctx.commit_id:
        cur = {**cur, **snap}
        state.put_version(cur)
        return
    if cur is not None:
        state.put_version({**cur, "recorded_to": ctx.at})
    state.put_version(
        {
            "fact_id": fact["public_id"],
            "version": (cur["version"] + 1) if cur else 1,
            **snap,
            "recorded_from": ctx.at,
            "recorded_to": None,
            "commit_id": ctx.commit_id,
        }
    )


def _need(row: dict | None, what: str, ident: str, ctx: Ctx) -> dict:
    """A copy of ``row``; the commit fails when the mutation names a ``what`` that does not exist."""
    if row is None:
        _fail(ctx, f"{what} {ident} does not exist")
    return dict(row)


def _need_fact(state, fid: str, ctx: Ctx) -> dict:
    return _need(state.get_fact(fid), "fact", fid, ctx)


def _need_entity(state, eid: str, ctx: Ctx) -> dict:
    return _need(state.get_entity(eid), "entity", eid, ctx)


def _refusal(state, fact: dict, kind: str, ctx: Ctx, n: int = 0) -> None:
    sources = {ev["source_hash"] for ev in state.evidence_of(fact["public_id"])} | {fact["source_hash"]}
    state.put_refusal(
        {
            "public_id": hashing.derived_uuid("refusal", ctx.commit_id, ctx.index, n),
            "kind": kind,
            "subject_key": hashing.subject_key(fact["subject_kind"], fact["subject_entity_id"]),
            "proposition_key": fact["proposition_key"],
            "text_key": fact["text_key"],
            "token_hashes": list(fact["token_hashes"]),
            "source_hashes": sorted(s for s in sources if s),
            "name_hashes": [],
            "fact_public_id": fact["public_id"],
            "decision_commit_id": ctx.commit_id,
            "recorded_at": ctx.at,
            "lifted_at": None,
        }
    )


def apply_add_entity(state, m: dict, ctx: Ctx) -> None:
    if state.get_entity(m["entity_id"]) is not None:
        _fail(ctx, f"entity {m['entity_id']} already exists")
    payload = m.get("payload") or {}
    name = payload.get("name") or ""
    aliases = [a for a in dict.fromkeys(payload.get("aliases") or []) if a and a != name]
    state.put_entity(
        {
            "public_id": m["entity_id"],
            "kind": m["kind"],
            "name": name,
            "aliases": aliases,
            "merged_into": None,
            "recorded_at": ctx.at,
        }
    )


def apply_add_fact(state, m: dict, ctx: Ctx) -> None:
    if state.get_fact(m["fact_id"]) is not None:
        _fail(ctx, f"fact {m['fact_id']} already exists")
    for eid in [m.get("subject_entity_id")] + list(m.get("object_entity_ids") or []):
        if eid:
            _need_entity(state, eid, ctx)
    payload = m.get("payload") or {}
    valid_from, valid_to = _t(m.get("valid_from")), _t(m.get("valid_to"))
    if valid_from and valid_to and valid_to <= valid_from:
        _fail(ctx, "valid_to must be after valid_from")
    fact = {
        "public_id": m["fact_id"],
        "subject_kind": m["subject_kind"],
        "subject_entity_id": m.get("subject_entity_id"),
        "object_entity_ids": list(dict.fromkeys(m.get("object_entity_ids") or [])),
        "predicate": payload.get("predicate") or "states",
        "arguments": payload.get("arguments") or {},
        "content": payload.get("content") or "",
        "importance": m.get("importance") or "normal",
        "tags": list(dict.fromkeys(payload.get("tags") or [])),
        "source_label": payload.get("source_label") or "",
        "source_hash": m.get("source_hash", ""),
        "capture_confidence": m["capture_confidence"],
        "veracity": m["veracity"],
        "base_veracity": m["veracity"],
        "uncertainty_reasons": [],
        "status": m["status"],
        "status_reason": payload.get("reason") or "",
        "previously_rejected": bool(m.get("previously_rejected")),
        "refusal_commit_id": m.get("refusal_commit_id") or "",
        "valid_from": valid_from,
        "valid_to": valid_to,
        "recorded_at": ctx.at,
        "retired_at": None,
        "updated_at": ctx.at,
        "superseded_by": None,
        "supersedes": None,
        "proposition_key": m["proposition_key"],
        "text_key": m["text_key"],
        "token_hashes": list(m.get("token_hashes") or []),
        "created_commit_id": ctx.commit_id,
        "last_commit_id": ctx.commit_id,
    }
    _save(state, fact, ctx)


def apply_add_evidence(state, m: dict, ctx: Ctx) -> None:
    fact = _need_fact(state, m["fact_id"], ctx)
    if state.get_evidence(m["evidence_id"]) is not None:
        _fail(ctx, f"evidence {m['evidence_id']} already exists")
    payload = m.get("payload") or {}
    state.put_evidence(
        {
            "public_id": m["evidence_id"],
            "fact_id": m["fact_id"],
            "source_type": m["source_type"],
            "source_ref": payload.get("source_ref") or {},
            "source_label": payload.get("source_label") or "",
            "source_hash": m.get("source_hash", ""),
            "quote": payload.get("quote") or "",
            "extractor_id": payload.get("extractor_id") or "",
            "extractor_version": payload.get("extractor_version") or "",
            "capture_confidence": m["capture_confidence"],
            "observed_at": _t(m.get("observed_at")),
            "details": payload.get("details") or {},
            "recorded_at": ctx.at,
            "tombstoned_at": None,
            "tombstone_reason": "",
        }
    )
    _save(state, fact, ctx)


def apply_remove_evidence(state, m: dict, ctx: Ctx) -> None:
    ev = _need(state.get_evidence(m["evidence_id"]), "evidence", m["evidence_id"], ctx)
    state.delete_evidence(m["evidence_id"])
    _save(state, _need_fact(state, ev["fact_id"], ctx), ctx)


def apply_tombstone_evidence(state, m: dict, ctx: Ctx) -> None:
    ev = _need(state.get_evidence(m["evidence_id"]), "evidence", m["evidence_id"], ctx)
    if ev["tombstoned_at"] is not None:
        _fail(ctx, f"evidence {m['evidence_id']} is already tombstoned")
    reason = (m.get("payload") or {}).get("reason") or ("source_deleted" if m.get("source_deleted") else "withdrawn")
    state.put_evidence({**ev, "tombstoned_at": ctx.at, "tombstone_reason": reason})
    fact = _need_fact(state, ev["fact_id"], ctx)
    live = [e for e in state.evidence_of(fact["public_id"]) if e["tombstoned_at"] is None]
    if not live and fact["status"] in permitted_uses.ACTIVE_STATUSES:
        fact["status"] = Status.SOURCE_TOMBSTONED if m.get("source_deleted") else Status.TOMBSTONED
    _save(state, fact, ctx)


def apply_set_status(state, m: dict, ctx: Ctx) -> None:
    fact = _need_fact(state, m["fact_id"], ctx)
    previous = fact["status"]
    fact["status"] = m["status"]
    fact["status_reason"] = (m.get("payload") or {}).get("reason") or ""
    if m.get("veracity") is not None:
        fact["base_veracity"] = m["veracity"]
    if m["status"] == Status.REJECTED and previous != Status.REJECTED:
        _refusal(state, fact, RefusalKind.REJECTED, ctx)
    if m["status"] == Status.ACCEPTED or (
        previous == Status.REJECTED and m["status"] in permitted_uses.PENDING_STATUSES
    ):
        # An explicit acceptance lifts the fact's own refusals (the user changed their mind); so does taking a
        # rejection back to the queue (a review undo).
        for r in state.refusals_for_fact(fact["public_id"]):
            if r["lifted_at"] is None and r["kind"] in (RefusalKind.REJECTED, RefusalKind.RETRACTED):
                state.put_refusal({**r, "lifted_at": ctx.at})
    _save(state, fact, ctx)


def apply_retract_fact(state, m: dict, ctx: Ctx) -> None:
    fact = _need_fact(state, m["fact_id"], ctx)
    if fact["status"] == Status.RETRACTED:
        _fail(ctx, f"fact {fact['public_id']} is already retracted")
    fact["status"] = Status.RETRACTED
    fact["status_reason"] = (m.get("payload") or {}).get("reason") or ""
    _refusal(state, fact, RefusalKind.RETRACTED, ctx)
    _save(state, fact, ctx)


def apply_supersede_fact(state, m: dict, ctx: Ctx) -> None:
    if m["old_fact_id"] == m["new_fact_id"]:
        _fail(ctx, "a fact cannot supersede itself")
    old = _need_fact(state, m["old_fact_id"], ctx)
    new = _need_fact(state, m["new_fact_id"], ctx)
    if m.get("valid_from"):
        new["valid_from"] = _t(m["valid_from"])
    if m.get("valid_to"):
        new["valid_to"] = _t(m["valid_to"])
    if new["valid_from"] and new["valid_to"] and new["valid_to"] <= new["valid_from"]:
        _fail(ctx, "valid_to must be after valid_from")
    old["superseded_by"] = new["public_id"]
    new["supersedes"] = old["public_id"]
    if m["kind"] == "contradict":
        old["status"] = Status.CONTRADICTED
    else:
        # The world changed: the old claim held until the new one started. If that leaves it no interval
        # of its own, it was replaced outright.
        cut = new["valid_from"] or ctx.at
        if new["valid_from"] is None:
            new["valid_from"] = cut
        if old["valid_from"] is not None and old["valid_from"] >= cut:
            old["status"] = Status.SUPERSEDED
        elif old["valid_to"] is None or old["valid_to"] > cut:
            old["valid_to"] = cut
    _save(state, old, ctx)
    _save(state, new, ctx)


def apply_refine_fact(state, m: dict, ctx: Ctx) -> None:
    fact = _need_fact(state, m["fact_id"], ctx)
    payload = m.get("payload") or {}
    if payload.get("content"):
        fact["content"] = payload["content"]
    if payload.get("predicate"):
        fact["predicate"] = payload["predicate"]
    if payload.get("arguments") is not None:
        fact["arguments"] = payload["arguments"]
    for key in ("proposition_key", "text_key", "token_hashes"):
        if m.get(key):
            fact[key] = m[key]
    _save(state, fact, ctx)


def apply_reassign_fact_subject(state, m: dict, ctx: Ctx) -> None:
    fact = _need_fact(state, m["fact_id"], ctx)
    if m.get("subject_entity_id"):
        _need_entity(state, m["subject_entity_id"], ctx)
    if m["subject_kind"] == "third_party" and not m.get("subject_entity_id"):
        _fail(ctx, "a third_party subject needs subject_entity_id")
    fact["subject_kind"] = m["subject_kind"]
    fact["subject_entity_id"] = m.get("subject_entity_id")
    if m.get("proposition_key"):
        fact["proposition_key"] = m["proposition_key"]
    _save(state, fact, ctx)


def _repoint(state, from_id: str, to_id: str, ctx: Ctx, only: set[str] | None = None) -> None:
    for fact in state.facts_referencing(from_id):
        if only is not None and fact["public_id"] not in only:
            continue
        fact = dict(fact)
        if fact["subject_entity_id"] == from_id:
            fact["subject_entity_id"] = to_id
        fact["object_entity_ids"] = list(dict.fromkeys(to_id if e == from_id else e for e in fact["object_entity_ids"]))
        _save(state, fact, ctx)


def apply_merge_entities(state, m: dict, ctx: Ctx) -> None:
    target = _need_entity(state, m["target_id"], ctx)
    if target["merged_into"]:
        _fail(ctx, "cannot merge into an entity that was itself merged")
    for sid in m["source_ids"]:
        if sid == target["public_id"]:
            _fail(ctx, "an entity cannot be merged into itself")
        source = _need_entity(state, sid, ctx)
        if source["merged_into"]:
            _fail(ctx, f"entity {sid} is already merged")
        names = [source["name"], *source["aliases"]]
        target["aliases"] = [a for a in dict.fromkeys([*target["aliases"], *names]) if a and a != target["name"]]
        state.put_entity({**source, "merged_into": target["public_id"]})
        for earlier in state.entities_merged_into(sid):
            state.put_entity({**earlier, "merged_into": target["public_id"]})
        _repoint(state, sid, target["public_id"], ctx)
    state.put_entity(target)


def apply_split_entity(state, m: dict, ctx: Ctx) -> None:
    old = _need_entity(state, m["entity_id"], ctx)
    if state.get_entity(m["new_entity_id"]) is not None:
        _fail(ctx, f"entity {m['new_entity_id']} already exists")
    payload = m.get("payload") or {}
    name = payload.get("name") or ""
    remove = set(m.get("remove_alias_hashes") or [])
    old["aliases"] = [
        a for a in old["aliases"] if hashing.short_hash("name:" + hashing.normalize_name(a)) not in remove
    ]
    state.put_entity(old)
    state.put_entity(
        {
            "public_id": m["new_entity_id"],
            "kind": m.get("kind") or old["kind"],
            "name": name,
            "aliases": [a for a in dict.fromkeys(payload.get("aliases") or []) if a and a != name],
            "merged_into": None,
            "recorded_at": ctx.at,
        }
    )
    moving = set(m.get("fact_ids") or [])
    for fid in moving:
        fact = _need_fact(state, fid, ctx)
        if fact["subject_entity_id"] != old["public_id"] and old["public_id"] not in fact["object_entity_ids"]:
            _fail(ctx, f"fact {fid} does not mention entity {old['public_id']}")
    _repoint(state, old["public_id"], m["new_entity_id"], ctx, only=moving)


def apply_forget(state, m: dict, ctx: Ctx) -> None:
    fact_ids = set(m.get("fact_ids") or [])
    touched: set[str] = set()
    for eid in m.get("evidence_ids") or []:
        ev = _need(state.get_evidence(eid), "evidence", eid, ctx)
        state.delete_evidence(eid)
        touched.add(ev["fact_id"])
    for fid in sorted(fact_ids):
        _need_fact(state, fid, ctx)
        state.delete_fact(fid)
    for eid in m.get("entity_ids") or []:
        _need_entity(state, eid, ctx)
        if any(f["public_id"] not in fact_ids for f in state.facts_referencing(eid)):
            _fail(ctx, f"entity {eid} is still mentioned by facts not being forgotten")
        state.delete_entity(eid)
    for fid in sorted(touched - fact_ids):
        fact = state.get_fact(fid)
        if fact is not None:
            _save(state, dict(fact), ctx)
    for n, r in enumerate(m.get("refusals") or []):
        state.put_refusal(
            {
                "public_id": hashing.derived_uuid("refusal", ctx.commit_id, ctx.index, n),
                "kind": r["kind"] or RefusalKind.FORGOTTEN,
                "subject_key": r["subject_key"],
                "proposition_key": r["proposition_key"],
                "text_key": r["text_key"],
                "token_hashes": list(r["token_hashes"]),
                "source_hashes": list(r["source_hashes"]),
                "name_hashes": list(r["name_hashes"]),
                "fact_public_id": None,
                "decision_commit_id": ctx.commit_id,
                "recorded_at": ctx.at,
                "lifted_at": None,
            }
        )


def apply_lift_refusal(state, m: dict, ctx: Ctx) -> None:
    """The person lifts a refusal explicitly: the claim may be proposed again (it then goes to review)."""
    ref = _need(state.get_refusal(m["refusal_id"]), "refusal", m["refusal_id"], ctx)
    if ref["lifted_at"] is not None:
        _fail(ctx, f"refusal {m['refusal_id']} is already lifted")
    state.put_refusal({**ref, "lifted_at": ctx.at})


APPLIERS = {
    M.ADD_ENTITY: apply_add_entity,
    M.ADD_FACT: apply_add_fact,
    M.ADD_EVIDENCE: apply_add_evidence,
    M.REMOVE_EVIDENCE: apply_remove_evidence,
    M.TOMBSTONE_EVIDENCE: apply_tombstone_evidence,
    M.SET_STATUS: apply_set_status,
    M.RETRACT_FACT: apply_retract_fact,
    M.SUPERSEDE_FACT: apply_supersede_fact,
    M.REFINE_FACT: apply_refine_fact,
    M.REASSIGN_FACT_SUBJECT: apply_reassign_fact_subject,
    M.MERGE_ENTITIES: apply_merge_entities,
    M.SPLIT_ENTITY: apply_split_entity,
    M.FORGET: apply_forget,
    M.LIFT_REFUSAL: apply_lift_refusal,
}
assert set(APPLIERS) == set(M.TYPES)


def apply_commit(state, commit_id: str, at: datetime, mutations: list[dict]) -> None:
    for index, m in enumerate(mutations):
        APPLIERS[m["type"]](state, m, Ctx(commit_id, at, index))


def replay(commits: Iterable) -> MemoryState:
    """Apply every commit (objects with commit_id, committed_at, mutations) in order to a fresh MemoryState."""
    state = MemoryState()
    for c in commits:
        apply_commit(state, c.commit_id, c.committed_at, c.mutations)
    return state
