"""Recall providers for the ledger's own layers: facts, pinned facts and episodes.

Every queryset goes through the ledger's policy helper ``licensed_for(ANSWERS_WITH_DISCLAIMER)``: accepted,
pending and pending_review rows only. Rejected, retracted, contradicted, dropped... never reach recall.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ledger import permitted_uses
from ledger.models import Episode, Fact, PinnedFact
from ledger.recall.planner import RecallItem
from ledger.recall.providers import RecallProvider

# Recall hands out anything usable in an answer, with its disclaimer when not accepted.
RECALL_USE = permitted_uses.ANSWERS_WITH_DISCLAIMER


def _when(dt) -> str:
    return dt.isoformat(timespec="minutes") if dt else ""


def fact_item(fact: Fact, *, kind: str, item_id: str, ref_id: int, strength: float) -> RecallItem:
    values = {f: getattr(fact, f) for f in FACT_ITEM_FIELDS if "__" not in f}
    values["subject_entity__name"] = fact.subject_entity.name if fact.subject_entity_id else ""
    return fact_values_item(values, kind=kind, item_id=item_id, ref_id=ref_id, strength=strength)


def fact_values_item(v: dict, *, kind: str, item_id: str, ref_id: int, strength: float, prefix: str = "") -> RecallItem:
    """A fact's context-block item from its FACT_ITEM_FIELDS values (keys ``prefix + field``)."""
    status = v[f"{prefix}status"]
    return RecallItem(
        id=item_id,
        kind=kind,
        text=v[f"{prefix}content"],
        permitted_uses=permitted_uses.permitted_uses(status),
        disclaimers=permitted_uses.disclaimers(
            status=status,
            subject_kind=v[f"{prefix}subject_kind"],
            subject_name=v[f"{prefix}subject_entity__name"] or "",
            capture_confidence=v[f"{prefix}capture_confidence"],
            veracity=v[f"{prefix}veracity"],
            previously_rejected=v[f"{prefix}previously_rejected"],
            uncertainty_reasons=v[f"{prefix}uncertainty_reasons"],
        ),
        source_ref=f"fact:{v[f'{prefix}public_id']}",
        occurred_at=_when(v[f"{prefix}valid_from"] or v[f"{prefix}recorded_at"]),
        strength=strength,
        ref_id=ref_id,
    )


# The columns a context-block line needs (fact_item): fetched with the ranking query, nothing more.
FACT_ITEM_FIELDS = (
    "public_id", "content", "status", "subject_kind", "capture_confidence", "veracity", "previously_rejected",
    "uncertainty_reasons", "valid_from", "recorded_at", "subject_entity__name",
)  # fmt: skip


class FactProvider(RecallProvider):
    kind = "fact"
    name_field = "subject_entity__name"
    date_field = "recorded_at"

    def queryset(self, owner):
        return Fact.objects.owned_by(owner).licensed_for(RECALL_USE)

    def documents(self, rows: Iterable[Fact]) -> list[tuple[int, str]]:
        return [(f.pk, f.content) for f in rows]

    # Optional hydration hooks: full text fetches the rows it ranks with these, so no second round trip.
    def select(self, qs):
        return qs.select_related("subject_entity").only(*FACT_ITEM_FIELDS)

    def item(self, f: Fact) -> RecallItem:
        return fact_item(f, kind="fact", item_id=str(f.public_id), ref_id=f.pk, strength=f.veracity)

    # Hydration inside full text's ranking statement (search.py): these columns come with each ranked row.
    row_fields = FACT_ITEM_FIELDS

    def row_item(self, v: dict) -> RecallItem:
        return fact_values_item(v, kind="fact", item_id=str(v["public_id"]), ref_id=v["pk"], strength=v["veracity"])

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        return {f.pk: self.item(f) for f in self.select(self.queryset(owner).filter(pk__in=ref_ids))}


class PinnedProvider(RecallProvider):
    kind = "pinned"
    search_field = "search"  # the fact's tsvector, copied onto the pin (own GIN index; see PinnedFact.search)
    name_field = "fact__subject_entity__name"
    date_field = "fact__recorded_at"

    def queryset(self, owner):
        return PinnedFact.objects.owned_by(owner).filter(
            fact__status__in=permitted_uses.statuses_permitting(RECALL_USE)
        )

    def documents(self, rows: Iterable[PinnedFact]) -> list[tuple[int, str]]:
        return [(p.pk, p.fact.content) for p in rows]

    def select(self, qs):
        fields = ("public_id", "salience", *(f"fact__{f}" for f in FACT_ITEM_FIELDS))
        return qs.select_related("fact", "fact__subject_entity").only(*fields)

    def item(self, p: PinnedFact) -> RecallItem:
        return fact_item(p.fact, kind="pinned", item_id=str(p.public_id), ref_id=p.pk, strength=p.salience)

    row_fields = ("public_id", "salience", *(f"fact__{f}" for f in FACT_ITEM_FIELDS))

    def row_item(self, v: dict) -> RecallItem:
        item_id, ref_id = str(v["public_id"]), v["pk"]
        return fact_values_item(
            v, kind="pinned", item_id=item_id, ref_id=ref_id, strength=v["salience"], prefix="fact__"
        )

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        return {p.pk: self.item(p) for p in self.select(self.queryset(owner).filter(pk__in=ref_ids))}


def episode_text(ep: Episode) -> str:
    parts = [ep.title.strip(), ep.summary.strip()]
    if ep.topics:
        parts.append("Topics: " + ", ".join(str(t) for t in ep.topics))
    return " — ".join(p for p in parts if p)


class EpisodeProvider(RecallProvider):
    kind = "episode"
    date_field = "started_at"
    retention_setting = "ALMANAC_EPISODE_RETENTION_DAYS"

    def queryset(self, owner):
        return Episode.objects.owned_by(owner).licensed_for(RECALL_USE)

    def documents(self, rows: Iterable[Episode]) -> list[tuple[int, str]]:
        return [(e.pk, episode_text(e)) for e in rows]

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        out = {}
        for ep in self.queryset(owner).filter(pk__in=ref_ids):
            disclaimers = ["Unconfirmed: not yet reviewed."] if ep.status in permitted_uses.PENDING_STATUSES else []
            out[ep.pk] = RecallItem(
                id=str(ep.public_id),
                kind="episode",
                text=episode_text(ep),
                permitted_uses=permitted_uses.permitted_uses(ep.status),
                disclaimers=disclaimers,
                source_ref=f"episode:{ep.public_id}",
                occurred_at=_when(ep.started_at or ep.created_at),
                strength=ep.salience,
                ref_id=ep.pk,
            )
        return out

    def prune(self, owner, before: datetime) -> int:
        deleted, _ = Episode.objects.owned_by(owner).filter(started_at__lt=before).delete()
        return deleted
