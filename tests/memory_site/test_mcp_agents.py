"""The MCP server as an agent meets it, through the official SDK client over stdio and Streamable HTTP:
refusals carry their reason, schemas are closed enums, unknown arguments are refused, the memory file and
today's digest are resources, "what do you know about X" is a prompt; GET /mcp is 405."""

from __future__ import annotations

import json

import pytest

from accounts import services
from ledger.services import layers
from tests.factories import FactFactory
from tests.memory_site.mcp_clients import over_http, over_stdio

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def memory(user):
    fact = FactFactory(owner=user, content="Alice tends a walled herb garden in Ghent", status="accepted")
    layers.pin_fact(owner=user, fact=fact, salience=0.9, pinned_by="test")
    return user


async def _exercise(client) -> dict:
    out: dict = {"tools": {t.name: t.input_schema for t in (await client.list_tools()).tools}}
    refusals = {}
    for name, args in (("recall", {"query": "   "}), ("transcript_day", {"date": "31/12/2026"}),
                       ("remember", {"content": "x" * 600}), ("search_memory", {"query": "herbs", "bogus": 1}),
                       ("recall", {"query": "herbs", "scope": "everything"})):  # fmt: skip
        result = await client.call_tool(name, args)
        refusals[f"{name}:{sorted(args)}:{args.get('scope', '')}"] = (result.is_error, result.content[0].text)
    out["refusals"] = refusals
    auto = await client.call_tool("search_memory", {"query": "herb garden", "scope": "auto"})
    out["auto"] = auto.structured_content or json.loads(auto.content[0].text)
    out["resources"] = sorted(str(r.uri) for r in (await client.list_resources()).resources)
    out["memory_file"] = (await client.read_resource("almanac://memory")).contents[0].text
    out["today"] = (await client.read_resource("almanac://digest/today")).contents[0].text
    out["prompts"] = [p.name for p in (await client.list_prompts()).prompts]
    prompt = await client.get_prompt("what_do_you_know", {"topic": "the herb garden"})
    out["prompt"] = prompt.messages[0].content.text
    return out


def _check(out: dict) -> None:
    for name, schema in out["tools"].items():
        assert schema.get("additionalProperties") is False, name
    assert out["tools"]["search_memory"]["properties"]["scope"]["enum"][0] == "auto"
    assert out["tools"]["remember"]["properties"]["importance"]["enum"] == ["low", "normal", "high"]
    reasons = list(out["refusals"].values())
    assert all(is_error for is_error, _ in reasons) and len(reasons) == 5
    texts = [t for _, t in reasons]
    assert "query must be a non-empty string" in texts[0]
    assert "date must be YYYY-MM-DD" in texts[1]
    assert "content" in texts[2] and "at most 500" in texts[2]
    assert "bogus: unknown argument" in texts[3]
    assert "scope" in texts[4]
    assert not any(t.strip() == "Error executing tool recall" for t in texts)
    assert any("herb garden" in i["text"] for i in out["auto"]["items"])
    assert out["resources"] == ["almanac://digest/today", "almanac://memory"]
    assert "walled herb garden" in out["memory_file"]
    assert out["today"].startswith("# ")
    assert out["prompts"] == ["what_do_you_know"]
    assert "herb garden" in out["prompt"] and "<almanac-context>" in out["prompt"]


def test_agent_surface_through_the_sdk_stdio_client(memory):
    out, _log = over_stdio("alice", _exercise)
    _check(out)


def test_agent_surface_over_streamable_http(memory, live_server):
    _check(over_http(memory, live_server, _exercise))


def test_get_mcp_is_405_because_the_server_does_not_stream(client, user):
    token = services.create_token(owner=user, name="agent")[1]
    response = client.get("/mcp", HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 405 and response["Allow"] == "POST, DELETE"
