from django.urls import path

from review import views

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("stats/", views.stats, name="stats"),
    path("badge/", views.badge, name="badge"),
    path("count/", views.count, name="count"),
    path("undo/", views.undo, name="undo"),
    path("bulk/", views.bulk, name="bulk"),
    path("budget/", views.budget, name="budget"),
    path("refused/", views.refused, name="refused"),
    path("learning/refit/", views.learning_refit, name="learning-refit"),
    path("items/<uuid:public_id>/action/", views.item_action, name="item-action"),
    path("items/<uuid:public_id>/merge-options/", views.merge_options, name="merge-options"),
]
