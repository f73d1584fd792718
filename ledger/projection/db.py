"""Database-backed projection state for live commits, and snapshots of the projection tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db.models import Q

from ledger import hashing
from ledger.projection.appliers import (
    ENTITY_FIELDS,
    EVIDENCE_FIELDS,
    FACT_FIELDS,
    REFUSAL_FIELDS,
    VERSION_FIELDS,
    MemoryState,
)


# --- Database-backed state for live commits --------------------------------------------------------------
def _norm(value):
    """DB values -> the plain values appliers use (uuid -> str)."""
    import uuid

    if isinstance(value, uuid.UUID):
        return str(value)
    return value


class DbState:
    """Loads projection rows on demand for one owner and writes what changed in ``flush()``."""

    def __init__(self, owner_id: int, fresh_ids: set[str] | None = None):
        from ledger import models as lm

        self.lm = lm
        self.owner_id = owner_id
        fresh = fresh_ids or set()
        self.facts: dict[str, dict | None] = dict.fromkeys(fresh)
        self.fact_pk: dict[str, int] = {}
        self.evidence: dict[str, dict | None] = dict.fromkeys(fresh)
        self.evidence_pk: dict[str, int] = {}
        self.evidence_ids_by_fact: dict[str, list[str]] = {fid: [] for fid in fresh}
        self.entities: dict[str, dict | None] = dict.fromkeys(fresh)
        self.entity_pk: dict[str, int] = {}
        self.versions: dict[str, dict | None] = dict.fromkeys(fresh)
        self.version_pk: dict[tuple[str, int], int] = {}
        self.refusals: dict[str, dict] = {}
        self.refusal_pk: dict[str, int] = {}
        self.dirty: dict[str, set[str]] = {"fact": set(), "evidence": set(), "entity": set(), "refusal": set()}
        self.dirty_versions: dict[tuple[str, int], dict] = {}
        self.deleted: dict[str, set[str]] = {"fact": set(), "evidence": set(), "entity": set()}

    # rows <-> dicts
    def _read_rows(self, model, fields: tuple[str, ...], key: str, via: str):
        """The owner's rows of ``model`` as ``values()``: the pk, ``fields`` but ``key``, and ``via`` (the public
        id ``key`` holds, read through the foreign key)."""
        return model.objects.filter(owner_id=self.owner_id).values("id", via, *[f for f in fields if f != key])

    def _fact_from_row(self, row: dict) -> dict:
        d = _from_row(row, FACT_FIELDS, "subject_entity_id", "subject_entity__public_id")
        self.fact_pk[d["public_id"]] = row["id"]
        return d

    def _fact_qs(self):
        return self._read_rows(self.lm.Fact, FACT_FIELDS, "subject_entity_id", "subject_entity__public_id")

    def get_fact(self, fid):
        if fid not in self.facts:
            row = self._fact_qs().filter(public_id=fid).first()
            self.facts[fid] = self._fact_from_row(row) if row else None
            if row is None:
                # Not in the table: it has no evidence or versions there either (saves two lookups per new fact).
                self.evidence_ids_by_fact.setdefault(fid, [])
                self.versions.setdefault(fid, None)
        return self.facts[fid]

    def put_fact(self, fact):
        fid = fact["public_id"]
        if fid not in self.fact_pk and fid not in self.evidence_ids_by_fact:
            self.evidence_ids_by_fact[fid] = []
        self.facts[fid] = fact
        self.dirty["fact"].add(fid)

    def delete_fact(self, fid):
        for eid in list(self.evidence_ids_of(fid)):
            self.evidence[eid] = None
            self.dirty["evidence"].discard(eid)
        self.evidence_ids_by_fact[fid] = []
        self.facts[fid] = None
        self.dirty["fact"].discard(fid)
        self.deleted["fact"].add(fid)
        for key in [k for k in self.dirty_versions if k[0] == fid]:
            del self.dirty_versions[key]
        self.versions[fid] = None

    def _ev_from_row(self, row: dict) -> dict:
        d = _from_row(row, EVIDENCE_FIELDS, "fact_id", "fact__public_id")
        self.evidence_pk[d["public_id"]] = row["id"]
        return d

    def _ev_qs(self):
        return self._read_rows(self.lm.Evidence, EVIDENCE_FIELDS, "fact_id", "fact__public_id")

    def evidence_ids_of(self, fid):
        if fid not in self.evidence_ids_by_fact:
            ids = []
            for row in self._ev_qs().filter(fact__public_id=fid).order_by("recorded_at", "id"):
                d = self._ev_from_row(row)
                self.evidence.setdefault(d["public_id"], d)
                ids.append(d["public_id"])
            self.evidence_ids_by_fact[fid] = ids
        return self.evidence_ids_by_fact[fid]

    def evidence_of(self, fid):
        return [self.evidence[e] for e in self.evidence_ids_of(fid) if self.evidence.get(e) is not None]

    def get_evidence(self, eid):
        if eid not in self.evidence:
            row = self._ev_qs().filter(public_id=eid).first()
            self.evidence[eid] = self._ev_from_row(row) if row else None
        return self.evidence[eid]

    def put_evidence(self, ev):
        ids = self.evidence_ids_of(ev["fact_id"])
        if ev["public_id"] not in ids:
            ids.append(ev["public_id"])
        self.evidence[ev["public_id"]] = ev
        self.dirty["evidence"].add(ev["public_id"])

    def delete_evidence(self, eid):
        ev = self.get_evidence(eid)
        if ev is None:
            return
        ids = self.evidence_ids_of(ev["fact_id"])
        if eid in ids:
            ids.remove(eid)
        self.evidence[eid] = None
        self.dirty["evidence"].discard(eid)
        self.deleted["evidence"].add(eid)

    def _ent_from_row(self, row: dict) -> dict:
        d = {k: _norm(row[k]) for k in ENTITY_FIELDS}
        self.entity_pk[d["public_id"]] = row["id"]
        return d

    def get_entity(self, eid):
        if eid not in self.entities:
            row = self.lm.Entity.objects.filter(owner_id=self.owner_id, public_id=eid).values("id", *ENTITY_FIELDS)
            row = row.first()
            self.entities[eid] = self._ent_from_row(row) if row else None
        return self.entities[eid]

    def put_entity(self, ent):
        self.entities[ent["public_id"]] = ent
        self.dirty["entity"].add(ent["public_id"])

    def delete_entity(self, eid):
        self.entities[eid] = None
        self.dirty["entity"].discard(eid)
        self.deleted["entity"].add(eid)

    def entities_merged_into(self, eid):
        rows = self.lm.Entity.objects.filter(owner_id=self.owner_id, merged_into=eid).values("id", *ENTITY_FIELDS)
        for row in rows:
            pid = str(row["public_id"])
            if pid not in self.entities:
                self.entities[pid] = self._ent_from_row(row)
        return [e for e in self.entities.values() if e is not None and e["merged_into"] == eid]

    def facts_referencing(self, eid):
        rows = self._fact_qs().filter(Q(subject_entity__public_id=eid) | Q(object_entity_ids__contains=[eid]))
        for row in rows:
            pid = str(row["public_id"])
            if pid not in self.facts:
                self.facts[pid] = self._fact_from_row(row)
        return [
            f
            for f in self.facts.values()
            if f is not None and (f["subject_entity_id"] == eid or eid in f["object_entity_ids"])
        ]

    def current_version(self, fid):
        if fid not in self.versions:
            row = (
                self.lm.FactVersion.objects.filter(owner_id=self.owner_id, fact__public_id=fid)
                .order_by("-version")
                .values("id", *[f for f in VERSION_FIELDS if f != "fact_id"])
                .first()
            )
            if row:
                self.version_pk[(fid, row["version"])] = row.pop("id")
                row["fact_id"] = fid
            self.versions[fid] = row
        return self.versions[fid]

    def put_version(self, v):
        fid = v["fact_id"]
        cur = self.versions.get(fid)
        if cur is None or v["version"] >= cur["version"]:
            self.versions[fid] = v
        self.dirty_versions[(fid, v["version"])] = v

    def refusals_for_fact(self, fid):
        rows = self.lm.Refusal.objects.filter(owner_id=self.owner_id, fact_public_id=fid).values("id", *REFUSAL_FIELDS)
        for row in rows:
            pid = str(row["public_id"])
            if pid not in self.refusals:
                self.refusal_pk[pid] = row.pop("id")
                self.refusals[pid] = {k: _norm(row[k]) for k in REFUSAL_FIELDS}
        return [r for r in self.refusals.values() if r["fact_public_id"] == fid]

    def put_refusal(self, r):
        self.refusals[r["public_id"]] = r
        self.dirty["refusal"].add(r["public_id"])

    def get_refusal(self, rid):
        if rid not in self.refusals:
            row = self.lm.Refusal.objects.filter(owner_id=self.owner_id, public_id=rid).values("id", *REFUSAL_FIELDS)
            row = row.first()
            if row is None:
                return None
            self.refusal_pk[rid] = row.pop("id")
            self.refusals[rid] = {k: _norm(row[k]) for k in REFUSAL_FIELDS}
        return self.refusals[rid]

    # writing
    def flush(self) -> None:
        lm = self.lm
        owner_id = self.owner_id
        if self.deleted["fact"]:
            lm.Fact.objects.filter(owner_id=owner_id, public_id__in=self.deleted["fact"]).delete()
        if self.deleted["evidence"]:
            lm.Evidence.objects.filter(owner_id=owner_id, public_id__in=self.deleted["evidence"]).delete()
        # Entities first (facts point at them), then facts, evidence, versions, refusals.
        new_entities = []
        for eid in sorted(self.dirty["entity"]):
            d = self.entities[eid]
            if eid in self.entity_pk:
                lm.Entity.objects.filter(pk=self.entity_pk[eid]).update(**{k: d[k] for k in ENTITY_FIELDS})
            else:
                new_entities.append(lm.Entity(owner_id=owner_id, **d))
        for obj in lm.Entity.objects.bulk_create(new_entities):
            self.entity_pk[str(obj.public_id)] = obj.pk
        if self.deleted["entity"]:
            lm.Entity.objects.filter(owner_id=owner_id, public_id__in=self.deleted["entity"]).delete()

        def entity_pk(eid):
            if eid is None:
                return None
            if eid not in self.entity_pk:
                self.get_entity(eid)
            return self.entity_pk[eid]

        facts = (
            (fid, _to_row(self.facts[fid], FACT_FIELDS, "subject_entity_id", entity_pk))
            for fid in sorted(self.dirty["fact"])
        )
        for obj in self._write_rows(lm.Fact, facts, self.fact_pk):
            self.fact_pk[str(obj.public_id)] = obj.pk

        def fact_pk(fid):
            if fid not in self.fact_pk:
                self.get_fact(fid)
            return self.fact_pk[fid]

        evidence = (
            (eid, _to_row(self.evidence[eid], EVIDENCE_FIELDS, "fact_id", fact_pk))
            for eid in sorted(self.dirty["evidence"])
        )
        self._write_rows(lm.Evidence, evidence, self.evidence_pk)
        new_versions = []
        for (fid, version), d in sorted(self.dirty_versions.items()):
            values = {k: d[k] for k in VERSION_FIELDS if k != "fact_id"}
            if (fid, version) in self.version_pk:
                lm.FactVersion.objects.filter(pk=self.version_pk[(fid, version)]).update(**values)
            else:
                new_versions.append(lm.FactVersion(owner_id=owner_id, fact_id=fact_pk(fid), **values))
        lm.FactVersion.objects.bulk_create(new_versions)
        refusals = ((rid, self.refusals[rid]) for rid in sorted(self.dirty["refusal"]))
        self._write_rows(lm.Refusal, refusals, self.refusal_pk)

    def _write_rows(self, model, rows: Iterable[tuple[object, dict]], pks: dict) -> list:
        """Update each (key, values) row already stored (``pks``: key -> pk) and bulk-create the others, in
        order; returns the created objects."""
        new = []
        for key, values in rows:
            if key in pks:
                model.objects.filter(pk=pks[key]).update(**values)
            else:
                new.append(model(owner_id=self.owner_id, **values))
        return model.objects.bulk_create(new)


def _from_row(row: dict, fields: tuple[str, ...], key: str, via: str) -> dict:
    """A projection dict from a ``DbState._read_rows`` row: ``key`` holds the public id read through ``via``."""
    d = {k: _norm(row[k]) for k in fields if k != key}
    d[key] = _norm(row[via])
    return d


def _to_row(row: dict, fields: tuple[str, ...], key: str, resolve: Callable[[str | None], int | None]) -> dict:
    """``row``'s ``fields``, the public id in ``key`` resolved to a primary key."""
    values = {k: row[k] for k in fields if k != key}
    values[key] = resolve(row[key])
    return values


