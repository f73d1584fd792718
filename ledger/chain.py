"""The per-owner commit chain: append (optimistic concurrency, idempotent replays), verify, rebuild."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ledger import hashing, projection
from ledger import mutations as M
from ledger.exceptions import HeadConflict, InvalidMutation
from ledger.forget.hooks import run_forget_hooks
from ledger.models import ChainHead, Commit, CommitRef, Entity, Evidence, Fact, FactVersion, Refusal


@dataclass
class CommitResult:
    commit_id: str
    seq: int
    applied: bool
    created_ids: list[str | None] = field(default_factory=list)
    mutations: list[dict] = field(default_factory=list)


def _lock_head(owner) -> ChainHead:
    # Appends for one owner are serialised on this row: the head we read is the head we advance.
    try:
        return ChainHead.objects.select_for_update().get(owner=owner)
    except ChainHead.DoesNotExist:
        pass
    try:
        with transaction.atomic():
            ChainHead.objects.create(owner=owner)
    except IntegrityError:
        pass  # a concurrent first append created it; fine
    return ChainHead.objects.select_for_update().get(owner=owner)


def lock_head(owner) -> ChainHead:
    """Lock ``owner``'s chain head for the rest of the current transaction (appends are serialised on it)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("lock_head needs a transaction")
    return _lock_head(owner)


def head(owner) -> ChainHead:
    return ChainHead.objects.filter(owner=owner).first() or ChainHead(owner=owner)


def append(
    *,
    owner,
    mutations: list[dict],
    expected_head: str | None = None,
    author: str = Commit.Author.SYSTEM,
    author_label: str = "",
    at: datetime | None = None,
) -> CommitResult:
    """Append one commit to ``owner``'s chain and apply it to the projection, atomically.

    ``expected_head`` (optional): the head the caller built on. If the chain moved, raises
    ``HeadConflict(expected, current)`` — unless this exact commit is already in the chain, in which case
    nothing changes and ``applied=False`` is returned (safe retries). Raises ``InvalidMutation`` for a
    malformed mutation or one that does not apply; nothing is written then.
    """
    if author not in Commit.Author.values:
        author = Commit.Author.SYSTEM
    with transaction.atomic():
        chain_head = _lock_head(owner)
        parent = chain_head.head_commit_id if expected_head is None else expected_head
        prepared = M.prepare(mutations, parent, namespace=f"owner:{owner.pk}")
        cid = hashing.commit_id(parent, prepared.mutations)
        if parent != chain_head.head_commit_id:
            # Built on an older head: either a retry of a commit already in the chain, or a conflict. (A commit
            # whose parent is the current head cannot exist yet, so the fast path skips this lookup.)
            existing = Commit.objects.filter(owner=owner, commit_id=cid).values_list("seq", flat=True).first()
            if existing is not None:
                return CommitResult(cid, existing, False, prepared.created_ids, prepared.mutations)
            raise HeadConflict(expected_head or "", chain_head.head_commit_id)
        at = at or timezone.now()
        # Ids derived from the current head are new by construction: no need to look them up.
        state = projection.DbState(owner.pk, fresh_ids=prepared.derived_ids)
        projection.apply_commit(state, cid, at, prepared.mutations)
        seq = chain_head.length + 1
        try:
            state.flush()
        except IntegrityError as exc:
            # No savepoint needed: raising rolls the whole append back (its atomic block, or its savepoint).
            raise InvalidMutation("an id created by this commit already exists in the ledger") from exc
        commit_pk = _insert_commit(
            owner_id=owner.pk,
            head_pk=chain_head.pk,
            cid=cid,
            parent=parent,
            seq=seq,
            author=author,
            author_label=author_label[:200],
            at=at,
            mutations=prepared.mutations,
        )
        forgotten = _forgotten_ids(prepared.mutations)
        if forgotten:
            _drop_payloads(owner, forgotten, exclude_commit=commit_pk)
            gone = sorted(state.deleted["fact"])
            run_forget_hooks(
                owner=owner, fact_ids=[state.fact_pk[f] for f in gone if f in state.fact_pk], fact_public_ids=gone
            )
    return CommitResult(cid, seq, True, prepared.created_ids, prepared.mutations)


def _insert_commit(*, owner_id, head_pk, cid, parent, seq, author, author_label, at, mutations) -> int:
    """Insert the commit, its CommitRefs, and advance the (locked) head row, in one round trip."""
    refs = [(i, oid) for i, m in enumerate(mutations) for oid in M.targets(m)]
    mutations_db = Commit._meta.get_field("mutations").get_db_prep_save(mutations, connection)
    sql = f"""
        WITH c AS (
            INSERT INTO {Commit._meta.db_table}
                (owner_id, commit_id, parent_commit_id, seq, author, author_label, committed_at, mutations)
            VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
            RETURNING id
        ), r AS (
            INSERT INTO {CommitRef._meta.db_table} (commit_id, "index", object_id)
            SELECT c.id, x.i, x.o FROM c, unnest(%s::integer[], %s::uuid[]) AS x(i, o)
        ), h AS (
            UPDATE {ChainHead._meta.db_table} SET head_commit_id = %s, length = %s, updated_at = %s WHERE id = %s
        )
        SELECT id FROM c
    """
    params = [
        owner_id, cid, parent, seq, author, author_label, at, mutations_db,
        [i for i, _ in refs], [o for _, o in refs],
        cid, seq, timezone.now(), head_pk,
    ]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _forgotten_ids(mutations: list[dict]) -> set[str]:
    ids: set[str] = set()
    for m in mutations:
        if m["type"] == M.FORGET:
            ids.update(m.get("fact_ids") or [])
            ids.update(m.get("evidence_ids") or [])
            ids.update(m.get("entity_ids") or [])
    return ids


