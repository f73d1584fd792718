from django.urls import path

from ledger.recall import views

app_name = "recall"

urlpatterns = [
    path("", views.page, name="page"),
    path("search/", views.search, name="search"),
    path("preview/", views.preview, name="preview"),
    path("consolidation/", views.consolidation_stats, name="consolidation"),
    path("consolidation/run/", views.consolidation_run, name="consolidation-run"),
]
