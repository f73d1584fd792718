"""Ledger writes: every write of the ledger goes through one of these modules, each named for what it does.

- commits: ``EvidenceIn``, ``commit`` (raw mutations as one commit, ``ledger.chain.append``) and what every write
  shares (the owner's chain-head lock, evidence and person mutations)
- propose: admitting a claim (``propose_fact``: refusals, duplicates, conflicts)
- facts: changing a held fact (evidence, ``decide``, supersede, refine, retract, merge, subject, refusals,
  ``decide_timeouts``)
- entities: people and other entities (ensure, merge, split)
- layers: identity, pinned facts and episodes (plain rows, not commits)

Every change to facts, evidence and entities is a commit; the projection (``ledger.projection``) applies it to the
rows. Forgetting is its own package (``ledger.forget``). All functions take keyword-only arguments, never a
request. Domain errors are ``ledger.exceptions``.
"""

from ledger.services.commits import CommitResult, EvidenceIn, commit
from ledger.services.entities import ensure_entity, merge_entities, split_entity
from ledger.services.facts import (
    TimeoutReport,
    add_evidence,
    decide,
    decide_timeouts,
    lift_refusal,
    merge_fact_into,
    reassign_fact_subject,
    refine,
    remove_evidence,
    retract,
    supersede,
    tombstone_evidence,
)
from ledger.services.propose import Outcome, ProposeResult, RefusalCheck, propose_fact

__all__ = [
    "CommitResult",
    "EvidenceIn",
    "Outcome",
    "ProposeResult",
    "RefusalCheck",
    "TimeoutReport",
    "add_evidence",
    "commit",
    "decide",
    "decide_timeouts",
    "ensure_entity",
    "lift_refusal",
    "merge_entities",
    "merge_fact_into",
    "propose_fact",
    "reassign_fact_subject",
    "refine",
    "remove_evidence",
    "retract",
    "split_entity",
    "supersede",
    "tombstone_evidence",
]