# --- Snapshots and rebuild ------------------------------------------------------------------------------
@dataclass
class Snapshot:
    tables: dict[str, dict[str, dict]] = field(default_factory=dict)

    def digest(self) -> str:
        return hashing.digest(self.tables)

    def differences(self, other: Snapshot) -> dict[str, tuple[int, int, int]]:
        """table -> (missing here, extra here, changed)."""
        out = {}
        for name in sorted(set(self.tables) | set(other.tables)):
            mine, theirs = self.tables.get(name, {}), other.tables.get(name, {})
            missing = len(set(theirs) - set(mine))
            extra = len(set(mine) - set(theirs))
            changed = sum(1 for k in set(mine) & set(theirs) if mine[k] != theirs[k])
            if missing or extra or changed:
                out[name] = (missing, extra, changed)
        return out


def _canon(d: dict) -> dict:
    return hashing.to_jsonable(d)


def snapshot_memory(state: MemoryState) -> Snapshot:
    versions = {}
    for fid, vs in state.versions.items():
        for v in vs:
            versions[f"{fid}:{v['version']}"] = _canon(v)
    return Snapshot(
        {
            "entity": {k: _canon(v) for k, v in state.entities.items()},
            "fact": {k: _canon(v) for k, v in state.facts.items()},
            "evidence": {k: _canon(v) for k, v in state.evidence.items()},
            "version": versions,
            "refusal": {k: _canon(v) for k, v in state.refusals.items()},
        }
    )


