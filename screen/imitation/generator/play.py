"""Playing a generated session as a new user would: set the name and time zone, point the source at a local
ScreenPipe imitation serving the session, and press "Collect now" (``POST /api/v1/screen/collect``) at each of
the session's collect moments, with the clock moved there (``time-machine``, a development dependency).

``api`` is any client with ``get``/``put``/``post(path, data)`` under ``/api/v1`` answering Django test
responses (the tests' ``ApiClient``; ``api_client`` below builds one for the bench).
"""

from __future__ import annotations

import json

from screen.imitation.generator.check import Verdict, judge, observe
from screen.imitation.generator.model import GeneratedSession
from screen.imitation.scripts import build
from screen.imitation.server import ScreenPipeImitation


class ApiClient:
    """``/api/v1`` with a bearer token through Django's test client (bodies are JSON)."""

    def __init__(self, client, token: str):
        self.client, self.headers = client, {"HTTP_AUTHORIZATION": f"Bearer {token}"}

    def get(self, path: str):
        return self.client.get("/api/v1" + path, **self.headers)

    def put(self, path: str, data: dict | None = None):
        body = json.dumps(data or {})
        return self.client.put("/api/v1" + path, body, content_type="application/json", **self.headers)

    def post(self, path: str, data: dict | None = None):
        body = json.dumps(data or {})
        return self.client.post("/api/v1" + path, body, content_type="application/json", **self.headers)


def api_client(user) -> ApiClient:
    from django.test import Client

    from accounts.services import create_token

    _, token = create_token(owner=user, name="generated sessions")
    return ApiClient(Client(), token)


def _ok(resp, what: str) -> dict:
    if resp.status_code != 200:
        raise AssertionError(f"{what} answered {resp.status_code}: {resp.content[:300]!r}")
    return resp.json()


def play(session: GeneratedSession, api) -> list[dict]:
    """Collect the session in its phases through the API; returns the events the API then lists, in full."""
    import time_machine

    _ok(api.put("/settings", {"display_name": session.display_name, "timezone": session.tz}), "PUT settings")
    server = ScreenPipeImitation(build(session.start, session.segments), now=session.collects[0]).start()
    try:
        _ok(api.put("/screen/source", {"base_url": server.base_url, "backfill_days": 3}), "PUT source")
        for at in session.collects:
            server.now = at
            with time_machine.travel(at, tick=False):
                _ok(api.post("/screen/collect"), "POST collect")
    finally:
        server.stop()
    return observe(session, api)


def play_and_judge(session: GeneratedSession, api) -> Verdict:
    return judge(session, play(session, api))
