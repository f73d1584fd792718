"""The ledger's vocabularies, defined once: a fact's epistemic status, its importance and whom it is about.

Kept apart from ``models.py`` so that the pure policy table (``ledger/permitted_uses.py``) can key on them without
importing the models. Every other module compares with these members, never with the string literals
(``tests/test_no_status_literals.py`` enforces it).
"""

from __future__ import annotations

from django.db import models


class Importance(models.TextChoices):
    TRIVIAL = "trivial"
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"
    CRITICAL = "critical"


class SubjectKind(models.TextChoices):
    USER = "user"
    THIRD_PARTY = "third_party"
    UNKNOWN = "unknown"


class Status(models.TextChoices):
    ACCEPTED = "accepted"
    PENDING = "pending"
    PENDING_REVIEW = "pending_review"
    CONTRADICTED = "contradicted"
    REJECTED = "rejected"
    DROPPED = "dropped"
    RETRACTED = "retracted"
    SUPERSEDED = "superseded"
    TOMBSTONED = "tombstoned"
    SOURCE_TOMBSTONED = "source_tombstoned"


class RefusalKind(models.TextChoices):
    """Why a claim is refused from every source (``Refusal.Kind``)."""

    REJECTED = "rejected"
    RETRACTED = "retracted"
    FORGOTTEN = "forgotten"
    FORGOTTEN_ENTITY = "forgotten_entity"
