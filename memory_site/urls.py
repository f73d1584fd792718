from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from chats import views as chats_views
from memory_site import views
from memory_site.api import api

# An exception no view or middleware answered: a database that went away still answers 503 + Retry-After.
handler500 = "memory_site.views.server_error"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/tokens/", views.token_create, name="token-create"),
    path("settings/export/", views.export_download, name="settings-export"),
    path("settings/tokens/<uuid:public_id>/revoke/", views.token_revoke, name="token-revoke"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("mcp", views.mcp_http, name="mcp"),
    path("v1/chat/completions", chats_views.chat_completions, name="memory-proxy"),
    path("v1/models", chats_views.models, name="memory-proxy-models"),
    path("chats/", include("chats.urls")),
    path("memory/recall/", include("ledger.recall.urls")),
    path("memory/", include("ledger.urls")),
    path("", include("wearables.urls")),
    path("timeline/", include("screen.urls")),
    path("review/", include("review.urls")),
]
