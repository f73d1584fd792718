from django.urls import path

from screen import views

app_name = "screen"

urlpatterns = [
    path("", views.timeline, name="timeline"),
    path("events/<uuid:public_id>/correct/", views.event_correct, name="event-correct"),
    path("frames/<int:pk>/", views.frame_image, name="frame"),
    path("collect/", views.collect_now, name="collect"),
    path("source/", views.source_update, name="source"),
    path("source/panel/", views.source_panel, name="source-panel"),
    path("preferences/", views.preference_add, name="preference-add"),
    path("preferences/<int:index>/remove/", views.preference_remove, name="preference-remove"),
]
