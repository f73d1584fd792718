"""Screen: three separate representations of what happened on the user's screen.

1. ``Signal``: compact, generic observations derived from ScreenPipe's OCR stream (context changes, material text
   changes, idle/resume, novel anchors, a stable state returning, source gaps/restarts), with before/after frame
   pointers. Never frame streams.
2. ``ScreenEvent``: structured events proposed from signals (open-ended namespaced ``event_type``), revised in
   place with an atomic compare-and-set on ``revision``; ``Assertion`` rows carry content roles and evidence refs.
3. Curated memory: a later, separate decision (``Curation``) that may append to a ``DayNote``, update an
   ``EntityNote`` or hand the event to ``distill`` as evidence. Declining a note never deletes the event.

Times are stored in UTC; ``ScreenEvent.local_date`` is the owner's local date of ``started_at`` (an event
crossing midnight belongs to the day it started).
"""

from __future__ import annotations

import re
import uuid

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.exceptions import ValidationError
from django.db import models

from accounts.fields import EncryptedBinaryField, EncryptedJSONField, EncryptedTextField
from accounts.owned import OwnedModel, OwnedQuerySet

EVENT_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")


def validate_event_type(value: str) -> None:
    """Event types are open-ended but namespaced: ``domain.name`` (lower snake case, at least one dot)."""
    if not EVENT_TYPE_RE.match(value or "") or len(value) > 100:
        raise ValidationError(f"event type must look like 'domain.name' (got {value!r})")


class ScreenSource(OwnedModel):
    """The owner's ScreenPipe connection, its cursor and the deriver's compact state (one row per owner).

    ``cursor_at``/``cursor_key`` mark the last item turned into signals; ``state`` is the signal deriver's
    memory (previous context and text, recent line hashes, stable states), saved in the same transaction as the
    signals and the cursor, so a restart resumes exactly where the last window ended.
    """

    enabled = models.BooleanField(default=False)
    base_url = models.CharField(max_length=300, blank=True, help_text="Empty = ALMANAC_SCREENPIPE_URL or :3030")
    backfill_days = models.PositiveSmallIntegerField(default=2)
    frame_budget = models.PositiveSmallIntegerField(default=30, help_text="Frame images fetched per 8 h of capture")
    cursor_at = models.DateTimeField(null=True, blank=True)
    cursor_key = models.CharField(max_length=100, blank=True)
    state = models.JSONField(default=dict, blank=True)
    gaps = models.PositiveIntegerField(default=0, help_text="Source gaps seen (missing frames, long silences)")
    missing_frames = models.PositiveIntegerField(default=0, help_text="Missing predecessors counted at reconcile")
    restarts = models.PositiveIntegerField(default=0)
    last_collect_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    preferences = models.JSONField(default=list, blank=True, help_text="User policy: [{action, subject, text}]")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner"], name="screen_source_one_per_owner")]

    def __str__(self) -> str:
        return f"screen source of {self.owner}"


class CollectRun(OwnedModel):
    """One collect. States: running -> ok | failed."""

    class Status(models.TextChoices):
        RUNNING = "running"
        OK = "ok"
        FAILED = "failed"

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    trigger = models.CharField(max_length=20, default="schedule")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    window_start = models.DateTimeField(null=True, blank=True)
    window_end = models.DateTimeField(null=True, blank=True)
    items = models.PositiveIntegerField(default=0)
    signals = models.PositiveIntegerField(default=0)
    events_created = models.PositiveIntegerField(default=0)
    events_revised = models.PositiveIntegerField(default=0)
    frames_fetched = models.PositiveIntegerField(default=0)
    gaps = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["owner", "-started_at"], name="screen_collectrun_latest")]

    def __str__(self) -> str:
        return f"collect {self.started_at:%Y-%m-%d %H:%M} {self.status}"


class SignalQuerySet(OwnedQuerySet):
    def unprocessed(self) -> SignalQuerySet:
        return self.filter(processed=False)


