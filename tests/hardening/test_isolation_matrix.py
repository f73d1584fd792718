"""Owner isolation, generated: every API operation in the OpenAPI document and every page route in the URL
conf is called as user B with every id user A's own responses revealed. B never sees A's marker text, never
gets a 2xx on A's objects, and A's memory is unchanged afterwards. A new route is covered without a new test."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.test import Client

from tests.factories import ConversationFactory, EvidenceInFactory, FactFactory, UtteranceFactory
from tests.hardening.test_security import _walk

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MARKER = "zqxalicesecret"
ID_KEYS = re.compile(r"(^|_)(id|key|public_id|pk)$")
SNAPSHOT = [
    "/ledger/head",
    "/ledger/facts?limit=500",
    "/ledger/identity",
    "/wearables/corrections",
    "/wearables/redaction-rules",
    "/review/items?limit=200",
]


def _seed(user, api) -> None:
    """A's memory through A's own API and the ledger services: facts, a refusal, identity, transcript, chat."""
    FactFactory(owner=user, content=f"I keep my {MARKER} spare key under the mat")
    FactFactory(
        owner=user,
        content=f"{MARKER} pending claim about Priya",
        pending=True,
        evidence=[EvidenceInFactory(quote=f"quote {MARKER}")],
    )
    rejected = FactFactory(owner=user, content=f"{MARKER} rejected claim", pending=True)
    api.post(f"/ledger/facts/{rejected.public_id}/decision", {"status": "rejected", "reason": "wrong"})
    api.put("/ledger/identity", {"key": f"home/{MARKER}", "value": MARKER})
    api.post("/wearables/corrections", {"wrong": f"{MARKER}x", "right": MARKER})
    api.post("/wearables/redaction-rules", {"pattern": f"{MARKER}\\d+", "description": MARKER})
    UtteranceFactory(conversation=ConversationFactory(transcript__source__owner=user), text=f"said {MARKER}")
    api.post(
        "/chats/conversations",
        {
            "external_id": f"chat-{MARKER}",
            "title": MARKER,
            "started_at": "2026-06-08T10:00:00Z",
            "participants": [{"name": "Alice", "is_owner": True}],
            "turns": [{"speaker": "Alice", "text": f"My {MARKER} is blue"}],
        },
    )


def _harvest(value, found: set) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if ID_KEYS.search(str(key)) and isinstance(item, str | int) and not isinstance(item, bool):
                found.add(str(item))
            _harvest(item, found)
    elif isinstance(value, list):
        for item in value:
            _harvest(item, found)


def _operations(client) -> list[tuple[str, str]]:
    spec = client.get("/api/v1/openapi.json").json()
    return [(method.upper(), path) for path, ops in spec["paths"].items() for method in ops]


def _a_ids(api, operations) -> list[str]:
    found: set[str] = set()
    for method, path in operations:
        if method == "GET" and "{" not in path:
            response = api.client.get(path, HTTP_AUTHORIZATION=f"Bearer {api.token}")
            if response.status_code == 200 and "json" in response["Content-Type"]:
                _harvest(response.json(), found)
    return sorted(found)


def _leaks(response, asked: str) -> bool:
    """A's marker in B's response, not counting an echo of the value B itself put in the URL."""
    content = response.content
    for echo in (asked, json.dumps(asked)[1:-1]):
        if echo:
            content = content.replace(echo.encode(), b"")
    return MARKER.encode() in content


VOLATILE = {"priority", "age", "age_days", "waiting_since", "last_used_at", "latency_ms"}  # move with the clock


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _snapshot(api) -> dict:
    return {path: json.dumps(_stable(api.get(path).json()), sort_keys=True).encode() for path in SNAPSHOT}


# PUTs keyed by a name in the caller's own namespace: B writing "sources/limitless" or a policy for a source key
# creates B's own row (A's snapshot below must stay unchanged), so a 200 there is no reach into A's data.
OWN_NAMESPACE_UPSERTS = {
    ("PUT", "/api/v1/wearables/sources/{source}"),
    ("PUT", "/api/v1/distill/policies/{source_key}"),
}


def _call(client, method: str, url: str, headers: dict):
    body = json.dumps({"status": "accepted", "decision": "accept", "name": "x", "label": "0", "value": "x"})
    return client.generic(method, url, body, content_type="application/json", **headers)


def test_user_b_can_reach_nothing_of_user_a_on_any_api_route(client, user, api, other_api):
    _seed(user, api)
    operations = _operations(client)
    assert len(operations) > 40
    ids = _a_ids(api, operations)
    assert len(ids) >= 8, ids  # facts, refusal, identity key, correction, rule, conversations…
    before = _snapshot(api)
    assert MARKER.encode() in before["/ledger/facts?limit=500"]
    b_headers = {"HTTP_AUTHORIZATION": f"Bearer {other_api.token}"}
    calls = 0
    for method, path in operations:
        names = re.findall(r"{(\w+)}", path)
        fills = [("", path)] if not names else [(v, re.sub(r"{\w+}", v, path)) for v in ids + [str(uuid.uuid4())]]
        for value, url in fills:
            response = _call(other_api.client, method, url, b_headers)
            calls += 1
            assert response.status_code != 500, (method, url, response.content[:200])
            assert not _leaks(response, value), (method, url, response.content[:300])
            if names and url != path:
                assert response.status_code >= 400 or (method, path) in OWN_NAMESPACE_UPSERTS, (method, url)
    assert calls > 100
    after = _snapshot(api)
    assert {k: after[k][:400] for k in after if after[k] != before[k]} == {}


def test_user_b_can_reach_nothing_of_user_a_on_any_page(client, user, api, other_user):
    _seed(user, api)
    ids = _a_ids(api, _operations(client))
    before = _snapshot(api)
    browser = Client()
    browser.force_login(other_user)
    routes = [
        route
        for route, _view in _walk(__import__("django.urls").urls.get_resolver().url_patterns)
        if not route.startswith(("api/", "admin/")) and "(?P" not in route
    ]
    assert len(routes) > 15
    for route in routes:
        names = re.findall(r"<(?:\w+:)?(\w+)>", route)
        pattern = "/" + route
        values = [v for v in ids if re.fullmatch(r"[\w-]+", v)]
        fills = [("", pattern)] if not names else [(v, re.sub(r"<[^>]+>", v, pattern)) for v in values]
        for value, url in fills:
            for method in ("GET", "POST"):
                response = browser.generic(method, url, "x=1", content_type="application/x-www-form-urlencoded")
                assert response.status_code != 500, (method, url)
                assert not _leaks(response, value), (method, url, response.content[:300])
    after = _snapshot(api)
    assert {k: after[k][:400] for k in after if after[k] != before[k]} == {}
