from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts import services
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def test_settings_api_requires_a_token(client, user):
    response = client.get("/api/v1/settings")
    assert response.status_code == 401
    assert "Bearer" in response.json()["detail"]


def test_wrong_token_is_rejected(client, user):
    response = client.get("/api/v1/settings", HTTP_AUTHORIZATION="Bearer alm_not-a-real-token")
    assert response.status_code == 401


def test_valid_token_authenticates_its_owner(api):
    response = api.get("/settings")
    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_revoked_token_stops_working(api, user):
    token = ApiToken.objects.owned_by(user).get()
    services.revoke_token(token=token)
    assert api.get("/settings").status_code == 401


def test_tokens_are_stored_hashed(user):
    _, plain = services.create_token(owner=user, name="agent")
    row = ApiToken.objects.get(owner=user)
    assert plain not in (row.token_hash, row.prefix)
    assert row.token_hash == services.hash_token(plain)


def test_cli_creates_a_usable_token(client, user, capsys):
    call_command("tokens", "create", "alice", "--name", "cli-agent")
    plain = capsys.readouterr().out.strip()
    assert plain.startswith("alm_")
    response = client.get("/api/v1/settings", HTTP_AUTHORIZATION=f"Bearer {plain}")
    assert response.status_code == 200
    assert ApiToken.objects.get(owner=user).name == "cli-agent"


def test_cli_rejects_an_unknown_user():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No such user"):
        call_command("tokens", "create", "nobody")


def test_token_page_creates_and_shows_token_once(auth_client, user):
    response = auth_client.post("/settings/tokens/", {"name": "laptop"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    token = ApiToken.objects.owned_by(user).get()
    assert token.prefix in response.content.decode()
    again = auth_client.get("/settings/")
    assert "New token" not in again.content.decode()
