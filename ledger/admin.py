"""Admin for triage. The commit log and its projection are read-only here: every change is a commit,
made through the services (pages, API), never by editing rows."""

from __future__ import annotations

from django.contrib import admin

from ledger.models import (
    Commit,
    Entity,
    Episode,
    Evidence,
    Fact,
    IdentityNarrative,
    IdentityOverride,
    PinnedFact,
    Refusal,
    RefusalHit,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EvidenceInline(admin.TabularInline):
    model = Evidence
    fields = ("source_type", "source_label", "quote", "capture_confidence", "observed_at", "tombstoned_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Fact)
class FactAdmin(ReadOnlyAdmin):
    list_display = ("content", "status", "subject_kind", "importance", "veracity", "capture_confidence", "recorded_at")
    list_filter = ("status", "subject_kind", "importance")
    search_fields = ("content", "public_id")
    exclude = ("search",)
    inlines = [EvidenceInline]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdmin):
    list_display = ("source_type", "source_label", "quote", "capture_confidence", "recorded_at", "tombstoned_at")
    list_filter = ("source_type",)


@admin.register(Entity)
class EntityAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "aliases", "merged_into")
    list_filter = ("kind",)
    search_fields = ("name",)


@admin.register(Commit)
class CommitAdmin(ReadOnlyAdmin):
    list_display = ("seq", "commit_id", "owner", "author", "author_label", "committed_at", "mutation_types")
    list_filter = ("author",)
    search_fields = ("commit_id",)


@admin.register(Refusal)
class RefusalAdmin(ReadOnlyAdmin):
    list_display = ("kind", "owner", "proposition_key", "decision_commit_id", "recorded_at", "lifted_at")
    list_filter = ("kind", ("lifted_at", admin.EmptyFieldListFilter))
    actions = ["lift"]

    @admin.action(description="Lift the selected refusals (one commit each, by their owner)")
    def lift(self, request, queryset):
        from ledger import services

        lifted = 0
        for refusal in queryset.filter(lifted_at__isnull=True).select_related("owner"):
            services.lift_refusal(owner=refusal.owner, refusal=refusal, reason="lifted in admin", author="user")
            lifted += 1
        self.message_user(request, f"{lifted} refusal(s) lifted.")


@admin.register(RefusalHit)
class RefusalHitAdmin(ReadOnlyAdmin):
    list_display = ("matched_on", "owner", "similarity", "decision_commit_id", "created_at")


@admin.register(IdentityOverride)
class IdentityOverrideAdmin(admin.ModelAdmin):
    list_display = ("key", "value", "owner", "updated_at")


@admin.register(IdentityNarrative)
class IdentityNarrativeAdmin(ReadOnlyAdmin):
    list_display = ("owner", "derived_at")


@admin.register(PinnedFact)
class PinnedFactAdmin(ReadOnlyAdmin):
    list_display = ("fact", "owner", "salience", "source_count", "use_count", "last_used_at")


@admin.register(Episode)
class EpisodeAdmin(ReadOnlyAdmin):
    list_display = ("title", "kind", "status", "owner", "salience", "started_at")
    list_filter = ("kind", "status")
    exclude = ("search",)
