"""People and other entities: ensure, merge, split."""

from __future__ import annotations

from ledger import hashing, queries
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.models import (
    Entity,
)
from ledger.services.commits import commit, person_ref, serialised
from ledger.validation import check_owner


# --- Entities -------------------------------------------------------------------------------------------
@serialised
def ensure_entity(*, owner, name: str, kind: str = "person", aliases=(), author: str = "system") -> Entity:
    """The entity named ``name`` (by name or alias), created if new."""
    found = queries.find_entity(owner=owner, name=name)
    if found is not None:
        return found
    muts: list[dict] = []
    person_ref(owner, {"name": name, "kind": kind, "aliases": list(aliases)}, muts)
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
