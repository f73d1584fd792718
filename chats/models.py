"""Conversations with AI assistants and coding agents: sessions, their turns, imported files, lessons.

A ``ChatSession`` is one conversation (an ingest conversation_id, a Claude Code session file, an exported
chat). Its ``ChatTurn`` rows are the raw talk; a turn whose ``distilled_at`` is empty is a *pending signal*
that the background distiller has not consumed yet. ``Lesson`` is this app's view of a pinned ledger fact of
kind lesson (strength, decay, aliases, predictions); the ledger fact and its evidence stay the record.
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.indexes import GinIndex
from django.db import models

from accounts.fields import EncryptedJSONField, EncryptedTextField, PlaintextSearchVectorField
from accounts.owned import OwnedModel, OwnedQuerySet


class AgentProjectQuerySet(OwnedQuerySet):
    def containing(self, path: str) -> AgentProjectQuerySet:
        """Projects whose folder is ``path`` or one of its ancestors (longest, i.e. innermost, first)."""
        from django.db.models.functions import Length

        ancestors = [path] + [path[:i] for i, ch in enumerate(path) if ch == "/" and i > 0]
        return self.filter(root__in=ancestors).order_by(Length("root").desc())


class AgentProject(OwnedModel):
    """Where a coding agent works: one repository (known by its remote URL, so every clone and worktree of it is
    the same project) or one folder. Sessions, lessons and hook calls belong to at most one project; what belongs
    to a project is shown only inside it (``Lesson.objects.visible_in``), and a lesson with no project (one
    learned outside any) is shown everywhere. ``key`` is ``repo:<host>/<path>`` for a repository, else the
    folder's absolute path (the same string the session's ``project`` field held before projects existed, so
    lesson keys made then still match)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key = models.CharField(max_length=500)
    name = models.CharField(max_length=200)  # what a person calls it: the repository or folder name
    root = models.CharField(max_length=1000, blank=True, default="")  # the folder last seen (repository root)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now=True)

    objects = AgentProjectQuerySet.as_manager()

    class Meta:
        ordering = ["-last_seen_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="chats_agentproject_unique_key")]
        indexes = [
            # resolve_project: the project whose folder contains a session's working directory.
            models.Index(fields=["owner", "root"], name="chats_project_root"),
        ]

    def __str__(self) -> str:
        return self.name or self.key

    @property
    def is_repository(self) -> bool:
        return self.key.startswith("repo:")


class ChatSessionQuerySet(OwnedQuerySet):
    def due(self, now) -> ChatSessionQuerySet:
        """Sessions whose debounce/retry time has come (the idle sweeper's query)."""
        return self.filter(distill_due_at__isnull=False, distill_due_at__lte=now)

    def in_project(self, project: AgentProject | None) -> ChatSessionQuerySet:
        """Sessions of ``project`` only (None: sessions that belong to no project)."""
        return self.filter(agent_project=project) if project is not None else self.filter(agent_project__isnull=True)


class ChatSession(OwnedModel):
    """One conversation. Status moves open → queued → distilled | no_signals | skipped | empty | dead_letter | error;
    new turns move it back to queued. ``outcome`` is the last outcome token reported to the client."""

    class Status(models.TextChoices):
        OPEN = "open"
        QUEUED = "queued"
        DISTILLED = "distilled"
        NO_SIGNALS = "no_signals"
        SKIPPED = "skipped"
        EMPTY = "empty"
        DEAD_LETTER = "dead_letter"
        ERROR = "error"

    class Source(models.TextChoices):
        INGEST = "chat:ingest"
        IMPORT = "chat:import"
        CLAUDE_CODE = "chat:claude-code"
        CODEX = "chat:codex"
        OPENAI = "chat:openai"
        ANTHROPIC = "chat:anthropic"
        GEMINI = "chat:gemini"
        PROXY = "chat:proxy"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    source_key = models.CharField(max_length=40, choices=Source.choices, default=Source.INGEST)
    external_id = models.CharField(max_length=200)  # ingest conversation_id, session uuid, export id
    agent_id = models.CharField(max_length=200, blank=True, default="")
    title = models.CharField(max_length=300, blank=True, default="")
    project = models.CharField(max_length=500, blank=True, default="")  # cwd of a coding agent
    # The project the session belongs to; PROTECT: a project's sessions never silently lose their scope.
    agent_project = models.ForeignKey(
        AgentProject, null=True, blank=True, on_delete=models.PROTECT, related_name="sessions"
    )
    # The session a subagent's transcript belongs to (Claude Code's Task/Agent tool): shown and kept with it.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="subagents")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    outcome = models.CharField(max_length=300, blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    distill_due_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_turn_at = models.DateTimeField(null=True, blank=True)
    episode_id_ref = models.UUIDField(null=True, blank=True)  # public id of the session's ledger episode
    turn_count = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64, blank=True, default="")  # hash of all turns (idempotence)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ChatSessionQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "source_key", "external_id"], name="chats_chatsession_unique_conversation"
            )
        ]
        indexes = [
            # The idle sweeper: sessions whose distillation is due.
            models.Index(
                fields=["distill_due_at"], name="chats_session_due", condition=models.Q(distill_due_at__isnull=False)
            ),
            models.Index(fields=["owner", "-started_at"], name="chats_session_recent"),
            # The memory proxy: the stored conversation whose turns a request's messages extend (conversation_for).
            models.Index(fields=["owner", "source_key", "content_hash"], name="chats_session_content"),
        ]

    def __str__(self) -> str:
        return self.title or f"{self.source_key} {self.external_id}"


