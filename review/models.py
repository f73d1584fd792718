"""Review's own rows: the log of a reviewer's actions (for undo) and the per-owner daily budget.

The truth about facts stays in the ledger: every action here is also a ledger commit by the reviewer. This log
only remembers what a fact looked like before the action, so ``undo`` can write the commit that reverts it.
"""

from __future__ import annotations

import uuid

from django.db import models

from accounts.owned import OwnedModel
from ledger.models import Fact

DEFAULT_DAILY_BUDGET = 20


class ReviewAction(OwnedModel):
    """One reviewer action on one fact. A bulk action is several rows sharing ``batch``.

    States: done (``undone_at`` empty) -> undone (``undone_at`` set, by a new reverting commit). Never deleted.
    """

    class Kind(models.TextChoices):
        ACCEPT = "accept"
        REJECT = "reject"
        EDIT = "edit"
        NOT_ABOUT_ME = "not_about_me"
        MERGE = "merge"
        SNOOZE = "snooze"
        RESCUE = "rescue"

    # What counts as a person's decision for the daily budget (a snooze or a subject fix leaves it queued).
    DECISIONS = (Kind.ACCEPT, Kind.REJECT, Kind.EDIT, Kind.MERGE)

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    batch = models.UUIDField(default=uuid.uuid4)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    fact_public_id = models.UUIDField()
    before = models.JSONField(default=dict, blank=True, help_text="The fact's status, reason, content, subject")
    detail = models.JSONField(default=dict, blank=True, help_text="Merge target, copied evidence, snooze date")
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # undo: the owner's newest action not yet undone; budget: decisions made today.
            models.Index(fields=["owner", "-created_at"], name="review_action_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.fact_public_id}{' (undone)' if self.undone_at else ''}"


class ReviewPreference(OwnedModel):
    """Per-owner review settings: how many items a day the queue may ask about."""

    daily_budget = models.PositiveSmallIntegerField(default=DEFAULT_DAILY_BUDGET)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner"], name="review_reviewpreference_one_per_owner")]

    def __str__(self) -> str:
        return f"{self.owner_id}: {self.daily_budget}/day"


class QueueItem(Fact):
    """Admin triage view of the ledger's facts that wait for a person (a proxy: no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = "review queue item"

    def __str__(self) -> str:
        return f"[{self.status}] {self.content[:80]}"
