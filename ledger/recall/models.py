"""Recall's own tables: vectors of every searchable row (any layer, any source), usage feedback and the log of
consolidation passes. The searchable rows themselves live in their apps (ledger facts, wearables utterances).
"""

from __future__ import annotations

from django.db import models
from pgvector.django import HnswIndex, VectorField

from accounts.owned import OwnedModel, OwnedQuerySet
from ledger.recall.embeddings import DIMENSIONS

# Kinds of rows recall indexes; each has its own partial HNSW index so a search in one kind never walks another's
# graph (utterances outnumber facts by orders of magnitude).
EMBEDDED_KINDS = ("fact", "pinned", "episode", "utterance", "event", "chat_turn")


class EmbeddingQuerySet(OwnedQuerySet):
    def in_space(self, space: str) -> EmbeddingQuerySet:
        return self.filter(space=space)

    def of_kind(self, kind: str) -> EmbeddingQuerySet:
        return self.filter(kind=kind)


class Embedding(OwnedModel):
    """One vector of one row (``kind`` + ``ref_id``) in one embedding space (backend + model).

    ``content_hash`` is the hash of the text that was embedded, so a changed row is re-embedded. Rows of other
    spaces are left in place until the re-embed task replaces them; search reads the current space only.
    """

    kind = models.CharField(max_length=20)
    ref_id = models.BigIntegerField()
    space = models.CharField(max_length=120)
    content_hash = models.CharField(max_length=64)
    vector = VectorField(dimensions=DIMENSIONS)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EmbeddingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "kind", "ref_id", "space"], name="recall_embedding_unique_ref"),
        ]
        indexes = [
            # Lazy re-embedding and hydration look rows up by (owner, kind, space).
            models.Index(fields=["owner", "kind", "space", "ref_id"], name="recall_embedding_lookup"),
        ] + [
            HnswIndex(
                name=f"recall_emb_{kind}_hnsw",
                fields=["vector"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=models.Q(kind=kind),
            )
            for kind in EMBEDDED_KINDS
        ]

    def __str__(self) -> str:
        return f"{self.kind}#{self.ref_id} in {self.space}"


class Usage(OwnedModel):
    """How often recall surfaced a row to an agent, and when last (feeds consolidation's decay and eviction)."""

    kind = models.CharField(max_length=20)
    ref_id = models.BigIntegerField()
    use_count = models.PositiveIntegerField(default=0)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "kind", "ref_id"], name="recall_usage_unique_ref")]

    def __str__(self) -> str:
        return f"{self.kind}#{self.ref_id} used {self.use_count}×"


class ConsolidationRun(OwnedModel):
    """One consolidation pass for one user, with its counts.

    States: running -> ok | failed (``error`` holds a short message, never memory text).
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        OK = "ok"
        FAILED = "failed"

    trigger = models.CharField(max_length=20, default="schedule")  # schedule | manual
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    counts = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=300, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["owner", "-started_at"], name="recall_consolidation_latest")]

    def __str__(self) -> str:
        return f"consolidation {self.started_at:%Y-%m-%d %H:%M} {self.status}"


class Anchor(OwnedModel):
    """Fact-augmented keys: a fact pinned to the searchable row it was distilled from (a transcript turn…).

    Full text over the facts then also finds the turn: a turn is searchable by what it means (the memory
    distilled from it, its subject entity) and not only by its words. Only a link is stored, never the fact's
    text, so the policy filter of the facts layer and forgetting (CASCADE) apply at query time as they are.
    """

    kind = models.CharField(max_length=20)  # the row's recall kind, e.g. "utterance"
    ref_id = models.BigIntegerField()
    fact = models.ForeignKey("ledger.Fact", on_delete=models.CASCADE, related_name="+")
    evidence = models.ForeignKey("ledger.Evidence", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["evidence", "kind", "ref_id"], name="recall_anchor_unique_ref"),
        ]
        indexes = [models.Index(fields=["owner", "kind", "fact"], name="recall_anchor_by_fact")]

    def __str__(self) -> str:
        return f"fact#{self.fact_id} -> {self.kind}#{self.ref_id}"
