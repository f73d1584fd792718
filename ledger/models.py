"""Ledger models.

Three groups:
- the commit log (``ChainHead``, ``Commit``, ``CommitRef``): per-owner, append-only, hash-chained;
- the projection of that log (``Entity``, ``Fact``, ``FactVersion``, ``Evidence``, ``Refusal``): rebuilt
  identically by ``manage.py ledger rebuild``; only ``ledger.projection`` writes these rows;
- memory layers written directly by services (``IdentityOverride``, ``IdentityNarrative``, ``PinnedFact``,
  ``Episode``) and the ``RefusalHit`` log.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models.functions import Coalesce, Lower

from accounts.fields import EncryptedJSONField, EncryptedTextField
from accounts.http import local_url
from accounts.owned import OwnedModel, OwnedQuerySet
from ledger import permitted_uses
from ledger.choices import Importance, RefusalKind, Status, SubjectKind  # noqa: F401  (re-exported)


# --- Commit log ---------------------------------------------------------------------------------------
class ChainHead(OwnedModel):
    """One row per owner: the newest commit id. Appends lock this row (select_for_update) to serialise."""

    head_commit_id = models.CharField(max_length=64, blank=True, default="")
    length = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner"], name="ledger_chainhead_one_per_owner")]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.length} commits, head {self.head_commit_id[:12] or '(empty)'}"


class Commit(OwnedModel):
    """One append to an owner's chain. ``commit_id = sha256(canonical {parent_commit_id, mutations})``.

    ``mutations`` holds the sealed mutations (content only as ``payload`` + ``payload_hash``); a forget
    nulls the ``payload`` of earlier mutations it covers, which leaves every hash intact.
    """

    class Author(models.TextChoices):
        USER = "user"
        EXTRACTOR = "extractor"
        REVIEWER = "reviewer"
        SYSTEM = "system"

    commit_id = models.CharField(max_length=64)
    parent_commit_id = models.CharField(max_length=64, blank=True, default="")
    seq = models.PositiveBigIntegerField()
    author = models.CharField(max_length=16, choices=Author.choices, default=Author.SYSTEM)
    author_label = models.CharField(max_length=200, blank=True, default="")
    committed_at = models.DateTimeField()
    # Evidence quotes inside payloads are encrypted at rest when ALMANAC_ENCRYPTION_KEY is set; commit ids
    # hash the plaintext (``payload_hash`` of the decrypted payload), so encryption never touches the chain.
    mutations = EncryptedJSONField(default=list, keys=["quote"])

    class Meta:
        ordering = ["owner", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "seq"], name="ledger_commit_unique_seq"),
            models.UniqueConstraint(fields=["owner", "commit_id"], name="ledger_commit_unique_id"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.commit_id[:12]}"

    @property
    def mutation_types(self) -> list[str]:
        return [m.get("type", "?") for m in self.mutations]


class CommitRef(models.Model):
    """Which commit mutated which object (fact, evidence, entity): a fact's history, and what a forget redacts."""

    commit = models.ForeignKey(Commit, on_delete=models.CASCADE, related_name="refs")
    index = models.PositiveIntegerField(help_text="Position of the mutation in the commit")
    object_id = models.UUIDField()

    class Meta:
        # Used by fact history and by forget (find the mutations whose payload must be dropped).
        indexes = [models.Index(fields=["object_id"], name="ledger_commitref_object")]

    def __str__(self) -> str:
        return f"{self.commit_id}[{self.index}] -> {self.object_id}"


