"""MCP errors keep their reason, for every tool and prompt, through the official SDK client over stdio and
Streamable HTTP: a bad prompt request is a JSON-RPC "invalid params" error saying what is wrong (no "Error
rendering prompt", no traceback in the server's log); every string argument has a limit an agent can read in the
schema and gets a tool error naming it when crossed (4,000 characters for any query, ``lessons`` included); an
enum-checked ``source`` names its allowed values; an argument over the site's 200,000-character field limit is a
JSON-RPC error over HTTP, not an HTTP 422 the client cannot read."""

from __future__ import annotations

import logging

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from memory_site import mcp
from tests.memory_site.mcp_clients import error_text, over_http, over_stdio

pytestmark = pytest.mark.django_db(transaction=True)

# The smallest valid arguments of every tool; the test fails when a tool is added without a line here.
VALID = {
    "recall": {"query": "beehives"},
    "search_memory": {"query": "beehives"},
    "search_hits": {"query": "beehives"},
    "expand_hits": {"ids": ["fact:00000000-0000-0000-0000-000000000000"]},
    "remember": {"content": "Alice keeps two beehives"},
    "transcript_day": {"date": "2026-11-24"},
    "transcript_search": {"query": "beehives"},
    "review_queue": {},
    "lessons": {},
    "events_timeline": {"date": "2026-11-24"},
}


async def _prompt_error(client, name: str, arguments: dict) -> tuple[int, str]:
    try:
        await client.get_prompt(name, arguments)
    except MCPError as exc:
        return exc.code, exc.message
    raise AssertionError(f"{name} {sorted(arguments)} rendered")


def _string_fields(schema: dict):
    """(argument, its schema) for every string argument, array items included."""
    for name, spec in schema.get("properties", {}).items():
        for option in spec.get("anyOf", [spec]):
            if option.get("type") == "string":
                yield name, option
            if option.get("type") == "array":
                yield f"{name}[]", option.get("items", {})


async def _exercise(client, *, huge: int) -> dict:
    tools = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    out: dict = {"tools": tools, "too_long": {}}
    for name, schema in tools.items():
        for field, spec in _string_fields(schema):
            if "maxLength" not in spec:
                continue
            value = "a" * (spec["maxLength"] + 1)
            args = {**VALID[name], field.rstrip("[]"): [value] if field.endswith("[]") else value}
            result = await client.call_tool(name, args)
            out["too_long"][f"{name}.{field}"] = (result.is_error, result.content[0].text, spec["maxLength"])
    out["lessons_100k"] = await client.call_tool("lessons", {"query": "deploy " * 15_000})
    out["bogus_source"] = await client.call_tool("transcript_day", {"date": "2026-11-24", "source": "bogus"})
    out["prompts"] = {
        "blank": await _prompt_error(client, "what_do_you_know", {"topic": "   "}),
        "missing": await _prompt_error(client, "what_do_you_know", {}),
        "unknown_argument": await _prompt_error(client, "what_do_you_know", {"topic": "bees", "mood": "curious"}),
        "unknown_prompt": await _prompt_error(client, "what_do_you_forget", {"topic": "bees"}),
    }
    try:
        await client.read_resource("almanac://nothing-here")
    except MCPError as exc:
        out["unknown_resource"] = (exc.code, exc.message)
    try:
        out["huge"] = await client.call_tool("search_memory", {"query": "b" * huge})
    except MCPError as exc:
        out["huge"] = exc
    return out


def _check(out: dict) -> None:
    assert set(out["tools"]) == set(VALID)
    for name, schema in out["tools"].items():
        for field, spec in _string_fields(schema):
            assert "maxLength" in spec or "enum" in spec, f"{name}.{field} has no limit"
    assert len(out["too_long"]) >= 15
    for key, (is_error, text, limit) in out["too_long"].items():
        assert is_error, key
        assert key.split(".")[1].rstrip("[]") in text and str(limit) in text, (key, text)
    lessons = error_text(out["lessons_100k"])
    assert "query" in lessons and "4000" in lessons
    bogus = error_text(out["bogus_source"])
    assert "source" in bogus and all(kind in bogus for kind in ("limitless", "bee", "omi"))
    assert out["tools"]["transcript_day"]["properties"]["source"]["anyOf"][0]["enum"] == ["limitless", "bee", "omi"]
    prompts = out["prompts"]
    assert all(code == INVALID_PARAMS for code, _ in prompts.values())
    assert prompts["blank"][1] == "topic must be a non-empty string"
    assert "needs the argument topic" in prompts["missing"][1]
    assert "mood" in prompts["unknown_argument"][1]
    assert "Unknown prompt: what_do_you_forget" in prompts["unknown_prompt"][1]
    code, message = out["unknown_resource"]
    assert code == INVALID_PARAMS and "almanac://nothing-here" in message


@pytest.mark.slow
def test_errors_keep_their_reason_through_the_sdk_stdio_client(user):
    out, log = over_stdio("alice", lambda client: _exercise(client, huge=250_000))
    _check(out)
    assert "4000" in error_text(out["huge"])  # no site-wide field limit on stdio: the tool's own limit answers
    assert "ERROR" not in log and "Traceback" not in log, log


def test_errors_keep_their_reason_over_streamable_http(user, live_server, caplog):
    with caplog.at_level(logging.INFO):
        out = over_http(user, live_server, lambda client: _exercise(client, huge=250_000))
    _check(out)
    huge = out["huge"]
    assert isinstance(huge, MCPError) and huge.code == INVALID_PARAMS, huge
    assert "params.arguments.query" in huge.message and "at most 200000" in huge.message
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_nul_characters_are_refused_by_name(user):
    from memory_site.mcp import ToolInputError

    with pytest.raises(ToolInputError, match="query must not contain NUL"):
        mcp.call_tool(user, "recall", {"query": "bees\x00"})
