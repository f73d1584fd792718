from __future__ import annotations

import io
import json

import pytest

from ledger.models import Fact
from memory_site import services
from memory_site.management.commands.mcp import Command as McpCommand
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def rpc(client, token, method, params=None, msg_id=1):
    body = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}}
    return client.post("/mcp", json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def token(user):
    return services.create_token(owner=user, name="agent")[1]


def test_mcp_requires_a_bearer_token(client, user):
    response = client.post("/mcp", "{}", content_type="application/json")
    assert response.status_code == 401


def test_initialize_and_list_tools(client, token):
    init = rpc(client, token, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}).json()
    assert init["result"]["protocolVersion"] == "2025-06-18"
    assert "tools" in init["result"]["capabilities"]
    names = [t["name"] for t in rpc(client, token, "tools/list").json()["result"]["tools"]]
    assert names == ["recall", "search_memory", "remember"]


def test_remember_goes_to_review_not_straight_to_memory(client, token, user):
    result = rpc(
        client, token, "tools/call", {"name": "remember", "arguments": {"content": "Alice prefers aisle seats"}}
    )
    data = result.json()["result"]["structuredContent"]
    assert data["outcome"] == "admitted"
    fact = Fact.objects.owned_by(user).get(public_id=data["id"])
    assert fact.status == "pending_review"
    assert fact.source_label == "agent:http"


def test_recall_returns_a_policy_checked_block(client, token, user):
    FactFactory(owner=user, content="Alice's sister Jo lives in Bristol", status="accepted")
    FactFactory(owner=user, content="Alice's sister Jo is a dragon tamer", status="rejected")
    result = rpc(
        client, token, "tools/call", {"name": "recall", "arguments": {"query": "what does Jo do", "scope": "all"}}
    )
    body = result.json()["result"]
    assert body["isError"] is False
    assert "dragon" not in body["content"][0]["text"]
    assert body["structuredContent"]["tokens"] <= 800


def test_bad_tool_input_is_a_tool_error_with_a_message(client, token):
    result = rpc(client, token, "tools/call", {"name": "recall", "arguments": {"query": "x", "budget_tokens": 5}})
    body = result.json()["result"]
    assert body["isError"] is True
    assert "budget_tokens" in body["content"][0]["text"]
    unknown = rpc(client, token, "tools/call", {"name": "delete_everything", "arguments": {}}).json()["result"]
    assert unknown["isError"] is True


def test_unknown_method_and_garbage_are_json_rpc_errors(client, token):
    assert rpc(client, token, "resources/list").json()["error"]["code"] == -32601
    garbage = client.post("/mcp", "{nope", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert garbage.status_code == 400
    assert garbage.json()["error"]["code"] == -32700


def test_stdio_transport_answers_line_by_line(user):
    FactFactory(owner=user, content="Alice keeps bees", status="accepted")
    stdin = io.StringIO(
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        + "\n"
        + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        + "\nnot json\n"
        + json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "search_memory", "arguments": {"query": "bees", "scope": "facts"}},
            }
        )
        + "\n"
    )
    stdout = io.StringIO()
    McpCommand().serve(user, stdin, stdout, "stdio")
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [r.get("id") for r in replies] == [1, None, 2]
    assert replies[1]["error"]["code"] == -32700
    texts = [i["text"] for i in replies[2]["result"]["structuredContent"]["items"]]
    assert any("bees" in t for t in texts)
