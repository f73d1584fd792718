from django.urls import path

from chats import views

app_name = "chats"

urlpatterns = [
    path("", views.chats_page, name="chats"),
    path("report.md", views.report_markdown_view, name="report-markdown"),
    path("upload/", views.upload, name="upload"),
]