# --- Projection ---------------------------------------------------------------------------------------
class Entity(OwnedModel):
    """A person, place, organization or project. ``merged_into`` is set when merged into another entity."""

    class Kind(models.TextChoices):
        PERSON = "person"
        PLACE = "place"
        ORGANIZATION = "organization"
        PROJECT = "project"
        OTHER = "other"

    public_id = models.UUIDField(unique=True, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.PERSON)
    name = models.CharField(max_length=200)
    aliases = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    merged_into = models.UUIDField(null=True, blank=True)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "entities"
        constraints = [
            # One surviving entity per name and owner: entity resolution is a get-or-create under this (two
            # memory passes naming the same new person at once cannot create two entities for them).
            models.UniqueConstraint(
                Lower("name"),
                "owner",
                condition=models.Q(merged_into__isnull=True),
                name="ledger_entity_unique_live_name",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"

    @property
    def is_merged(self) -> bool:
        return self.merged_into is not None


class FactQuerySet(OwnedQuerySet):
    def with_status(self, *statuses: str) -> FactQuerySet:
        return self.filter(status__in=statuses)

    def licensed_for(self, use: str) -> FactQuerySet:
        """Rows whose status permits ``use`` (see ``ledger.permitted_uses.POLICY``)."""
        return self.filter(status__in=permitted_uses.statuses_permitting(use))

    def active(self) -> FactQuerySet:
        """Held and usable for answers in some form: accepted, pending, pending_review."""
        return self.filter(status__in=permitted_uses.ACTIVE_STATUSES)

    def valid_at(self, when) -> FactQuerySet:
        return self.filter(
            models.Q(valid_from__isnull=True) | models.Q(valid_from__lte=when),
            models.Q(valid_to__isnull=True) | models.Q(valid_to__gt=when),
        )

    def about_entity(self, entity_public_id) -> FactQuerySet:
        key = str(entity_public_id)
        return self.filter(models.Q(subject_entity__public_id=key) | models.Q(object_entity_ids__contains=[key]))


class Fact(OwnedModel):
    """A proposition with evidence, two confidences and an epistemic status. Projection of the commit log.

    Status transitions (all through commits): a new fact enters as accepted, pending, pending_review, dropped
    or contradicted; review moves pending/pending_review -> accepted | rejected; accepted -> retracted
    (refusal recorded) | contradicted (a stronger contradicting fact) | superseded (replaced for its whole
    interval) | tombstoned / source_tombstoned (all evidence withdrawn); rejected/retracted -> accepted only by
    an explicit decision. Forget deletes the row.
    """

    public_id = models.UUIDField(unique=True, editable=False)
    subject_kind = models.CharField(max_length=16, choices=SubjectKind.choices, default=SubjectKind.USER)
    subject_entity = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="facts_as_subject"
    )
    object_entity_ids = ArrayField(models.CharField(max_length=36), default=list, blank=True)
    predicate = models.CharField(max_length=100, default="states")
    arguments = models.JSONField(default=dict, blank=True)
    content = models.TextField()
    importance = models.CharField(max_length=10, choices=Importance.choices, default=Importance.NORMAL)
    tags = ArrayField(models.CharField(max_length=100), default=list, blank=True)
    source_label = models.CharField(max_length=200, blank=True, default="")
    capture_confidence = models.FloatField(default=0.5)
    veracity = models.FloatField(default=0.5)
    base_veracity = models.FloatField(default=0.5, help_text="Veracity before corroborating evidence")
    uncertainty_reasons = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING_REVIEW)
    status_reason = models.CharField(max_length=200, blank=True, default="")
    previously_rejected = models.BooleanField(default=False)
    refusal_commit_id = models.CharField(max_length=64, blank=True, default="")
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    recorded_at = models.DateTimeField()
    retired_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()
    superseded_by = models.UUIDField(null=True, blank=True)
    supersedes = models.UUIDField(null=True, blank=True)
    proposition_key = models.CharField(max_length=64)
    text_key = models.CharField(max_length=64)
    token_hashes = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    source_hash = models.CharField(max_length=16, blank=True, default="", help_text="Hash of the first source label")
    created_commit_id = models.CharField(max_length=64)
    last_commit_id = models.CharField(max_length=64)
    search = models.GeneratedField(
        expression=SearchVector(
            Coalesce("content", models.Value(""), output_field=models.TextField()), config="english"
        ),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    objects = FactQuerySet.as_manager()

    class Meta:
        ordering = ["-recorded_at", "-id"]
        indexes = [
            # Fact lists and the policy filter: owner + status.
            models.Index(fields=["owner", "status", "-recorded_at"], name="ledger_fact_owner_status"),
            # Dedup and refusal lookups during admission.
            models.Index(fields=["owner", "proposition_key"], name="ledger_fact_prop_key"),
            models.Index(fields=["owner", "text_key"], name="ledger_fact_text_key"),
            GinIndex(fields=["search"], name="ledger_fact_search"),
            GinIndex(fields=["tags"], name="ledger_fact_tags"),
            # Paraphrase candidates (find_similar: &&) and forget_entity (@>) without scanning every fact.
            GinIndex(fields=["token_hashes"], name="ledger_fact_token_hashes"),
            # Conflict check for single-valued predicates (lives_in ...): held facts with that predicate.
            models.Index(fields=["owner", "predicate"], name="ledger_fact_predicate"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(veracity__gte=0) & models.Q(veracity__lte=1),
                name="ledger_fact_veracity_range",
            ),
            models.CheckConstraint(
                condition=models.Q(capture_confidence__gte=0) & models.Q(capture_confidence__lte=1),
                name="ledger_fact_capture_range",
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.status}] {self.content[:80]}"

    @property
    def permitted_uses(self) -> list[str]:
        return permitted_uses.permitted_uses(self.status)

    @property
    def veracity_band(self) -> str:
        return permitted_uses.band(self.veracity)

    @property
    def capture_band(self) -> str:
        return permitted_uses.band(self.capture_confidence)

    def is_reviewable(self) -> bool:
        return self.status in (Status.PENDING, Status.PENDING_REVIEW)


class FactVersion(OwnedModel):
    """One record-time interval of a fact's state, for ``as_of(known_at, valid_at)`` queries."""

    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=20, choices=Status.choices)
    content = models.TextField()
    veracity = models.FloatField()
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    recorded_from = models.DateTimeField()
    recorded_to = models.DateTimeField(null=True, blank=True)
    commit_id = models.CharField(max_length=64)

    class Meta:
        ordering = ["fact", "version"]
        constraints = [models.UniqueConstraint(fields=["fact", "version"], name="ledger_factversion_unique")]
        # as_of(known_at): versions recorded before T1 and not yet replaced at T1.
        indexes = [models.Index(fields=["owner", "recorded_from"], name="ledger_factversion_known")]

    def __str__(self) -> str:
        return f"{self.fact_id} v{self.version} {self.status}"