def _drop_payloads(owner, forgotten: set[str], exclude_commit: int) -> int:
    """Remove the content of every earlier mutation whose payload belongs to a forgotten object.

    The sealed form keeps ``payload_hash``, so every commit id still verifies.
    """
    commit_pks = set(
        CommitRef.objects.filter(object_id__in=forgotten, commit__owner=owner)
        .exclude(commit_id=exclude_commit)
        .values_list("commit_id", flat=True)
    )
    changed = 0
    for commit in Commit.objects.filter(pk__in=commit_pks).select_for_update():
        new_mutations = []
        dirty = False
        for m in commit.mutations:
            if m.get("payload") is not None and set(M.payload_owners(m)) & forgotten:
                payload_hash = hashing.digest(m["payload"])
                m = {**{k: v for k, v in m.items() if k != "payload"}, "payload": None}
                m["payload_hash"] = payload_hash
                m["forgotten"] = True
                dirty = True
            new_mutations.append(m)
        if dirty:
            commit.mutations = new_mutations
            commit.save(update_fields=["mutations"])
            changed += 1
    return changed


# --- Verify -----------------------------------------------------------------------------------------------
@dataclass
class VerifyReport:
    ok: bool
    length: int
    head_commit_id: str
    first_bad_seq: int | None = None
    first_bad_commit_id: str = ""
    problem: str = ""

    def line(self) -> str:
        if self.ok:
            return f"ok: {self.length} commits verified, head {self.head_commit_id[:12] or '(empty)'}"
        return f"BROKEN at commit #{self.first_bad_seq} ({self.first_bad_commit_id[:12]}): {self.problem}"


def _all_forgotten_ids(owner) -> set[str]:
    forgotten: set[str] = set()
    for muts in Commit.objects.filter(owner=owner, mutations__contains=[{"type": M.FORGET}]).values_list(
        "mutations", flat=True
    ):
        forgotten |= _forgotten_ids(muts) if isinstance(muts, list) else set()
    return forgotten


def _link_problem(seq: int, expected_seq: int, parent_id: str, parent: str, cid: str, muts) -> str | None:
    """What is wrong with one commit's place and hash in the chain (tampering or loss), if anything."""
    if seq != expected_seq:
        return f"missing commit #{expected_seq} (next stored is #{seq})"
    if parent_id != parent:
        return "parent link does not match the previous commit (missing or reordered commit)"
    if not isinstance(muts, list) or not all(isinstance(m, dict) for m in muts):
        return "mutations are not a list of objects (tampered)"
    try:
        recomputed = hashing.commit_id(parent_id, muts)
    except (TypeError, ValueError):
        recomputed = ""
    return "content does not match its commit id (tampered)" if recomputed != cid else None


def _lost_content(muts: list[dict], forgotten: set[str]) -> str:
    """A mutation whose content is gone with no forget covering it."""
    for i, m in enumerate(muts):
        if m.get("payload") is None and m.get("type") in M.PAYLOADS:
            try:
                owners = set(M.payload_owners(m))
            except KeyError:
                owners = set()
            if not (owners & forgotten):
                return f"mutation {i} lost its content without a forget"
    return ""


def verify(owner) -> VerifyReport:
    """Walk the chain from genesis, recompute every commit id and check links; report the first problem.

    Broken hashes and links come first (they are tampering or loss); only on an intact chain is a commit
    reported whose content is missing without a forget covering it.
    """
    chain_head = head(owner)
    forgotten = _all_forgotten_ids(owner)
    parent = hashing.GENESIS
    expected_seq = 1
    count = 0
    lost: tuple[int, str, str] | None = None
    qs = (
        Commit.objects.filter(owner=owner)
        .order_by("seq")
        .values_list("seq", "commit_id", "parent_commit_id", "mutations")
    )
    for seq, cid, parent_id, muts in qs.iterator(chunk_size=2000):
        bad = _link_problem(seq, expected_seq, parent_id, parent, cid, muts)
        if bad is None and lost is None:
            problem = _lost_content(muts, forgotten)
            lost = (seq, cid, problem) if problem else None
        if bad:
            return VerifyReport(False, count, chain_head.head_commit_id, seq, cid, bad)
        parent = cid
        expected_seq += 1
        count += 1
    if count != chain_head.length or parent != chain_head.head_commit_id:
        return VerifyReport(
            False,
            count,
            chain_head.head_commit_id,
            count + 1,
            chain_head.head_commit_id,
            f"head says {chain_head.length} commits ending at {chain_head.head_commit_id[:12] or '(empty)'}, "
            f"chain has {count} ending at {parent[:12] or '(empty)'} (missing commit)",
        )
    if lost:
        return VerifyReport(False, count, chain_head.head_commit_id, *lost)
    return VerifyReport(True, count, chain_head.head_commit_id)


