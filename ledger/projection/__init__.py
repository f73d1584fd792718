"""The projection: facts, evidence, entities, versions and refusals derived from the commit log.

One applier function per mutation type, written against a small ``State`` interface. Live commits apply them
to ``DbState`` (rows loaded on demand, written at the end of the commit); ``manage.py ledger rebuild`` applies
the same functions to ``MemoryState`` and reconciles the tables with the result. Same code, so live and
rebuilt projections cannot drift. Appliers read only ids, enums, numbers, times and hashes outside the payload
when deciding anything that survives a forget, so replaying a chain whose payloads were forgotten yields the
same projection.
"""

from ledger.projection.appliers import (  # noqa: F401
    APPLIERS,
    ENTITY_FIELDS,
    EVIDENCE_FIELDS,
    FACT_FIELDS,
    REFUSAL_FIELDS,
    VERSION_FIELDS,
    Ctx,
    MemoryState,
    apply_commit,
    replay,
)
from ledger.projection.db import DbState, Snapshot, snapshot_db, snapshot_memory  # noqa: F401
