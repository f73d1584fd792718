"""Bad input answered at the shared layer: NUL bytes, sizes, bounds, non-object bodies, the auth answer, links."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import UserSettings
from ledger.models import IdentityOverride
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db


def _detail(response) -> str:
    assert "json" in response["Content-Type"], response.content[:200]
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    return body["detail"]


def test_rejects_nul_in_a_json_string_field_with_400_and_stores_nothing(api, user):
    response = api.put("/settings", {"display_name": "Alice\u0000Evil"})
    assert response.status_code == 400
    assert "NUL" in _detail(response)
    assert UserSettings.objects.get(user=user).display_name == "Alice Example"


def test_rejects_nul_in_a_json_key_and_deep_in_a_list(api):
    assert api.post("/ledger/commits", {"mutations": [{"op": "x", "a\u0000": 1}]}).status_code == 400
    assert api.post("/memory/recall", {"query": ["ok", {"q": "x\u0000"}]}).status_code == 400


@pytest.mark.parametrize(
    "path",
    [
        "/ledger/facts?subject=a%00b",
        "/wearables/transcripts/search?q=%00",
        "/memory/search?q=tea%00",
        "/settings?x%00=1",
    ],
)
def test_rejects_nul_in_any_query_parameter_with_400_json(api, path):
    response = api.get(path)
    assert response.status_code == 400
    assert "NUL" in _detail(response)


def test_rejects_nul_in_an_html_form_with_a_400_page(auth_client, user):
    response = auth_client.post("/settings/", {"display_name": "Al\x00ice", "timezone": "UTC"})
    assert response.status_code == 400
    assert b"Request refused" in response.content and b"NUL" in response.content
    assert UserSettings.objects.get(user=user).display_name == "Alice Example"


def test_a_5_mb_json_body_answers_413_on_every_body_route(api):
    big = json.dumps({"display_name": "x" * (5 * 1024 * 1024)})
    for path in ["/settings", "/ledger/commits", "/memory/recall", "/review/decide", "/wearables/settings"]:
        response = api.client.generic(
            "PUT" if path in ("/settings", "/wearables/settings") else "POST",
            "/api/v1" + path,
            big,
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 413, path
        assert "too large" in _detail(response)


def test_an_oversized_field_answers_422(api):
    response = api.post("/memory/recall", {"query": "q" * 250_000})
    assert response.status_code == 422
    assert "too long" in _detail(response)


def test_a_100k_character_query_string_answers_414(api):
    response = api.get("/wearables/transcripts/search", {"q": "word " * 20_000})
    assert response.status_code == 414
    assert "too long" in _detail(response)


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01", "0000-01-01", "99999-01-01", "yesterday"])
def test_impossible_dates_answer_422(api, value):
    response = api.get("/wearables/transcript", {"date": value})
    assert response.status_code == 422, response.content[:300]
    _detail(response)


@pytest.mark.parametrize("param", [{"offset": 10**12}, {"offset": -1}, {"limit": 10**9}, {"limit": 0}])
def test_paging_parameters_are_bounded(api, param):
    response = api.get("/ledger/facts", param)
    assert response.status_code == 422
    _detail(response)


@pytest.mark.parametrize("body", ["[]", "42", "null", '"text"'])
def test_settings_put_rejects_a_body_that_is_not_an_object(api, user, body):
    response = api.client.put(
        "/api/v1/settings", body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {api.token}"
    )
    assert response.status_code == 422, (body, response.content)
    _detail(response)
    assert UserSettings.objects.get(user=user).display_name == "Alice Example"


@pytest.mark.parametrize(
    "method,path",
    [("put", "/settings"), ("post", "/ledger/commits"), ("post", "/memory/recall"), ("delete", "/ledger/identity/k")],
)
def test_writes_without_a_valid_token_answer_401_json_not_a_csrf_403(method, path, db):
    client = Client(enforce_csrf_checks=True)
    for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer alm_not-a-token"}):
        response = getattr(client, method)("/api/v1" + path, "{}", content_type="application/json", **headers)
        assert response.status_code == 401, (path, headers, response.content)
        assert "Authentication required" in _detail(response)


def test_a_logged_in_browser_still_needs_csrf_on_api_writes(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.put("/api/v1/settings", "{}", content_type="application/json")
    assert response.status_code == 403


def test_sources_form_applies_the_api_url_limit(auth_client):
    long_url = "https://example.test/" + "a" * 100_000
    response = auth_client.post("/sources/limitless/", {"base_url": long_url}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert b"too long" in response.content
    page = auth_client.get("/sources/")
    assert page.status_code == 200 and long_url.encode() not in page.content


def test_sources_api_applies_the_same_url_limit(api):
    response = api.put("/wearables/sources/limitless", {"base_url": "https://example.test/" + "a" * 600})
    assert response.status_code == 422


def test_identity_key_with_a_slash_keeps_the_memory_page_working(auth_client, user, api):
    assert api.put("/ledger/identity", {"key": "home/city", "value": "Lisbon"}).status_code == 200
    page = auth_client.get("/memory/")
    assert page.status_code == 200 and b"home/city" in page.content
    deleted = auth_client.post("/memory/identity/home/city/delete/")
    assert deleted.status_code in (200, 302)
    assert not IdentityOverride.objects.filter(owner=user, key="home/city").exists()


def test_identity_key_with_a_slash_can_be_deleted_over_the_api(api, user):
    api.put("/ledger/identity", {"key": "a/b", "value": "c"})
    assert api.delete("/ledger/identity/a/b").status_code == 204
    assert not IdentityOverride.objects.filter(owner=user, key="a/b").exists()


@pytest.mark.parametrize(
    "url", ["//elsewhere.test/x", "/\\elsewhere.test", "https://elsewhere.test/", "/\tjavascript:x"]
)
def test_evidence_urls_off_site_render_as_text_not_links(auth_client, user, url):
    fact = FactFactory(owner=user, content="I like green tea", evidence=[EvidenceInFactory(source_ref={"url": url})])
    page = auth_client.get(f"/memory/facts/{fact.public_id}/")
    assert page.status_code == 200
    assert b"elsewhere" not in page.content.split(b"<main")[1] or f'href="{url}"'.encode() not in page.content
    assert f'href="{url}"'.encode() not in page.content


def test_same_site_evidence_urls_stay_links(auth_client, user):
    fact = FactFactory(
        owner=user, content="I like oolong", evidence=[EvidenceInFactory(source_ref={"url": "/transcripts/?t=1"})]
    )
    page = auth_client.get(f"/memory/facts/{fact.public_id}/")
    assert b'href="/transcripts/?t=1"' in page.content