class EvidenceQuerySet(OwnedQuerySet):
    def live(self) -> EvidenceQuerySet:
        return self.filter(tombstoned_at__isnull=True)


class Evidence(OwnedModel):
    """One support for a fact. Tombstoning withdraws this support only; the fact keeps its other evidence."""

    public_id = models.UUIDField(unique=True, editable=False)
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="evidence")
    source_type = models.CharField(max_length=50)
    source_ref = models.JSONField(default=dict, blank=True)
    source_label = models.CharField(max_length=200, blank=True, default="")
    source_hash = models.CharField(max_length=16, blank=True, default="")
    quote = EncryptedTextField(blank=True, default="")  # encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    extractor_id = models.CharField(max_length=100, blank=True, default="")
    extractor_version = models.CharField(max_length=50, blank=True, default="")
    capture_confidence = models.FloatField(default=0.5)
    observed_at = models.DateTimeField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    recorded_at = models.DateTimeField()
    tombstoned_at = models.DateTimeField(null=True, blank=True)
    tombstone_reason = models.CharField(max_length=200, blank=True, default="")

    objects = EvidenceQuerySet.as_manager()

    class Meta:
        ordering = ["recorded_at", "id"]
        verbose_name_plural = "evidence"
        indexes = [
            # forget_source: evidence whose source_ref contains the given ref.
            GinIndex(fields=["source_ref"], name="ledger_evidence_source_ref", opclasses=["jsonb_path_ops"]),
            models.Index(fields=["owner", "source_type"], name="ledger_evidence_source_type"),
        ]

    def __str__(self) -> str:
        return f"{self.source_type} {self.quote[:60]}"

    @property
    def is_live(self) -> bool:
        return self.tombstoned_at is None

    @property
    def source_url(self) -> str:
        # Same-site paths only: "//elsewhere/..." would be a link to another site.
        return local_url((self.source_ref or {}).get("url", ""))


