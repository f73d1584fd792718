"""Wearables: sources, day transcripts with their conversations and utterances, the speaker registry,
user fix-ups (corrections, redaction rules) and the sync log.

Every row is owned (``OwnedModel``); every read goes through ``.owned_by(user)``. Text stored here has already
been through the pipeline (off-the-record elision, cleanup, redaction, corrections).
"""

from __future__ import annotations

import re
import uuid

from django.contrib.postgres.indexes import GinIndex
from django.db import models

from accounts.fields import EncryptedTextField, PlaintextSearchVectorField
from accounts.owned import OwnedModel, OwnedQuerySet


class SourceKind(models.TextChoices):
    LIMITLESS = "limitless", "Limitless"
    BEE = "bee", "Bee"
    OMI = "omi", "Omi"


class WearablesSettings(OwnedModel):
    """Per-user switches for the whole feature. Disabled by default until the user turns it on."""

    enabled = models.BooleanField(default=False, help_text="Master switch for wearables sync")
    export_markdown = models.BooleanField(
        default=False, help_text="Also write day transcripts to ALMANAC_HOME/wearables/<source>/<date>.md"
    )
    off_the_record = models.BooleanField(default=True, help_text="Remove spoken 'off the record' spans")
    off_phrases = models.JSONField(default=list, blank=True, help_text="Extra phrases that start an elided span")
    on_phrases = models.JSONField(default=list, blank=True, help_text="Extra phrases that end an elided span")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "wearables settings"
        constraints = [models.UniqueConstraint(fields=["owner"], name="wearables_settings_one_per_owner")]

    def __str__(self) -> str:
        return f"wearables settings for {self.owner}"


class SourceQuerySet(OwnedQuerySet):
    def enabled(self) -> SourceQuerySet:
        return self.filter(enabled=True)


class Source(OwnedModel):
    """One provider account of one user. Credentials are write-only: never returned by the API, never logged."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=20, choices=SourceKind.choices)
    enabled = models.BooleanField(default=False)
    credentials = models.JSONField(default=dict, blank=True)
    base_url = models.CharField(max_length=500, blank=True, help_text="Empty = env default, then the provider host")
    # Memory settings (mode, trust thresholds, caps) live in the trust gate: distill.GatePolicy "wearable:<kind>".
    # Result of the last credential check (written by services.check_source).
    last_check_ok = models.BooleanField(null=True, blank=True)
    last_check_message = models.CharField(max_length=500, blank=True)
    last_checked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["kind"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "kind"], name="wearables_source_one_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.owner})"

    @property
    def has_credentials(self) -> bool:
        return any(bool(v) for v in (self.credentials or {}).values())


class Person(OwnedModel):
    """Someone who speaks in transcripts. ``is_self`` marks the user (the wearer)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=100)
    is_self = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="wearables_person_unique_name"),
            # One "me" per user.
            models.UniqueConstraint(
                fields=["owner"], condition=models.Q(is_self=True), name="wearables_person_one_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (you)" if self.is_self else self.name


class SpeakerIdentity(OwnedModel):
    """A stable identity a provider gives a speaker, mapped to a Person; applies wherever it appears.

    Only stable identities live here: Omi person ids and Limitless display names. Per-conversation diarization
    labels (Bee "0", Omi "SPEAKER_01", Limitless "Unknown") mean nothing outside their conversation; a user's
    naming of one of those is a ``SpeakerAssignment``.
    """

    class Kind(models.TextChoices):
        PERSON_ID = "person_id", "Provider person id"
        DISPLAY_NAME = "display_name", "Provider display name"

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="speaker_identities")
    identity_kind = models.CharField(max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=200)
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="identities")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "speaker identities"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "identity_kind", "key"], name="wearables_speakeridentity_unique_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source.kind}:{self.key} → {self.person.name}"


class SpeakerAssignment(OwnedModel):
    """The user's naming of one speaker label in one conversation. Wins over everything inferred.

    Keyed by the provider's conversation id, not our row, so it survives a re-sync that rebuilds the day.
    """

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="speaker_assignments")
    conversation_external_id = models.CharField(max_length=200)
    speaker_label = models.CharField(max_length=200)
    person = models.ForeignKey(Person, on_delete=models.CASCADE, related_name="assignments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "conversation_external_id", "speaker_label"],
                name="wearables_speakerassignment_unique_label",
            )
        ]

    def __str__(self) -> str:
        return f"{self.source.kind}:{self.conversation_external_id}:{self.speaker_label} → {self.person.name}"


class Correction(OwnedModel):
    """A user's fix-up for a word ASR keeps getting wrong: whole-word, case-preserving; optional per source."""

    source = models.ForeignKey(Source, null=True, blank=True, on_delete=models.CASCADE, related_name="corrections")
    wrong = models.CharField(max_length=200)
    right = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["wrong"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "source", "wrong"],
                nulls_distinct=False,
                name="wearables_correction_unique_wrong",
            )
        ]

    def __str__(self) -> str:
        return f"{self.wrong} → {self.right}"


class RedactionRule(OwnedModel):
    """A user regex whose matches are replaced by ``[redacted]`` (validated at save time by the service)."""

    pattern = models.CharField(max_length=500)
    description = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["owner", "pattern"], name="wearables_redactionrule_unique")]

    def __str__(self) -> str:
        return self.pattern

    def compiled(self) -> re.Pattern:
        return re.compile(self.pattern, re.IGNORECASE)