# --- Rebuild ----------------------------------------------------------------------------------------------
@dataclass
class RebuildReport:
    commits: int
    identical_before: bool
    differences: dict
    digest: str
    written: bool

    def line(self) -> str:
        if self.identical_before:
            return f"ok: {self.commits} commits replayed; projection identical ({self.digest[:12]})"
        diffs = ", ".join(f"{t}: {m} missing/{e} extra/{c} changed" for t, (m, e, c) in self.differences.items())
        verb = "rebuilt" if self.written else "drift found (not written)"
        return f"{verb}: {self.commits} commits replayed; {diffs}"


def replay_owner(owner) -> tuple[projection.MemoryState, int]:
    qs = Commit.objects.filter(owner=owner).order_by("seq").only("commit_id", "committed_at", "mutations")
    state = projection.MemoryState()
    count = 0
    for c in qs.iterator(chunk_size=2000):
        projection.apply_commit(state, c.commit_id, c.committed_at, c.mutations)
        count += 1
    return state, count


def rebuild(owner, *, write: bool = True) -> RebuildReport:
    """Replay the chain into memory and make the projection tables equal to the result."""
    with transaction.atomic():
        if write:
            _lock_head(owner)
        state, count = replay_owner(owner)
        target = projection.snapshot_memory(state)
        current = projection.snapshot_db(owner.pk)
        diff = current.differences(target)
        if diff and write:
            _reconcile(owner, state, current, target)
    return RebuildReport(count, not diff, diff, target.digest(), bool(diff and write))


def _reconcile(owner, state: projection.MemoryState, current, target) -> None:
    cur, tgt = current.tables, target.tables
    # Deletes first (facts cascade to their evidence and versions).
    Fact.objects.filter(owner=owner, public_id__in=set(cur["fact"]) - set(tgt["fact"])).delete()
    Evidence.objects.filter(owner=owner, public_id__in=set(cur["evidence"]) - set(tgt["evidence"])).delete()
    for key in set(cur["version"]) - set(tgt["version"]):
        fid, version = key.rsplit(":", 1)
        FactVersion.objects.filter(owner=owner, fact__public_id=fid, version=int(version)).delete()
    Refusal.objects.filter(owner=owner, public_id__in=set(cur["refusal"]) - set(tgt["refusal"])).delete()

    def sync(model, name, rows: dict[str, dict], to_values):
        new = []
        for key, row in rows.items():
            if key not in cur[name]:
                new.append(model(owner=owner, **to_values(row)))
            elif cur[name][key] != tgt[name][key]:
                model.objects.filter(owner=owner, **_lookup(name, key)).update(**to_values(row))
        model.objects.bulk_create(new, batch_size=2000)

    sync(Entity, "entity", state.entities, lambda d: {k: d[k] for k in projection.ENTITY_FIELDS})
    Entity.objects.filter(owner=owner, public_id__in=set(cur["entity"]) - set(tgt["entity"])).delete()
    entity_pk = {str(p): pk for p, pk in Entity.objects.filter(owner=owner).values_list("public_id", "pk")}

    def fact_values(d):
        values = {k: d[k] for k in projection.FACT_FIELDS if k != "subject_entity_id"}
        values["subject_entity_id"] = entity_pk.get(d["subject_entity_id"]) if d["subject_entity_id"] else None
        return values

    sync(Fact, "fact", state.facts, fact_values)
    fact_pk = {str(p): pk for p, pk in Fact.objects.filter(owner=owner).values_list("public_id", "pk")}

    def ev_values(d):
        values = {k: d[k] for k in projection.EVIDENCE_FIELDS if k != "fact_id"}
        values["fact_id"] = fact_pk[d["fact_id"]]
        return values

    sync(Evidence, "evidence", state.evidence, ev_values)
    versions = {f"{fid}:{v['version']}": v for fid, vs in state.versions.items() for v in vs}

    def version_values(d):
        values = {k: d[k] for k in projection.VERSION_FIELDS if k != "fact_id"}
        values["fact_id"] = fact_pk[d["fact_id"]]
        return values

    sync(FactVersion, "version", versions, version_values)
    sync(Refusal, "refusal", state.refusals, lambda d: dict(d))


def _lookup(name: str, key: str) -> dict:
    if name == "version":
        fid, version = key.rsplit(":", 1)
        return {"fact__public_id": fid, "version": int(version)}
    return {"public_id": key}