def snapshot_db(owner_id: int) -> Snapshot:
    from ledger import models as lm

    db = DbState(owner_id)
    facts = {}
    for row in db._fact_qs().iterator(chunk_size=5000):
        d = db._fact_from_row(row)
        facts[d["public_id"]] = _canon(d)
    evidence = {}
    for row in db._ev_qs().iterator(chunk_size=5000):
        d = db._ev_from_row(row)
        evidence[d["public_id"]] = _canon(d)
    entities = {}
    for row in lm.Entity.objects.filter(owner_id=owner_id).values("id", *ENTITY_FIELDS):
        d = db._ent_from_row(row)
        entities[d["public_id"]] = _canon(d)
    versions = {}
    vfields = [f for f in VERSION_FIELDS if f != "fact_id"]
    for row in (
        lm.FactVersion.objects.filter(owner_id=owner_id).values("fact__public_id", *vfields).iterator(chunk_size=5000)
    ):
        d = {k: _norm(row[k]) for k in vfields}
        d["fact_id"] = str(row["fact__public_id"])
        versions[f"{d['fact_id']}:{d['version']}"] = _canon(d)
    refusals = {}
    for row in lm.Refusal.objects.filter(owner_id=owner_id).values(*REFUSAL_FIELDS):
        d = {k: _norm(row[k]) for k in REFUSAL_FIELDS}
        refusals[d["public_id"]] = _canon(d)
    return Snapshot({"entity": entities, "fact": facts, "evidence": evidence, "version": versions, "refusal": refusals})
