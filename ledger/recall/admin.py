from django.contrib import admin

from ledger.recall.models import ConsolidationRun, Usage


@admin.register(ConsolidationRun)
class ConsolidationRunAdmin(admin.ModelAdmin):
    list_display = ("owner", "trigger", "status", "started_at", "finished_at")
    list_filter = ("status", "trigger")
    readonly_fields = ("owner", "trigger", "status", "counts", "error", "started_at", "finished_at")

    def has_add_permission(self, request):
        return False


@admin.register(Usage)
class UsageAdmin(admin.ModelAdmin):
    list_display = ("owner", "kind", "ref_id", "use_count", "last_used_at")
    list_filter = ("kind",)
    readonly_fields = ("owner", "kind", "ref_id", "use_count", "last_used_at")

    def has_add_permission(self, request):
        return False
