"""While PostgreSQL is away (restarting, unreachable) a request is answered at once with 503 and ``Retry-After``:
never a 500, never a hang. The database is made unreachable for real: the connection is pointed at a socket
directory where no server listens, as it is for the seconds a restart takes."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import RequestFactory

from memory_site.middleware import RETRY_AFTER_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def database_away(tmp_path):
    """Every new connection of this process fails as it does while the server is down (no socket to connect to)."""
    saved = connection.settings_dict["HOST"]
    connection.close()
    connection.settings_dict["HOST"] = str(tmp_path / "no-server-here")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["HOST"] = saved


def test_api_request_while_the_database_is_away_answers_503_json_with_retry_after(api, tmp_path):
    with database_away(tmp_path):
        started = time.monotonic()
        response = api.get("/ledger/facts")
        took = time.monotonic() - started

    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "database is unavailable" in response.json()["detail"]
    assert took < 10  # answered, not hung
    assert api.get("/ledger/facts").status_code == 200  # and served again once it is back


def test_write_while_the_database_is_away_answers_503_and_the_retry_lands_once(api, user, tmp_path):
    body = {"agent_id": "t", "conversation_id": "retry-1", "turns": [{"user": "I keep bees.", "assistant": "Ok"}]}
    with database_away(tmp_path):
        refused = api.post("/memory/ingest", body)
    again = api.post("/memory/ingest", body)

    assert refused.status_code == 503 and refused["Retry-After"]
    assert again.status_code == 200
    from chats.models import ChatTurn

    assert ChatTurn.objects.filter(owner=user, text="I keep bees.").count() == 1


def test_page_while_the_database_is_away_answers_503_with_a_page(auth_client, tmp_path):
    with database_away(tmp_path):
        response = auth_client.get("/")

    assert response.status_code == 503 and response["Retry-After"]
    assert b"database is unavailable" in response.content and b"<html" in response.content


def test_an_exception_outside_any_view_while_the_database_is_away_is_503_too(tmp_path):
    """A middleware that reads the database (the session, the login throttle) fails before any view: Django's
    ``handler500`` answers it, and it names a lost database the same way."""
    from memory_site.views import server_error

    request = RequestFactory().get("/api/v1/ledger/facts")
    with database_away(tmp_path):
        try:
            connection.ensure_connection()
        except Exception:  # noqa: BLE001 - the real error of an unreachable server, raised and handled here
            assert sys.exc_info()[1] is not None
            response = server_error(request)
    assert response.status_code == 503 and response["Retry-After"] == str(RETRY_AFTER_SECONDS)


def test_any_other_server_error_is_still_a_plain_500(rf):
    from memory_site.views import server_error

    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        response = server_error(rf.get("/"))
    assert response.status_code == 500 and not response.has_header("Retry-After")