class Signal(OwnedModel):
    """One compact observation. ``key`` (unique per owner) makes re-deriving the same moment a no-op."""

    class Kind(models.TextChoices):
        CONTEXT_APPEARED = "context_appeared"
        CONTEXT_CHANGED = "context_changed"
        CONTEXT_DISAPPEARED = "context_disappeared"
        TEXT_CHANGED = "text_changed"
        IDLE = "idle"
        RESUME = "resume"
        NOVEL_ANCHOR = "novel_anchor"
        STATE_RETURNED = "state_returned"
        SOURCE_GAP = "source_gap"
        SOURCE_RESTART = "source_restart"
        SPAN_ENDED = "span_ended"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    key = models.CharField(max_length=120)
    occurred_at = models.DateTimeField()
    app_name = models.CharField(max_length=200, blank=True)
    window_name = models.CharField(max_length=300, blank=True)
    url = models.CharField(max_length=500, blank=True)
    before_frame = models.BigIntegerField(null=True, blank=True)
    before_at = models.DateTimeField(null=True, blank=True)
    after_frame = models.BigIntegerField(null=True, blank=True)
    after_at = models.DateTimeField(null=True, blank=True)
    fingerprint = models.CharField(max_length=32, blank=True)
    # OCR lines are encrypted at rest when ALMANAC_ENCRYPTION_KEY is set.
    data = EncryptedJSONField(
        default=dict,
        blank=True,
        keys=["added", "removed", "commands", "span"],
        help_text="added/removed lines (bounded), counts; an ended span's bounded summary",
    )
    processed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SignalQuerySet.as_manager()

    class Meta:
        ordering = ["occurred_at", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="screen_signal_unique_key")]
        indexes = [
            # The proposal pass reads each owner's unprocessed signals in time order.
            models.Index(
                fields=["owner", "occurred_at"], name="screen_signal_unprocessed", condition=models.Q(processed=False)
            ),
            models.Index(fields=["owner", "occurred_at"], name="screen_signal_time"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} @ {self.occurred_at:%Y-%m-%d %H:%M:%S}"


class ScreenFrame(OwnedModel):
    """A frame image fetched as evidence (sparse: within the source's frame budget)."""

    frame_id = models.BigIntegerField()
    captured_at = models.DateTimeField()
    content_type = models.CharField(max_length=40, default="image/jpeg")
    image = EncryptedBinaryField()  # a screenshot; encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    reason = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "frame_id"], name="screen_frame_unique_id")]

    def __str__(self) -> str:
        return f"frame {self.frame_id}"


class EventQuerySet(OwnedQuerySet):
    def visible(self) -> EventQuerySet:
        return self.exclude(status__in=(ScreenEvent.Status.REJECTED, ScreenEvent.Status.WITHDRAWN))

    def open(self) -> EventQuerySet:
        return self.filter(status__in=ScreenEvent.OPEN_STATUSES)

    def on_date(self, local_date) -> EventQuerySet:
        return self.filter(local_date=local_date)


class ScreenEvent(OwnedModel):
    """A structured event. ``event_type`` is open-ended (``game.match_completed``, ``software.fix_completed``).

    States: provisional -> confirmed | revised -> closed; any -> rejected (by the user); provisional ->
    withdrawn (by the proposer: the span no longer shows an outcome) -> provisional again if it does. A revision bumps
    ``revision`` with a compare-and-set (``UPDATE ... WHERE revision = n``) and records an ``EventRevision``;
    curation works on one stable revision.
    """

    class Status(models.TextChoices):
        PROVISIONAL = "provisional"
        CONFIRMED = "confirmed"
        REVISED = "revised"
        REJECTED = "rejected"
        CLOSED = "closed"
        WITHDRAWN = "withdrawn"

    class Sensitivity(models.TextChoices):
        LOW = "low"
        NORMAL = "normal"
        HIGH = "high"

    class Durability(models.TextChoices):
        EPHEMERAL = "ephemeral"
        DAY = "day"
        DURABLE = "durable"

    OPEN_STATUSES = (Status.PROVISIONAL, Status.REVISED)

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key = models.CharField(max_length=120, help_text="Idempotency key: the anchor that created it")
    event_type = models.CharField(max_length=100, validators=[validate_event_type])
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    local_date = models.DateField(help_text="Owner-local date of started_at (events crossing midnight: start)")
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    entities = models.JSONField(default=list, blank=True)
    attributes = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=100, blank=True)
    user_actions = models.JSONField(default=list, blank=True)
    confidence = models.FloatField(default=0.5)
    sensitivity = models.CharField(max_length=10, choices=Sensitivity.choices, default=Sensitivity.NORMAL)
    durability = models.CharField(max_length=10, choices=Durability.choices, default=Durability.DAY)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PROVISIONAL)
    revision = models.PositiveIntegerField(default=1)
    context_key = models.CharField(max_length=64, blank=True)
    app_name = models.CharField(max_length=200, blank=True)
    related_events = models.JSONField(default=list, blank=True, help_text="public ids of related events")
    related_conversations = models.JSONField(default=list, blank=True)
    important = models.BooleanField(null=True, blank=True, help_text="User feedback; null = not said")
    proposer = models.CharField(max_length=40, default="deterministic")
    curated_revision = models.PositiveIntegerField(default=0)
    curating_revision = models.PositiveIntegerField(null=True, blank=True)
    curating_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revised_at = models.DateTimeField(auto_now=True)
    search = models.GeneratedField(
        expression=SearchVector("title", "summary", "outcome", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["started_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="screen_event_unique_key"),
            models.CheckConstraint(condition=models.Q(confidence__gte=0, confidence__lte=1), name="screen_event_conf"),
        ]
        indexes = [
            # Timeline: one owner's local day; recall: full-text.
            models.Index(fields=["owner", "local_date"], name="screen_event_day"),
            GinIndex(fields=["search"], name="screen_event_search"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type}: {self.title}"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN_STATUSES

    @property
    def status_badge(self) -> str:
        return {"provisional": "warn", "revised": "info", "confirmed": "ok", "closed": "ok"}.get(self.status, "bad")


class Assertion(OwnedModel):
    """One claim inside an event, with its own confidence, content role and evidence refs."""

    class ContentRole(models.TextChoices):
        USER_AUTHORED = "user_authored", "user-authored"
        OTHER_PERSON = "other_person", "another person"
        SYSTEM_OUTPUT = "system_output", "system/app output"
        MEDIA = "media", "media"
        ASSISTANT_OUTPUT = "assistant_output", "assistant/model output"
        OCR_UNATTRIBUTED = "ocr_unattributed", "OCR, no reliable author"

    event = models.ForeignKey(ScreenEvent, on_delete=models.CASCADE, related_name="assertions")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.TextField()
    confidence = models.FloatField(default=0.5)
    content_role = models.CharField(max_length=20, choices=ContentRole.choices)
    evidence = EncryptedJSONField(
        default=list, blank=True, keys=["excerpt"], help_text="[{kind, frame_id, at, excerpt}]"
    )

    class Meta:
        ordering = ["event", "position"]

    def __str__(self) -> str:
        return f"[{self.content_role}] {self.text[:60]}"


class EventEvidence(OwnedModel):
    """Evidence attached to an event: an OCR excerpt and, within the frame budget, a frame image."""

    class Role(models.TextChoices):
        OUTCOME = "outcome"
        PROBLEM = "problem"
        CONTEXT = "context"

    event = models.ForeignKey(ScreenEvent, on_delete=models.CASCADE, related_name="evidence")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.OUTCOME)
    occurred_at = models.DateTimeField()
    frame_id = models.BigIntegerField(null=True, blank=True)
    image = models.ForeignKey(ScreenFrame, null=True, blank=True, on_delete=models.SET_NULL)
    excerpt = EncryptedTextField(blank=True)  # OCR; encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    app_name = models.CharField(max_length=200, blank=True)
    window_name = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["occurred_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "role", "occurred_at"], name="screen_evidence_unique_moment")
        ]

    def __str__(self) -> str:
        return f"{self.role} evidence @ {self.occurred_at:%H:%M:%S}"


class EventRevision(OwnedModel):
    """A snapshot of an event at one revision number (the event's history). Unique per (event, number)."""

    event = models.ForeignKey(ScreenEvent, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=ScreenEvent.Status.choices)
    reason = models.CharField(max_length=200)
    author = models.CharField(max_length=40, default="proposer")
    snapshot = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["event", "number"]
        constraints = [models.UniqueConstraint(fields=["event", "number"], name="screen_revision_unique_number")]

    def __str__(self) -> str:
        return f"r{self.number} {self.reason}"


class EvidenceRequest(OwnedModel):
    """A bounded evidence request asked of the source (kept so the budget can be shown and tested)."""

    class Kind(models.TextChoices):
        OCR_BETWEEN = "ocr_between"
        FRAMES_AROUND = "frames_around"
        STABLE_TITLE = "stable_title"
        ACCESSIBILITY = "accessibility"
        AUDIO = "audio"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    event = models.ForeignKey(ScreenEvent, null=True, blank=True, on_delete=models.SET_NULL)
    params = models.JSONField(default=dict)
    budget = models.PositiveIntegerField(help_text="Size budget (items, characters or frames)")
    returned = models.PositiveIntegerField(default=0)
    frames_fetched = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} ({self.returned}/{self.budget})"


class Curation(OwnedModel):
    """The curation decision for one event revision. Unique per (event, revision): a run is idempotent."""

    class Decision(models.TextChoices):
        IGNORE = "ignore"
        DAY_NOTE = "day_note"
        ENTITY_NOTE = "entity_note"
        MEMORY = "memory"

    event = models.ForeignKey(ScreenEvent, on_delete=models.CASCADE, related_name="curations")
    revision = models.PositiveIntegerField()
    decision = models.CharField(max_length=12, choices=Decision.choices)
    reason = models.CharField(max_length=200, blank=True)
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["event", "revision"], name="screen_curation_unique_revision")]

    def __str__(self) -> str:
        return f"{self.decision} r{self.revision}"


class DayNote(OwnedModel):
    """The owner's note for one local day: a rollup plus lines appended by curation."""

    local_date = models.DateField()
    lines = models.JSONField(default=list, blank=True, help_text="[{event, text}] appended by curation")
    rollup = models.JSONField(default=dict, blank=True, help_text="{event_type: {outcome: count}}")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-local_date"]
        constraints = [models.UniqueConstraint(fields=["owner", "local_date"], name="screen_daynote_one_per_day")]

    def __str__(self) -> str:
        return f"day note {self.local_date}"


class EntityNote(OwnedModel):
    """A running note about one entity seen on screen (a project, a game, a shop)."""

    name = models.CharField(max_length=200)
    lines = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="screen_entitynote_unique_name")]

    def __str__(self) -> str:
        return self.name
