from django.urls import path

from review import views

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("count/", views.count, name="count"),
    path("items/<uuid:public_id>/decision/", views.decide, name="item-decide"),
]
