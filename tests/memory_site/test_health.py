from __future__ import annotations

import pytest
from django.core.management import call_command
from django_q.models import Schedule

pytestmark = pytest.mark.django_db


def test_health_needs_no_auth_and_reports_the_database(client):
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["postgresql"].startswith(("16", "17", "18"))
    assert body["database"]["pgvector"].startswith("0.")
    assert set(body["worker"]) >= {"alive", "heartbeat_age_s"}
    assert body["tasks"]["pending"] == 0


def test_unexpected_errors_do_not_leak_details(client, settings, monkeypatch):
    from memory_site import health

    def boom():
        raise RuntimeError("secret connection string postgres://user:hunter2@db")

    monkeypatch.setattr(health, "health", boom)
    settings.DEBUG = False
    response = client.get("/api/v1/health")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error"}
    assert "hunter2" not in response.content.decode()


def test_unknown_api_path_is_a_json_404(api):
    response = api.get("/no-such-thing")
    assert response.status_code == 404


def test_schedule_sync_is_idempotent():
    call_command("sync_schedules")
    first = Schedule.objects.count()
    call_command("sync_schedules")
    assert Schedule.objects.count() == first >= 1
    assert Schedule.objects.filter(name="system-heartbeat").exists()


def test_openapi_docs_are_served(client):
    assert client.get("/api/v1/openapi.json").status_code == 200
    assert client.get("/api/v1/docs").status_code == 200


def test_a_heartbeat_seen_moments_ago_still_counts_when_the_stat_lapsed(client):
    from datetime import timedelta

    from django.core.cache import cache
    from django.utils import timezone

    from memory_site.health import LAST_SEEN_KEY

    assert client.get("/api/v1/health").json()["worker"]["alive"] is False
    cache.set(LAST_SEEN_KEY, timezone.now() - timedelta(seconds=5), 60)
    worker = client.get("/api/v1/health").json()["worker"]
    assert worker["alive"] is True and 4 <= worker["heartbeat_age_s"] < 30
    cache.set(LAST_SEEN_KEY, timezone.now() - timedelta(minutes=5), 60)
    assert client.get("/api/v1/health").json()["worker"]["alive"] is False
