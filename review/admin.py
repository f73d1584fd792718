"""Admin triage: the ledger's fact admin gains band/source/day/subject filters and accept/reject actions, and a
queue admin lists what waits for a person. Actions call ``review.services.act`` (ledger commits by the reviewer,
logged for undo), never edit rows. Registered here, above the ledger, so the ledger never imports review."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from accounts.exceptions import DomainError
from ledger.admin import FactAdmin, ReadOnlyAdmin
from ledger.models import Fact
from review import queries, services
from review.models import QueueItem, ReviewAction, ReviewPreference


class BandFilter(admin.SimpleListFilter):
    title = "band"
    parameter_name = "band"

    def lookups(self, request, model_admin):
        return [(b, queries.Band.LABELS[b]) for b in queries.Band.ALL]

    def queryset(self, request, queryset):
        if self.value() not in queries.Band.ALL:
            return queryset
        return queryset.filter(queries.in_band(self.value(), timezone.now() - queries.RECENT))


class SourceFilter(admin.SimpleListFilter):
    title = "source"
    parameter_name = "source"

    def lookups(self, request, model_admin):
        labels = Fact.objects.exclude(source_label="").order_by().values_list("source_label", flat=True).distinct()
        return [(s, s) for s in sorted(labels)]

    def queryset(self, request, queryset):
        return queryset.filter(source_label=self.value()) if self.value() else queryset


def _apply(modeladmin, request, queryset, action: str) -> None:
    done, failed = 0, []
    for fact in queryset.select_related("owner"):
        try:
            services.act(owner=fact.owner, fact=fact, action=action)
            done += 1
        except DomainError as exc:
            failed.append(f"{fact.content[:40]}: {exc.message}")
    modeladmin.message_user(
        request, f"{action.capitalize()}ed {done} memor{'y' if done == 1 else 'ies'} (ledger commits)"
    )
    if failed:
        modeladmin.message_user(request, "Skipped: " + "; ".join(failed[:10]), level=messages.WARNING)


@admin.action(description="Accept selected memories (a reviewer commit each)")
def accept_selected(modeladmin, request, queryset):
    _apply(modeladmin, request, queryset, services.Action.ACCEPT)


@admin.action(description="Reject selected memories (a lasting refusal each)")
def reject_selected(modeladmin, request, queryset):
    _apply(modeladmin, request, queryset, services.Action.REJECT)


TRIAGE_FILTERS = (
    "status",
    BandFilter,
    SourceFilter,
    ("recorded_at", admin.DateFieldListFilter),
    "subject_kind",
    ("subject_entity", admin.RelatedOnlyFieldListFilter),
)


class FactTriageAdmin(FactAdmin):
    list_display = ("content", "status", "source_label", "subject_kind", "subject_entity", "importance", "recorded_at")
    list_filter = (*TRIAGE_FILTERS, "importance")
    search_fields = ("content", "public_id", "subject_entity__name", "source_label")
    list_select_related = ("subject_entity", "owner")
    actions = [accept_selected, reject_selected]
    date_hierarchy = "recorded_at"


admin.site.unregister(Fact)
admin.site.register(Fact, FactTriageAdmin)


@admin.register(QueueItem)
class QueueItemAdmin(FactTriageAdmin):
    list_display = ("content", "status", "status_reason", "source_label", "subject_entity", "importance", "recorded_at")

    def get_queryset(self, request):
        return super().get_queryset(request).filter(status__in=queries.REVIEWABLE)


@admin.register(ReviewAction)
class ReviewActionAdmin(ReadOnlyAdmin):
    list_display = ("kind", "fact_public_id", "owner", "created_at", "undone_at")
    list_filter = ("kind", ("created_at", admin.DateFieldListFilter))
    search_fields = ("fact_public_id",)


@admin.register(ReviewPreference)
class ReviewPreferenceAdmin(admin.ModelAdmin):
    list_display = ("owner", "daily_budget", "updated_at")
