"""Admin: browse sources, collect runs, signals and events. Revisions and evidence requests are read-only."""

from __future__ import annotations

from django.contrib import admin

from screen.models import (
    Assertion,
    CollectRun,
    Curation,
    DayNote,
    EntityNote,
    EventEvidence,
    EventRevision,
    EvidenceRequest,
    ScreenEvent,
    ScreenSource,
    Signal,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class AssertionInline(ReadOnlyInline):
    model = Assertion
    fields = ("position", "text", "content_role", "confidence")


class EvidenceInline(ReadOnlyInline):
    model = EventEvidence
    fields = ("role", "occurred_at", "frame_id", "app_name", "excerpt")


class RevisionInline(ReadOnlyInline):
    model = EventRevision
    fields = ("number", "status", "reason", "author", "created_at")
    readonly_fields = ("created_at",)


@admin.register(ScreenEvent)
class ScreenEventAdmin(admin.ModelAdmin):
    list_display = ("title", "event_type", "status", "outcome", "local_date", "owner", "revision")
    list_filter = ("status", "local_date")
    search_fields = ("title", "event_type", "summary")
    readonly_fields = ("public_id", "key", "revision", "curated_revision", "created_at", "revised_at")
    inlines = [AssertionInline, EvidenceInline, RevisionInline]


@admin.register(ScreenSource)
class ScreenSourceAdmin(admin.ModelAdmin):
    list_display = ("owner", "enabled", "base_url", "cursor_at", "gaps", "missing_frames", "restarts")
    readonly_fields = ("cursor_at", "cursor_key", "state", "gaps", "missing_frames", "restarts", "last_collect_at")


@admin.register(CollectRun)
class CollectRunAdmin(admin.ModelAdmin):
    list_display = ("started_at", "owner", "status", "items", "signals", "events_created", "events_revised", "gaps")
    list_filter = ("status",)


@admin.register(Signal)
class SignalAdmin(admin.ModelAdmin):
    list_display = ("occurred_at", "kind", "app_name", "window_name", "owner", "processed")
    list_filter = ("kind", "processed")
    search_fields = ("app_name", "window_name")


@admin.register(EvidenceRequest)
class EvidenceRequestAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "owner", "budget", "returned", "frames_fetched")
    list_filter = ("kind",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Curation)
class CurationAdmin(admin.ModelAdmin):
    list_display = ("created_at", "event", "revision", "decision", "reason")
    list_filter = ("decision",)


admin.site.register(DayNote)
admin.site.register(EntityNote)