class DayTranscriptQuerySet(OwnedQuerySet):
    def for_source(self, kind: str) -> DayTranscriptQuerySet:
        return self.filter(source__kind=kind)


class DayTranscript(OwnedModel):
    """One clean transcript per source per local day (the user's timezone at sync time)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="transcripts")
    local_date = models.DateField()
    timezone = models.CharField(max_length=64)
    content_hash = models.CharField(max_length=64)
    markdown = EncryptedTextField()  # the day's transcript; encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    utterance_count = models.PositiveIntegerField(default=0)
    conversation_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DayTranscriptQuerySet.as_manager()

    class Meta:
        ordering = ["-local_date", "source__kind"]
        constraints = [
            models.UniqueConstraint(fields=["source", "local_date"], name="wearables_daytranscript_one_per_day")
        ]

    def __str__(self) -> str:
        return f"{self.source.kind} {self.local_date}"


class Conversation(OwnedModel):
    """One recorded conversation inside a day transcript, with how its wearer was identified."""

    class WearerMethod(models.TextChoices):
        PROVIDER = "provider", "Device flag"
        USER = "user", "Set by you"
        REGISTRY = "registry", "Known speaker"
        OTHER_DEVICE = "other_device", "Matched another device"
        TEXT_CUES = "text_cues", "Cues in the conversation"
        MOST_TALKATIVE = "most_talkative", "Most talkative speaker (guess)"
        NONE = "none", "Unknown"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    transcript = models.ForeignKey(DayTranscript, on_delete=models.CASCADE, related_name="conversations")
    external_id = models.CharField(max_length=200)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    title = models.CharField(max_length=300, blank=True)
    wearer_label = models.CharField(max_length=200, blank=True)
    wearer_method = models.CharField(max_length=20, choices=WearerMethod.choices, default=WearerMethod.NONE)
    wearer_confidence = models.FloatField(default=0.0)
    # [[start, end or null], ...] ISO UTC: stretches elided as off the record, so other devices drop them too.
    elided_spans = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "external_id"], name="wearables_conversation_unique_external_id"
            )
        ]

    def __str__(self) -> str:
        return f"{self.external_id} @ {self.started_at:%Y-%m-%d %H:%M}"


class UtteranceQuerySet(OwnedQuerySet):
    def for_source(self, kind: str) -> UtteranceQuerySet:
        return self.filter(transcript__source__kind=kind)


class Utterance(OwnedModel):
    """One cleaned, redacted turn. ``search`` is a stored tsvector of the plaintext (``accounts.fields``)."""

    transcript = models.ForeignKey(DayTranscript, on_delete=models.CASCADE, related_name="utterances")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="utterances")
    index = models.PositiveIntegerField(help_text="Position within the day transcript")
    speaker_label = models.CharField(max_length=200, blank=True)
    speaker_name = models.CharField(max_length=200, blank=True)
    is_wearer = models.BooleanField(default=False)
    person = models.ForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="utterances")
    text = EncryptedTextField()  # encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # What the device said, kept so speakers can be relabeled later without fetching again.
    provider_is_wearer = models.BooleanField(null=True, blank=True)
    provider_person_id = models.CharField(max_length=200, blank=True)
    provider_speaker_name = models.CharField(max_length=200, blank=True)
    # Filled from the plaintext on every save/bulk_create (the stored text may be ciphertext).
    search = PlaintextSearchVectorField(source_fields=["text"])

    objects = UtteranceQuerySet.as_manager()

    class Meta:
        ordering = ["transcript", "index"]
        constraints = [models.UniqueConstraint(fields=["transcript", "index"], name="wearables_utterance_unique_index")]
        indexes = [
            # Full-text search (queries.search_utterances).
            GinIndex(fields=["search"], name="wearables_utterance_search"),
        ]

    def __str__(self) -> str:
        return f"{self.speaker_name or self.speaker_label}: {self.text[:60]}"


class SyncRun(OwnedModel):
    """One sync of one source over a window of local days.

    States: running -> ok | partial (some days failed or warned) | failed. Warnings and errors never contain
    credentials or transcript text (only counts, dates and provider status messages).
    """

    class Status(models.TextChoices):
        RUNNING = "running"
        OK = "ok"
        PARTIAL = "partial"
        FAILED = "failed"

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="sync_runs")
    window_start = models.DateField()
    window_end = models.DateField()
    trigger = models.CharField(max_length=20, default="manual")
    pages = models.PositiveIntegerField(default=0)
    conversations = models.PositiveIntegerField(default=0)
    utterances = models.PositiveIntegerField(default=0)
    days_changed = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    warnings = models.JSONField(default=list, blank=True)
    errors = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["source", "-started_at"], name="wearables_syncrun_latest")]

    def __str__(self) -> str:
        return f"{self.source.kind} {self.window_start}..{self.window_end} {self.status}"


class NativeMemoryImport(OwnedModel):
    """A provider's own memory/fact (Bee facts, Omi memories), redacted, kept once per provider id.

    The trust gate turns these into candidates (``wearables.services.memories.import_native_memories``).
    """

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="native_memories")
    external_id = models.CharField(max_length=200)
    text = EncryptedTextField()  # encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    content_hash = models.CharField(max_length=64)
    occurred_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "external_id"], name="wearables_nativememory_unique_id")
        ]

    def __str__(self) -> str:
        return f"{self.source.kind}:{self.external_id}"
