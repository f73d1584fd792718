from django.urls import path

from wearables import views

app_name = "wearables"

urlpatterns = [
    path("transcripts/", views.transcripts, name="transcripts"),
    path("sources/", views.sources, name="sources"),
]
