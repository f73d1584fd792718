from django.contrib import admin

from distill.models import Claim, GatePolicy


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
