"""Security at the shared layer: CSP on every page, no inline script, login throttling, token and session
expiry, CSRF on every browser POST (generated from the URL conf)."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from accounts import services
from accounts.models import ApiToken
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

TEMPLATE_DIRS = [Path(settings.BASE_DIR) / "templates"]
PAGES = ["/", "/settings/", "/memory/", "/review/", "/sources/", "/transcripts/", "/timeline/", "/login/"]


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.callback


def _concrete(route: str) -> str:
    """A URL for a route pattern: every <converter:name> filled with a plausible value."""
    route = re.sub(r"<uuid:\w+>", str(uuid.uuid4()), route)
    route = re.sub(r"<int:\w+>", "1", route)
    route = re.sub(r"<(?:str|slug|path):\w+>", "limitless", route)
    route = re.sub(r"<\w+>", "x", route)
    return "/" + route.lstrip("^").rstrip("$")


def browser_routes() -> list[tuple[str, object]]:
    """Every non-API, non-admin, non-static route of the URL conf, as a concrete URL."""
    routes = []
    for route, view in _walk(get_resolver().url_patterns):
        if route.startswith(("api/", "admin/")) or "(?P" in route:
            continue
        routes.append((_concrete(route), view))
    return routes


@pytest.mark.parametrize("path", PAGES)
def test_every_page_sends_a_content_security_policy_without_inline_script(auth_client, path):
    response = auth_client.get(path, follow=True)
    assert response.status_code == 200, path
    policy = response["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]+)", policy).group(1)
    assert "'self'" in script_src and "unsafe-inline" not in script_src and "unsafe-eval" not in script_src
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy


def test_templates_hold_no_inline_script_or_event_handler_attributes():
    templates = [p for d in TEMPLATE_DIRS for p in d.rglob("*.html")]
    assert len(templates) > 10
    offenders = []
    for path in templates:
        text = path.read_text()
        for match in re.finditer(r"<script\b[^>]*>", text):
            if "src=" not in match.group(0):
                offenders.append(f"{path}: inline <script>")
        if re.search(r"\son[a-z]+\s*=", text) or "hx-on" in text:
            offenders.append(f"{path}: event handler attribute")
    assert offenders == []


def test_every_browser_post_needs_a_csrf_token(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    routes = browser_routes()
    assert len(routes) > 15
    checked = 0
    for url, view in routes:
        if getattr(view, "csrf_exempt", False):
            # Agent endpoints (MCP, the memory proxy) are CSRF-exempt because they take bearer tokens only.
            response = Client().post(url, "{}", content_type="application/json")
            assert response.status_code in (401, 403, 404, 405), (url, response.status_code)
            continue
        response = client.post(url, {"x": "1"})
        assert response.status_code in (403, 405), (url, response.status_code)
        checked += response.status_code == 403
    assert checked > 10


def test_login_is_locked_after_repeated_wrong_passwords(db):
    UserFactory(username="carol")
    client = Client()
    statuses = [
        client.post("/login/", {"username": "carol", "password": "wrong-password"}).status_code
        for _ in range(settings.AXES_FAILURE_LIMIT + 2)
    ]
    assert statuses[0] == 200  # the form again, with an error
    assert statuses[-1] in (403, 429), statuses
    # Locked out: even the right password is refused for now.
    locked = client.post("/login/", {"username": "carol", "password": PASSWORD})
    assert locked.status_code in (403, 429)
    assert "_auth_user_id" not in client.session
    # Another account from the same address is not locked.
    UserFactory(username="dave")
    other = Client().post("/login/", {"username": "dave", "password": PASSWORD})
    assert other.status_code == 302


def test_an_idle_token_stops_working(user, client, settings):
    settings.ALMANAC_TOKEN_IDLE_DAYS = 30
    _, plain = services.create_token(owner=user, name="old")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plain}"}
    assert client.get("/api/v1/settings", **auth).status_code == 200
    ApiToken.objects.filter(owner=user).update(last_used_at=timezone.now() - timedelta(days=31))
    response = client.get("/api/v1/settings", **auth)
    assert response.status_code == 401


def test_a_token_past_its_maximum_age_stops_working(user, client, settings):
    settings.ALMANAC_TOKEN_MAX_AGE_DAYS = 7
    _, plain = services.create_token(owner=user, name="aged")
    ApiToken.objects.filter(owner=user).update(created_at=timezone.now() - timedelta(days=8))
    assert client.get("/api/v1/settings", HTTP_AUTHORIZATION=f"Bearer {plain}").status_code == 401


def test_sessions_expire_and_cookies_are_not_readable_by_script():
    assert 0 < settings.SESSION_COOKIE_AGE <= 60 * 86400
    assert settings.SESSION_COOKIE_HTTPONLY and settings.SESSION_COOKIE_SAMESITE == "Lax"
