from django.contrib import admin

from chats.models import AgentProject, ChatSession, ChatTurn, ImportedFile, Lesson, Prediction, SleepReport


class ChatTurnInline(admin.TabularInline):
    model = ChatTurn
    fields = ("index", "role", "speaker", "text", "distilled_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(ChatSession)
class ChatSessionAdmin(admin.ModelAdmin):
    list_display = ("title", "source_key", "owner", "agent_project", "status", "outcome", "turn_count", "started_at")
    list_filter = ("source_key", "status")
    raw_id_fields = ("agent_project", "parent")
    search_fields = ("title", "external_id", "project")
    readonly_fields = ("public_id", "content_hash", "episode_id_ref", "created_at", "updated_at")
    inlines = [ChatTurnInline]


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    list_display = ("text", "kind", "owner", "agent_project", "status", "strength", "seen_count", "last_seen_at")
    list_filter = ("kind", "status")
    raw_id_fields = ("agent_project", "theme")
    search_fields = ("text",)
    readonly_fields = ("public_id", "key", "fact_public_id", "history", "episode_keys")


admin.site.register(Prediction, list_display=("text", "lesson", "status", "created_at", "decided_at"))
admin.site.register(SleepReport, list_display=("day", "owner", "created_at"))
admin.site.register(ImportedFile, list_display=("path", "format", "owner", "sessions", "updated_at"))


@admin.register(AgentProject)
class AgentProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "key", "owner", "root", "last_seen_at")
    search_fields = ("name", "key", "root")
    readonly_fields = ("public_id", "created_at", "last_seen_at")
