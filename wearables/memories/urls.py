"""Included from wearables/urls.py without its own app_name, so names live in the "wearables" namespace."""

from django.urls import path

from wearables.memories import views

urlpatterns = [
    path("", views.memories_page, name="memories"),
]
