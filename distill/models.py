"""Distill's own tables: the gate policy per (owner, source key) and the claim index that keys dedup, "same
day" and re-runs on explicit fields (never on ledger tags)."""

from __future__ import annotations

from django.db import models

from accounts.fields import EncryptedJSONField
from accounts.owned import OwnedModel, OwnedQuerySet
from ledger.choices import Importance, Status


class Mode(models.TextChoices):
    SMART = "smart"  # trust score decides: accept / review / drop
    REVIEW = "review"  # everything that survives the gates waits in review
    AUTO = "auto"  # gates only, survivors accepted
    OFF = "off"  # nothing is written


class NativeMode(models.TextChoices):
    SMART = "smart"
    REVIEW = "review"
    OFF = "off"


class MinImportance(models.TextChoices):
    """The importances a policy may set as its floor, and an agent may give what it asks to remember: the middle
    of the ledger's ``Importance``."""

    LOW = Importance.LOW.value
    NORMAL = Importance.NORMAL.value
    HIGH = Importance.HIGH.value


class GatePolicy(OwnedModel):
    """How much the gate trusts one source of one owner, and what it does with the score. Created with the
    defaults on first use (``distill.policies.get_policy``); the Sources page edits it."""

    source_key = models.CharField(max_length=100, help_text='e.g. "wearable:limitless", "chat:claude-code"')
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.SMART)
    source_trust = models.FloatField(default=0.8)
    auto_approve_trust = models.FloatField(default=0.7)
    review_trust = models.FloatField(default=0.45)
    min_importance = models.CharField(max_length=10, choices=MinImportance.choices, default=MinImportance.LOW)
    max_memories_per_day = models.PositiveIntegerField(default=0, help_text="0 = no limit")
    min_confidence = models.FloatField(default=0.6)
    native_mode = models.CharField(
        max_length=10, choices=NativeMode.choices, default=NativeMode.SMART, help_text="provider's own memories"
    )
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["source_key"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "source_key"], name="distill_gatepolicy_one_per_source"),
            models.CheckConstraint(
                condition=models.Q(source_trust__gte=0, source_trust__lte=1)
                & models.Q(auto_approve_trust__gte=0, auto_approve_trust__lte=1)
                & models.Q(review_trust__gte=0, review_trust__lte=1)
                & models.Q(min_confidence__gte=0, min_confidence__lte=1),
                name="distill_gatepolicy_trust_in_unit_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_key} ({self.mode})"


class ClaimQuerySet(OwnedQuerySet):
    def active(self) -> ClaimQuerySet:
        return self.filter(fact__status__in=(Status.ACCEPTED, Status.PENDING_REVIEW, Status.PENDING))

    def for_day(self, day_key: str) -> ClaimQuerySet:
        return self.filter(day_key=day_key)

    def from_source(self, source_key: str) -> ClaimQuerySet:
        return self.filter(source_key=source_key)

    def from_family(self, prefix: str) -> ClaimQuerySet:
        """``"wearable"`` matches every "wearable:<kind>" source key (and a bare "wearable")."""
        return self.filter(models.Q(source_key=prefix) | models.Q(source_key__startswith=f"{prefix}:"))


class Claim(OwnedModel):
    """One memory the gate wrote, keyed explicitly: which source said it, in which re-runnable scope, on which
    owner-local day, with which normalised content. A re-run of a scope matches its claims here instead of
    writing them again; the unique constraint holds when two workers race."""

    class Origin(models.TextChoices):
        EXTRACTED = "extracted"
        NATIVE = "native"
        AGENT = "agent"

    source_key = models.CharField(max_length=100)
    scope_key = models.CharField(max_length=200)
    day_key = models.CharField(max_length=10, blank=True, help_text="owner-local ISO date; empty for undated claims")
    claim_hash = models.CharField(max_length=64, help_text="sha256 of the normalised memory text")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.EXTRACTED)
    fact = models.ForeignKey("ledger.Fact", on_delete=models.CASCADE, related_name="distill_claims")
    # The gate put this claim into review (it used one place of the day's review budget, ``distill.queue``).
    queued = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "source_key", "day_key", "claim_hash"], name="distill_claim_once_per_source_day"
            )
        ]
        indexes = [
            models.Index(fields=["owner", "scope_key"], name="distill_claim_scope"),
            models.Index(fields=["owner", "day_key"], name="distill_claim_day"),
        ]

    def __str__(self) -> str:
        return f"{self.source_key} {self.day_key} {self.claim_hash[:12]}"