class ChatTurnQuerySet(OwnedQuerySet):
    def pending(self) -> ChatTurnQuerySet:
        return self.filter(distilled_at__isnull=True)


class ChatTurn(OwnedModel):
    """One message of a conversation (a person, an assistant, a tool result). Text is redacted before save."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        PERSON = "person"  # a named participant of an imported conversation between people
        TOOL = "tool"
        SYSTEM = "system"

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    role = models.CharField(max_length=12, choices=Role.choices)
    speaker = models.CharField(max_length=200, blank=True, default="")
    is_owner = models.BooleanField(default=False)
    text = EncryptedTextField(blank=True, default="")  # encrypted at rest when ALMANAC_ENCRYPTION_KEY is set
    tool_calls = EncryptedJSONField(default=list, blank=True)  # [{id, name, input, result, is_error}]; encrypted
    # What came with the message but is not the speaker's own words: [{kind, text}] (pasted, quoted,
    # ide_context, system_reminder, command, thinking, queued, …). Evidence at most, never a memory's source.
    extras = EncryptedJSONField(default=list, blank=True)
    occurred_at = models.DateTimeField(null=True, blank=True)
    distilled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Filled from the plaintext on every save/bulk_create (the stored text may be ciphertext).
    search = PlaintextSearchVectorField(source_fields=["text"])

    objects = ChatTurnQuerySet.as_manager()

    class Meta:
        ordering = ["session_id", "index"]
        constraints = [models.UniqueConstraint(fields=["session", "index"], name="chats_chatturn_unique_index")]
        indexes = [
            GinIndex(fields=["search"], name="chats_turn_search"),
            # Pending signals of one session (the distiller's read).
            models.Index(fields=["session"], name="chats_turn_pending", condition=models.Q(distilled_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"{self.speaker or self.role}: {self.text[:60]}"


class ImportedFile(OwnedModel):
    """A file an importer read; re-importing the same path with the same modification time is a no-op."""

    path = models.CharField(max_length=1000)
    format = models.CharField(max_length=30)
    mtime = models.FloatField()
    sessions = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "path"], name="chats_importedfile_unique_path")]

    def __str__(self) -> str:
        return self.path


class LessonQuerySet(OwnedQuerySet):
    def active(self) -> LessonQuerySet:
        return self.filter(status=Lesson.Status.ACTIVE)

    def visible_in(self, project: AgentProject | None) -> LessonQuerySet:
        """Lessons that may be shown inside ``project``: its own and those learned outside any project. Outside
        every project (None), only the latter: one project's lessons never reach another's context."""
        unscoped = models.Q(agent_project__isnull=True)
        return self.filter(unscoped | models.Q(agent_project=project) if project is not None else unscoped)


class Lesson(OwnedModel):
    """Something learned from corrections, errors or surprises. active → merged (into a theme) | archived.

    ``fact_public_id`` points at the pinned ledger fact (tag "lesson") whose evidence quotes the episodes.
    Strength halves after ALMANAC_CHATS_LESSON_HALF_LIFE_DAYS idle days; below the floor it is archived.
    """

    class Status(models.TextChoices):
        ACTIVE = "active"
        MERGED = "merged"
        ARCHIVED = "archived"

    class Kind(models.TextChoices):
        CORRECTION = "correction"
        ERROR = "error"
        SURPRISE = "surprise"
        ENVIRONMENT = "environment"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    key = models.CharField(max_length=64)  # normalised content hash (same lesson from two sessions = one row)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.TextField()
    project = models.CharField(max_length=500, blank=True, default="")
    # PROTECT: a project's lessons must never become unscoped (shown everywhere) because the project went.
    agent_project = models.ForeignKey(
        AgentProject, null=True, blank=True, on_delete=models.PROTECT, related_name="lessons"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    strength = models.FloatField(default=0.6)
    seen_count = models.PositiveIntegerField(default=1)
    aliases = models.JSONField(default=list, blank=True)
    theme = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged")
    fact_public_id = models.UUIDField(null=True, blank=True)
    episode_keys = models.JSONField(default=list, blank=True)
    history = models.JSONField(default=list, blank=True)  # [{at, event, strength}]
    last_seen_at = models.DateTimeField()
    decayed_at = models.DateTimeField(null=True, blank=True)  # decay already applied up to this time
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = LessonQuerySet.as_manager()

    class Meta:
        ordering = ["-strength", "-id"]
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="chats_lesson_unique_key")]

    def __str__(self) -> str:
        return self.text[:80]


class Prediction(OwnedModel):
    """One expectation per strong lesson ("this mistake will not recur"): open → confirmed | failed."""

    class Status(models.TextChoices):
        OPEN = "open"
        CONFIRMED = "confirmed"
        FAILED = "failed"

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="predictions")
    text = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["lesson"], condition=models.Q(status="open"), name="chats_prediction_one_open_per_lesson"
            )
        ]

    def __str__(self) -> str:
        return f"{self.status}: {self.text[:60]}"


class HookDelivery(OwnedModel):
    """A lesson shown to one agent session by a hook (each lesson at most once per session)."""

    session_key = models.CharField(max_length=200)
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="deliveries")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "session_key", "lesson"], name="chats_hookdelivery_once")
        ]

    def __str__(self) -> str:
        return f"{self.session_key} ← {self.lesson_id}"


class SleepReport(OwnedModel):
    """What one nightly sleep pass did (the morning report)."""

    day = models.DateField()
    learned = models.JSONField(default=list, blank=True)
    merged = models.JSONField(default=list, blank=True)
    confirmed = models.JSONField(default=list, blank=True)
    failed = models.JSONField(default=list, blank=True)
    archived = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["owner", "day"], name="chats_sleepreport_one_per_day")]

    def __str__(self) -> str:
        return f"sleep report {self.day}"


class PrivateSpanCount(OwnedModel):
    """How many ``<private>…</private>`` spans were removed before anything was stored, per entry point. Only the
    count is kept: never the text, its length or where it stood."""

    class EntryPoint(models.TextChoices):
        HOOKS = "hooks"
        PROXY = "proxy"
        INGEST = "ingest"
        CONVERSATIONS = "conversations"  # the JSON conversation import endpoints
        IMPORT = "import"  # file importers (CLI and upload)
        MCP = "mcp"
        OTHER = "other"

    entry_point = models.CharField(max_length=20, choices=EntryPoint.choices)
    removed = models.PositiveBigIntegerField(default=0)
    last_removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["entry_point"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "entry_point"], name="chats_privatespancount_one_per_entry")
        ]

    def __str__(self) -> str:
        return f"{self.entry_point}: {self.removed}"


class AgentTranscript(OwnedModel):
    """One agent transcript a hook client sends piece by piece (a Claude Code session file, or one subagent's):
    ``received_bytes`` is how far into the file on the agent's machine the client has sent. The content lives in
    ``TranscriptChunk`` rows. Rows belong to the token's owner: another owner's session id is another row."""

    agent_session_id = models.CharField(max_length=200)  # Claude Code's session_id
    agent_id = models.CharField(max_length=200, blank=True, default="")  # a subagent's id; "" for the session
    file_tag = models.CharField(max_length=12, blank=True, default="")  # the client's tag of its file (not a path)
    agent_project = models.ForeignKey(AgentProject, null=True, blank=True, on_delete=models.SET_NULL)
    received_bytes = models.BigIntegerField(default=0)
    imported_bytes = models.BigIntegerField(default=0)  # what the last import read (nothing new: no import)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "agent_session_id", "agent_id"], name="chats_agenttranscript_unique_session"
            )
        ]

    def __str__(self) -> str:
        return f"{self.agent_session_id}{':' + self.agent_id if self.agent_id else ''} ({self.received_bytes} B)"

    @property
    def external_id(self) -> str:
        """The chat session id the transcript is stored under (the file importer's ids for the same file)."""
        base = f"{self.file_tag or 'hook'}:{self.agent_session_id}"
        return f"{base}:agent-{self.agent_id}" if self.agent_id else base


class TranscriptChunk(OwnedModel):
    """The records of bytes [start, end) of an agent transcript, as the importer reads them: only the fields it
    uses, long texts cut, ``<private>`` spans removed and secrets masked before this row is written."""

    transcript = models.ForeignKey(AgentTranscript, on_delete=models.CASCADE, related_name="chunks")
    start = models.BigIntegerField()
    end = models.BigIntegerField()
    records = EncryptedTextField(blank=True, default="")  # JSON Lines
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["transcript_id", "start"]
        constraints = [
            models.UniqueConstraint(fields=["transcript", "start"], name="chats_transcriptchunk_unique_start"),
            models.CheckConstraint(condition=models.Q(end__gt=models.F("start")), name="chats_transcriptchunk_range"),
        ]

    def __str__(self) -> str:
        return f"{self.transcript_id} [{self.start}, {self.end})"


class AgentToolEvent(OwnedModel):
    """A tool call as a PostToolUse (or PostToolUseFailure) hook reported it, kept until the session's transcript
    is imported (which holds the same call): what happened in a session is known even when it never reached
    Stop. ``call`` holds the input and the response, cut, with private spans removed and secrets masked."""

    agent_session_id = models.CharField(max_length=200)
    agent_project = models.ForeignKey(AgentProject, null=True, blank=True, on_delete=models.SET_NULL)
    tool_use_id = models.CharField(max_length=200, blank=True, default="")
    tool_name = models.CharField(max_length=200)
    call = EncryptedJSONField(default=dict, blank=True)
    is_error = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "agent_session_id", "tool_use_id"],
                condition=~models.Q(tool_use_id=""),
                name="chats_agenttoolevent_once_per_call",
            )
        ]
        indexes = [models.Index(fields=["owner", "agent_project", "-created_at"], name="chats_toolevent_recent")]

    def __str__(self) -> str:
        return f"{self.tool_name} in {self.agent_session_id}"
