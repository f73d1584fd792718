from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("", views.memory, name="memory"),
    path("facts/<uuid:fact_id>/", views.fact_detail, name="fact"),
    path("facts/<uuid:fact_id>/decision/", views.fact_decision, name="fact-decision"),
    path("facts/<uuid:fact_id>/forget/", views.fact_forget, name="fact-forget"),
    path("refusals/", views.refusals, name="refusals"),
    path("refusals/<uuid:refusal_id>/lift/", views.refusal_lift, name="refusal-lift"),
    path("people/", views.people, name="people"),
    path("people/<uuid:entity_id>/forget/", views.person_forget, name="person-forget"),
    path("identity/", views.identity_save, name="identity-save"),
    path("identity/narrative/", views.identity_narrative, name="identity-narrative"),
    path("identity/<path:key>/delete/", views.identity_delete, name="identity-delete"),
]
