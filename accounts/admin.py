from django.contrib import admin

from accounts.models import ApiToken, UserSettings


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "owner__username", "prefix"]
    readonly_fields = ["public_id", "prefix", "token_hash", "created_at", "last_used_at"]


@admin.register(UserSettings)
class UserSettingsAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name", "timezone", "updated_at"]
    search_fields = ["user__username", "display_name"]
