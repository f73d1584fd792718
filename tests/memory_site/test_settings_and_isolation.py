from __future__ import annotations

import pytest

from accounts import services
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def test_settings_update_through_the_api(api):
    response = api.put("/settings", {"display_name": "Alice E.", "timezone": "Asia/Kolkata"})
    assert response.status_code == 200
    assert api.get("/settings").json() == {"username": "alice", "display_name": "Alice E.", "timezone": "Asia/Kolkata"}


def test_unknown_timezone_is_a_422_with_a_message(api):
    response = api.put("/settings", {"timezone": "Mars/Olympus"})
    assert response.status_code == 422
    assert "Mars/Olympus" in response.json()["detail"]


def test_malformed_json_is_rejected_with_a_message(api):
    response = api.client.put(
        "/api/v1/settings", "{not json", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {api.token}"
    )
    assert response.status_code in (400, 422)
    assert response.json()["detail"]


def test_settings_page_saves_and_rejects_bad_input(auth_client, user):
    ok = auth_client.post("/settings/", {"display_name": "Al", "timezone": "America/Chicago"}, HTTP_HX_REQUEST="true")
    assert ok.status_code == 200
    assert services.get_settings(user).timezone == "America/Chicago"
    bad = auth_client.post("/settings/", {"display_name": "Al", "timezone": "Nope/Nope"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 422
    assert services.get_settings(user).timezone == "America/Chicago"


def test_user_b_cannot_revoke_user_a_token(client, user, other_user):
    token, plain = services.create_token(owner=user, name="a")
    client.force_login(other_user)
    response = client.post(f"/settings/tokens/{token.public_id}/revoke/")
    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_user_b_sees_only_their_own_settings_and_tokens(api, other_api, user, other_user):
    api.put("/settings", {"display_name": "Alice Secret"})
    assert other_api.get("/settings").json()["display_name"] != "Alice Secret"
    assert ApiToken.objects.owned_by(other_user).filter(owner=user).count() == 0


def test_pages_require_login(client):
    for url in ["/", "/settings/", "/transcripts/", "/timeline/", "/review/", "/memory/", "/sources/"]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert "/login/" in response["Location"]


def test_dashboard_counts_only_my_memories(auth_client, user, other_user):
    from tests.factories import FactFactory

    FactFactory(owner=user, content="Alice grows tomatoes", status="accepted")
    FactFactory(owner=user, content="Alice might own a kayak", pending=True)
    FactFactory(owner=other_user, content="Bob plays chess", status="accepted")
    summary = auth_client.get("/").context["summary"]
    assert (summary["memories_accepted"], summary["memories_waiting"]) == (1, 1)
