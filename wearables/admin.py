from django.contrib import admin

from wearables.models import (
    Conversation,
    Correction,
    DayTranscript,
    NativeMemoryImport,
    Person,
    RedactionRule,
    Source,
    SpeakerAssignment,
    SpeakerIdentity,
    SyncRun,
    Utterance,
    WearablesSettings,
)


@admin.register(WearablesSettings)
class WearablesSettingsAdmin(admin.ModelAdmin):
    list_display = ["owner", "enabled", "export_markdown", "off_the_record", "updated_at"]


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["owner", "kind", "enabled", "base_url", "last_check_ok", "updated_at"]
    list_filter = ["kind", "enabled"]
    search_fields = ["owner__username"]
    # Credentials are write-only everywhere, admin included.
    exclude = ["credentials"]
    readonly_fields = ["public_id", "last_check_ok", "last_check_message", "last_checked_at"]


class ConversationInline(admin.TabularInline):
    model = Conversation
    fields = ["external_id", "started_at", "ended_at", "title", "wearer_label", "wearer_method", "wearer_confidence"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(DayTranscript)
class DayTranscriptAdmin(admin.ModelAdmin):
    list_display = ["local_date", "source", "owner", "conversation_count", "utterance_count", "updated_at"]
    list_filter = ["source__kind", "local_date"]
    search_fields = ["owner__username"]
    date_hierarchy = "local_date"
    readonly_fields = ["public_id", "content_hash", "markdown", "created_at", "updated_at"]
    inlines = [ConversationInline]


class UtteranceInline(admin.TabularInline):
    model = Utterance
    fields = ["index", "speaker_label", "speaker_name", "is_wearer", "person", "text", "started_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["external_id", "transcript", "started_at", "wearer_method", "wearer_confidence"]
    list_filter = ["wearer_method", "transcript__source__kind"]
    search_fields = ["external_id", "title"]
    readonly_fields = ["public_id", "transcript", "external_id", "created_at"]
    inlines = [UtteranceInline]


@admin.register(Utterance)
class UtteranceAdmin(admin.ModelAdmin):
    list_display = ["transcript", "index", "speaker_name", "is_wearer", "text"]
    list_filter = ["is_wearer", "transcript__source__kind"]
    search_fields = ["text", "speaker_name"]
    readonly_fields = ["transcript", "conversation", "index", "created_at"]
    exclude = ["search"]


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "is_self", "created_at"]
    search_fields = ["name"]


@admin.register(SpeakerIdentity)
class SpeakerIdentityAdmin(admin.ModelAdmin):
    list_display = ["source", "identity_kind", "key", "person"]
    list_filter = ["identity_kind"]


@admin.register(SpeakerAssignment)
class SpeakerAssignmentAdmin(admin.ModelAdmin):
    list_display = ["source", "conversation_external_id", "speaker_label", "person"]


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    list_display = ["wrong", "right", "source", "owner", "created_at"]


@admin.register(RedactionRule)
class RedactionRuleAdmin(admin.ModelAdmin):
    list_display = ["pattern", "description", "owner", "created_at"]


@admin.register(SyncRun)
class SyncRunAdmin(admin.ModelAdmin):
    list_display = [
        "source",
        "status",
        "trigger",
        "window_start",
        "window_end",
        "days_changed",
        "duration_ms",
        "started_at",
    ]
    list_filter = ["status", "trigger", "source__kind"]
    readonly_fields = [f.name for f in SyncRun._meta.fields]


@admin.register(NativeMemoryImport)
class NativeMemoryImportAdmin(admin.ModelAdmin):
    list_display = ["source", "external_id", "text", "occurred_at", "updated_at"]
    list_filter = ["source__kind"]
