"""The Chats page: sessions by day with episodes, lessons with strength and history, the morning report,
the upload (HTML form), and a headless-browser walk through it."""

from __future__ import annotations

from pathlib import Path

import pytest

from chats.models import ChatSession
from chats.services import sleep
from chats.services.imports import import_path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chats"


@pytest.fixture
def imported(user):
    import_path(owner=user, path=FIXTURES / "claude-code", fmt="claude-code")
    sleep.sleep(owner=user)
    return user


@pytest.mark.django_db
def test_the_page_shows_sessions_episodes_lessons_and_the_report(auth_client, imported):
    r = auth_client.get("/chats/")
    html = r.content.decode()
    assert r.status_code == 200
    assert "Add healthcheck endpoint" in html  # session title
    assert "Asked: Add a /health endpoint" in html  # its episode gist
    assert "pip with requirements.txt" in html  # a lesson
    assert "strength 0.60" in html
    assert "Morning report" in html and "Learned" in html


@pytest.mark.django_db
def test_the_page_counts_private_spans_and_names_projects_and_subagents(auth_client, imported, user):
    from chats.services.ingest import ingest

    ingest(owner=user, agent_id="a", conversation_id="c-priv", turns=[{"user": "Hi <private>door 4417</private>"}])
    html = auth_client.get("/chats/").content.decode()
    assert "1 span so far (ingest 1)" in html and "4417" not in html
    assert "project shop" in html and "subagent of" in html


@pytest.mark.django_db
def test_the_report_as_markdown(auth_client, imported):
    r = auth_client.get("/chats/report.md")
    assert r["Content-Type"].startswith("text/markdown")
    assert r.content.decode().startswith("# Morning report") and "## Learned" in r.content.decode()


@pytest.mark.django_db
def test_upload_imports_a_file_and_bad_uploads_are_422(auth_client, user):
    with (FIXTURES / "chatgpt-conversations.json").open("rb") as f:
        r = auth_client.post("/chats/upload/", {"format": "openai", "file": f})
    assert r.status_code == 200 and "1 session imported" in r.content.decode()
    assert ChatSession.objects.filter(owner=user, source_key="chat:openai").count() == 1
    with (FIXTURES / "chatgpt-conversations.json").open("rb") as f:
        r = auth_client.post("/chats/upload/", {"format": "openai", "file": f}, HTTP_HX_REQUEST="true")
    assert "1 unchanged" in r.content.decode()
    assert auth_client.post("/chats/upload/", {"format": "nope"}).status_code == 422


@pytest.mark.django_db
def test_the_page_needs_a_login_and_shows_only_the_owners_sessions(imported, other_user):
    from django.test import Client

    client = Client()
    assert client.get("/chats/").status_code == 302
    client.force_login(other_user)
    assert "Add healthcheck endpoint" not in client.get("/chats/").content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_browser_walks_the_chats_page_and_uploads_an_export(logged_in_page, imported):
    page = logged_in_page
    page.click("nav >> text=Chats")
    page.wait_for_url("**/chats/")
    assert page.locator("#chats-sessions").get_by_text("Add healthcheck endpoint", exact=True).is_visible()
    assert page.locator("#chats-sessions").get_by_text("subagent of").first.is_visible()
    page.locator("#chats-lessons details summary").first.click()
    assert page.locator("#chats-lessons details li").first.is_visible()
    page.select_option("select[name=format]", "anthropic")
    page.set_input_files("input[name=file]", str(FIXTURES / "claude-conversations.json"))
    page.click("#chats-upload button[type=submit]")
    # the status line itself: the page's live region repeats it for screen readers a moment later
    page.get_by_role("status").get_by_text("1 session imported").wait_for()
