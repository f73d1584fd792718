from django.contrib import admin

from distill.models import Claim, GatePolicy, OwnerAdjustment, ReviewExample, StoredExtraction


@admin.register(GatePolicy)
class GatePolicyAdmin(admin.ModelAdmin):
    list_display = ["owner", "source_key", "mode", "source_trust", "auto_approve_trust", "review_trust", "updated_at"]
    list_filter = ["mode"]
    search_fields = ["owner__username", "source_key"]


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["owner", "source_key", "day_key", "origin", "claim_hash", "created_at"]
    list_filter = ["origin"]
    search_fields = ["owner__username", "source_key", "scope_key", "claim_hash"]
    raw_id_fields = ["fact"]
    readonly_fields = ["source_key", "scope_key", "day_key", "claim_hash", "origin", "fact", "created_at"]


@admin.register(ReviewExample)
class ReviewExampleAdmin(admin.ModelAdmin):
    """Read-only: examples are written by the review services and undone by an undo."""

    list_display = ["owner", "decision", "label", "family", "subject_type", "p_model", "created_at", "undone_at"]
    list_filter = ["decision", "label", "subject_type"]
    search_fields = ["owner__username", "family", "fact_public_id"]
    readonly_fields = [f.name for f in ReviewExample._meta.fields]


@admin.register(OwnerAdjustment)
class OwnerAdjustmentAdmin(admin.ModelAdmin):
    list_display = ["owner", "status", "n_examples", "shift", "shipped_precision", "adjusted_precision", "fitted_at"]
    list_filter = ["status"]
    search_fields = ["owner__username"]
    readonly_fields = [f.name for f in OwnerAdjustment._meta.fields]
    actions = ["refit"]

    @admin.action(description="Refit from the owner's decisions now")
    def refit(self, request, queryset):
        from distill import learning

        for row in queryset.select_related("owner"):
            learning.refit(owner=row.owner)
        self.message_user(request, f"Refitted {queryset.count()} adjustment(s)")


@admin.register(StoredExtraction)
class StoredExtractionAdmin(admin.ModelAdmin):
    """Read-only: kept by the pass; deleting a row only makes the next pass over that scope parse again."""

    list_display = ["owner", "scope_key", "extractor", "extractor_version", "updated_at"]
    search_fields = ["owner__username", "scope_key"]
    readonly_fields = [f.name for f in StoredExtraction._meta.fields]
