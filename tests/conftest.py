"""Shared fixtures: users, logged-in clients, an API client with a bearer token, and headless Chromium."""

from __future__ import annotations

import io
import json
import os

import pytest

from tests.factories import PASSWORD, UserFactory

# Playwright's sync API runs an event loop in the test thread; Django's ORM refuses to run while one exists.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Test users are made and logged in thousands of times: production's PBKDF2 (a million rounds, 0.3 s a hash
    on 2 cores) spent a third of the suite's time on them. In-process tests hash with MD5; a server or worker the
    tests start as a subprocess keeps the production hasher, and makes its own users."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _same_fake_data_every_run(request):
    """Faker values depend on the test, not on which tests ran before it: a failure reproduces alone."""
    import factory.random

    factory.random.reseed_random(request.node.nodeid)


@pytest.fixture
def user(db):
    """A user with display name and timezone settings (UTC)."""
    from accounts import services

    u = UserFactory(username="alice")
    services.update_settings(user=u, display_name="Alice Example", timezone_name="UTC")
    return u


@pytest.fixture
def other_user(db):
    """A second user whose rows must never be visible to ``user``."""
    return UserFactory(username="bob")


@pytest.fixture
def auth_client(client, user):
    """Django test client logged in as ``user``."""
    client.force_login(user)
    return client


class ApiClient:
    """Calls /api/v1 with a bearer token; bodies are JSON."""

    def __init__(self, client, token: str | None):
        self.client = client
        self.token = token

    def _headers(self) -> dict:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str, params: dict | None = None):
        return self.client.get("/api/v1" + path, params or {}, **self._headers())

    def post(self, path: str, data=None):
        return self.client.post(
            "/api/v1" + path, json.dumps(data or {}), content_type="application/json", **self._headers()
        )

    def put(self, path: str, data=None):
        return self.client.put(
            "/api/v1" + path, json.dumps(data or {}), content_type="application/json", **self._headers()
        )

    def patch(self, path: str, data=None):
        return self.client.patch(
            "/api/v1" + path, json.dumps(data or {}), content_type="application/json", **self._headers()
        )

    def delete(self, path: str):
        return self.client.delete("/api/v1" + path, **self._headers())


def _api_for(client, owner) -> ApiClient:
    from accounts import services

    _, plain = services.create_token(owner=owner, name="test")
    return ApiClient(client, plain)


@pytest.fixture
def api(client, user) -> ApiClient:
    """API client authenticated as ``user`` with a fresh bearer token."""
    return _api_for(client, user)


@pytest.fixture
def other_api(db, other_user) -> ApiClient:
    """API client authenticated as ``other_user`` (its own Django client)."""
    from django.test import Client

    return _api_for(Client(), other_user)


# --- Browser -----------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the session (no browser download)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run 'make test', which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class PageProblems(list):
    """Console errors and failed responses seen by a page; the ``page`` fixture fails the test on any."""


@pytest.fixture
def page(browser, live_server):
    """A fresh browser page; any console error, page error or 4xx/5xx response fails the test."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1200, "height": 900})
    pg = context.new_page()
    problems = PageProblems()
    pg.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    pg.on("pageerror", lambda exc: problems.append(f"pageerror: {exc}"))
    pg.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status} {r.url}"))
    pg.problems = problems
    yield pg
    pg.goto("about:blank")  # stops the page's timers (HTMX polling) before the context goes
    context.close()
    _wait_for_live_requests_to_finish()
    assert not problems, "browser problems: " + "; ".join(problems)


def browser_login(pg, username: str, password: str = PASSWORD) -> None:
    pg.goto("/login/")
    pg.fill("input[name=username]", username)
    pg.fill("input[name=password]", password)
    pg.click("button[type=submit]")
    pg.wait_for_url(lambda url: "/login" not in url)


@pytest.fixture
def logged_in_page(page, user):
    """``page`` after logging in as ``user`` through the real login form."""
    browser_login(page, user.username)
    return page


# --- The demo in a browser (accessibility checks, screenshots) ----------------------------------------
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


class DemoSite:
    """The demo user's site as ``make up`` shows it, served by one live server for a whole test module."""

    def __init__(self, url: str, user, storage_state: dict):
        self.url = url
        self.user = user
        self.storage_state = storage_state  # cookies of a browser logged in as the demo user


def _seed_demo():
    """What ``manage.py up`` prepares (demo user, sources, a week of synced days, chats, screen work), with the
    background tasks it enqueues run inline, as the worker would run them. Returns (user, imitation servers)."""
    from django_q.conf import Conf

    from memory_site.management.commands.up import DEMO_USERNAME, Command

    previous, Conf.SYNC = Conf.SYNC, True
    try:
        handles = Command(stdout=io.StringIO())._prepare_demo()
    finally:
        Conf.SYNC = previous
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=DEMO_USERNAME), handles


@pytest.fixture(scope="module")
def demo_site(django_db_setup, django_db_blocker, browser):
    """One seeded demo database and one live server for the module (seeding takes a while); logged in once.
    Tests using it carry a plain ``django_db`` mark (so the test database exists); the seeded rows are committed
    here, stay for the whole module, and are flushed after it."""
    from django.core.management import call_command
    from django.db import connections
    from pytest_django.live_server_helper import LiveServer

    from memory_site.management.commands.up import DEMO_PASSWORD

    with django_db_blocker.unblock():
        handles, server = [], None
        try:
            user, handles = _seed_demo()
            server = LiveServer("localhost")
            server._live_server_modified_settings.enable()
            context = browser.new_context(base_url=server.url)
            browser_login(context.new_page(), user.username, DEMO_PASSWORD)
            state = context.storage_state()
            context.close()
            yield DemoSite(server.url, user, state)
        finally:
            if server is not None:
                server._live_server_modified_settings.disable()
                server.stop()
            for handle in handles:
                handle.stop()
            _wait_for_other_sessions_to_close()
            call_command("flush", interactive=False, verbosity=0)
            # The session that seeded and flushed is not the one the next module's tests get: left open, it
            # outlived the test database ("database is being accessed by other users" when pytest dropped it).
            connections.close_all()


def _wait_for_live_requests_to_finish(seconds: float = 5.0) -> None:
    """A request the browser sent just before its page closed is still being answered in a live-server thread;
    its open transaction would deadlock with the flush that ends a transactional test (CI, stop 29). Wait until
    no request thread is alive and no other database session is inside a statement or transaction (bounded)."""
    import threading
    import time

    from django.db import connection

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answering = any(t.name.endswith("(process_request_thread)") for t in threading.enumerate())
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state <> 'idle'"
            )
            busy_sessions = cursor.fetchone()[0]
        if not answering and not busy_sessions:
            return
        time.sleep(0.05)


def _wait_for_other_sessions_to_close(seconds: float = 5.0) -> None:
    """The live server answers in daemon threads; one still finishing a request when the server stopped holds a
    database session that would block the flush and the test database's teardown. Wait for it (bounded)."""
    import time

    from django.db import connection

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.1)


def screenshot(pg, name: str) -> None:
    """Write ``docs/img/<name>.png`` when ALMANAC_SCREENSHOTS=1 (so CI never rewrites the committed pictures)."""
    if os.environ.get("ALMANAC_SCREENSHOTS") != "1":
        return
    from django.conf import settings

    folder = settings.BASE_DIR / "docs" / "img"
    folder.mkdir(parents=True, exist_ok=True)
    pg.evaluate("window.scrollTo(0, 0)")  # focus moves may have scrolled; the pictures show the page's top
    pg.screenshot(path=str(folder / f"{name}.png"), full_page=False)