class ReviewExample(OwnedModel):
    """One person's decision on one memory the gate proposed: a labelled example for that owner's adjustment
    (``distill.learning``). Written by the review services for every decision; an undo marks it undone.

    ``label``: 1 (a true statement about the right person: accept, edit), 0 (reject, not about me), empty (a
    snooze or a rescue: no verdict on truth, kept for the record, never fitted).
    States: recorded (``undone_at`` empty) -> undone (the review action was undone; excluded from fits).
    """

    class Decision(models.TextChoices):
        ACCEPT = "accept"
        REJECT = "reject"
        EDIT = "edit"
        NOT_ABOUT_ME = "not_about_me", "Not about me"
        SNOOZE = "snooze"
        RESCUE = "rescue"

    action_public_id = models.UUIDField(unique=True, help_text="The review action this example records")
    fact_public_id = models.UUIDField()
    decision = models.CharField(max_length=16, choices=Decision.choices)
    label = models.PositiveSmallIntegerField(null=True, blank=True)
    family = models.CharField(max_length=100, help_text='predicate family, e.g. "work:work_at"')
    subject_type = models.CharField(max_length=30, help_text="owner, named_person, unknown, ...")
    source_key = models.CharField(max_length=100, blank=True)
    pattern = models.CharField(max_length=200, blank=True, help_text='shown on the Review page: "I work at …"')
    p_model = models.FloatField(null=True, blank=True, help_text="the shipped model's probability for the claim")
    accept_threshold = models.FloatField(null=True, blank=True, help_text="the auto-accept line when it was scored")
    capped = models.BooleanField(default=False, help_text="a hard rule capped the claim at review: never auto-accepted")
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(label__isnull=True) | models.Q(label__in=[0, 1]), name="distill_reviewexample_label"
            ),
        ]
        indexes = [
            # learning.fit: the owner's live examples in order.
            models.Index(fields=["owner", "created_at"], name="distill_example_owner"),
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.family} ({self.label})"


class OwnerAdjustment(OwnedModel):
    """The per-owner adjustment on top of the shipped model, refitted nightly and on demand.

    States: learning (fewer examples than the floor: no effect) -> active (fitted, passed the precision guard:
    applied after the model, ``distill.steps.decision``) | refused (the guard found it would lower cross-validated
    precision: no effect). Every refit rewrites the row; ``version`` counts refits.
    """

    class Status(models.TextChoices):
        LEARNING = "learning"
        ACTIVE = "active"
        REFUSED = "refused"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LEARNING)
    shift = models.FloatField(default=0.0, help_text="logit offset for every claim (moves both thresholds)")
    offsets = models.JSONField(default=dict, blank=True, help_text='{"<family>|<subject type>": logit offset}')
    families = models.JSONField(default=dict, blank=True, help_text="per key: examples, accepts, pattern")
    n_examples = models.PositiveIntegerField(default=0)
    shipped_precision = models.FloatField(null=True, blank=True)
    adjusted_precision = models.FloatField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    version = models.PositiveIntegerField(default=0)
    fitted_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner"], name="distill_owneradjustment_one_per_owner")]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.status} v{self.version} ({self.n_examples} examples)"

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class StoredExtraction(OwnedModel):
    """What the deterministic extractor found in one scope's input, kept so that a pass over the same input (a
    sibling device's new day, a policy change) re-scores those candidates instead of parsing the talk again.
    ``input_hash`` covers the whole input and the extractor's and parser's versions: any change parses anew."""

    scope_key = models.CharField(max_length=200)
    input_hash = models.CharField(max_length=64, help_text="sha256 of the pass input and the extractor version")
    extractor = models.CharField(max_length=64)
    extractor_version = models.CharField(max_length=32)
    candidates = EncryptedJSONField(default=list)  # the talk's words: encrypted at rest when a key is set
    warnings = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "scope_key"], name="distill_storedextraction_one_per_scope")
        ]

    def __str__(self) -> str:
        return f"{self.scope_key} {self.extractor}@{self.extractor_version}"
