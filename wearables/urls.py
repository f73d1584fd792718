from django.urls import path

from wearables import views

app_name = "wearables"

urlpatterns = [
    path("transcripts/", views.transcripts, name="transcripts"),
    path("transcripts/search/", views.transcript_search, name="transcript-search"),
    path(
        "transcripts/conversations/<uuid:public_id>/speaker/", views.conversation_speaker, name="conversation-speaker"
    ),
    path("sources/", views.sources, name="sources"),
    path("sources/settings/", views.settings_update, name="settings-update"),
    path("sources/<str:kind>/", views.source_update, name="source-update"),
    path("sources/<str:kind>/check/", views.source_check, name="source-check"),
    path("sources/<str:kind>/sync/", views.source_sync, name="source-sync"),
    path("sources/<str:kind>/runs/", views.source_runs, name="source-runs"),
    # What the trust gate made of the wearables' transcripts, per day.
    path("memories/", views.memories_page, name="memories"),
]