class Refusal(OwnedModel):
    """A lasting refusal: only hashes of the refused claim (never its text), and the deciding commit.

    ``kind`` says why: rejected / retracted (a different source can bring the claim back, marked previously
    rejected), forgotten (same), forgotten_entity (blocks every claim naming that person, from any source).
    """

    Kind = RefusalKind

    public_id = models.UUIDField(unique=True, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    subject_key = models.CharField(max_length=64, blank=True, default="")
    proposition_key = models.CharField(max_length=64, blank=True, default="")
    text_key = models.CharField(max_length=64, blank=True, default="")
    token_hashes = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    source_hashes = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    name_hashes = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    fact_public_id = models.UUIDField(null=True, blank=True)
    decision_commit_id = models.CharField(max_length=64)
    recorded_at = models.DateTimeField()
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-recorded_at"]
        indexes = [
            models.Index(fields=["owner", "proposition_key"], name="ledger_refusal_prop_key"),
            models.Index(fields=["owner", "text_key"], name="ledger_refusal_text_key"),
            models.Index(fields=["owner", "subject_key"], name="ledger_refusal_subject"),
            # Admission fetches every candidate in one query: forgotten people (kind) and paraphrases (&&).
            models.Index(fields=["owner", "kind"], name="ledger_refusal_kind"),
            GinIndex(fields=["token_hashes"], name="ledger_refusal_token_hashes"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} refusal {self.proposition_key[:12]} ({self.decision_commit_id[:12]})"


class RefusalHit(OwnedModel):
    """Log of an admission refused because of a refusal (hashes only)."""

    refusal = models.ForeignKey(Refusal, null=True, on_delete=models.SET_NULL, related_name="hits")
    decision_commit_id = models.CharField(max_length=64)
    matched_on = models.CharField(max_length=20)
    similarity = models.FloatField(default=1.0)
    source_hash = models.CharField(max_length=16, blank=True, default="")
    proposition_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        # "Re-extractions refused this week" on the Review page.
        indexes = [models.Index(fields=["owner", "-created_at"], name="ledger_refusalhit_recent")]

    def __str__(self) -> str:
        return f"refused ({self.matched_on}) -> {self.decision_commit_id[:12]}"


# --- Memory layers ------------------------------------------------------------------------------------
class IdentityOverride(OwnedModel):
    """A user-authored statement about themselves ("name" -> "Dana"); always surfaced, never decays."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key = models.CharField(max_length=100)
    value = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="ledger_identityoverride_unique_key")]

    def __str__(self) -> str:
        return f"{self.key}: {self.value[:60]}"


class IdentityNarrative(OwnedModel):
    """A derived paragraph about the user (from accepted user-subject facts); regenerated, not authored."""

    text = models.TextField(blank=True, default="")
    fact_ids = models.JSONField(default=list, blank=True)
    derived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner"], name="ledger_identitynarrative_one_per_owner")]

    def __str__(self) -> str:
        return self.text[:80] or "(empty narrative)"


class PinnedFact(OwnedModel):
    """A fact promoted to the pinned layer; salience decays and usage bumps it (recall consolidation)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="pins")
    salience = models.FloatField(default=0.5)
    source_count = models.PositiveIntegerField(default=1)
    use_count = models.PositiveIntegerField(default=0)
    last_used_at = models.DateTimeField(null=True, blank=True)
    pinned_by = models.CharField(max_length=50, default="user")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The fact's own tsvector, kept equal to it by database triggers (migration 0006) on every insert/update of a
    # pin and every change of the fact: recall searches the pinned layer through this small GIN index instead of
    # walking every pin or the index of every fact. Never written by the application.
    search = SearchVectorField(null=True, editable=False)

    class Meta:
        ordering = ["-salience"]
        indexes = [GinIndex(fields=["search"], name="ledger_pinnedfact_search")]
        constraints = [
            models.UniqueConstraint(fields=["owner", "fact"], name="ledger_pinnedfact_unique_fact"),
            models.CheckConstraint(
                condition=models.Q(salience__gte=0) & models.Q(salience__lte=1), name="ledger_pinnedfact_salience"
            ),
        ]

    def __str__(self) -> str:
        return f"pinned {self.fact_id} ({self.salience:.2f})"


class EpisodeQuerySet(OwnedQuerySet):
    def licensed_for(self, use: str) -> EpisodeQuerySet:
        return self.filter(status__in=permitted_uses.statuses_permitting(use))


class Episode(OwnedModel):
    """A per-session or per-day digest. ``key`` makes writes idempotent (e.g. "wearable:3:2026-11-28").

    Status follows the same policy table as facts (accepted, pending_review, rejected ...).
    """

    class Kind(models.TextChoices):
        SESSION = "session"
        DAY = "day"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SESSION)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACCEPTED)
    title = models.CharField(max_length=300, blank=True, default="")
    summary = models.TextField(blank=True, default="")
    topics = models.JSONField(default=list, blank=True)
    entities = models.JSONField(default=list, blank=True)
    decisions = models.JSONField(default=list, blank=True)
    action_items = models.JSONField(default=list, blank=True)
    salience = models.FloatField(default=0.5)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    source_label = models.CharField(max_length=200, blank=True, default="")
    source_type = models.CharField(max_length=50, blank=True, default="")
    source_ref = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    search = models.GeneratedField(
        expression=SearchVector(
            Coalesce("title", models.Value(""), output_field=models.TextField()),
            Coalesce("summary", models.Value(""), output_field=models.TextField()),
            config="english",
        ),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    objects = EpisodeQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="ledger_episode_unique_key")]
        indexes = [
            GinIndex(fields=["search"], name="ledger_episode_search"),
            GinIndex(fields=["source_ref"], name="ledger_episode_source_ref", opclasses=["jsonb_path_ops"]),
            models.Index(fields=["owner", "-started_at"], name="ledger_episode_recent"),
        ]

    def __str__(self) -> str:
        return self.title or self.summary[:80]

    @property
    def permitted_uses(self) -> list[str]:
        return permitted_uses.permitted_uses(self.status)
