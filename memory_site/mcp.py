"""A small MCP server (JSON-RPC 2.0) so agents can recall and search memories, and propose new ones.

Two transports share this dispatcher: stdio (`manage.py mcp --user NAME`) and HTTP POST /mcp with a bearer
token. Proposals from agents never become accepted memories directly: they enter the review queue.
"""

from __future__ import annotations

import json
import logging

from ledger import services as ledger_services
from ledger.exceptions import DomainError
from ledger.recall import services as recall_services
from ledger.recall.search import search_memory

logger = logging.getLogger(__name__)

PROTOCOL_VERSIONS = ("2025-06-18", "2025-03-26", "2024-11-05")
SCOPES = ["pinned", "episodes", "transcript", "events", "facts", "all"]

TOOLS = [
    {
        "name": "recall",
        "description": "Context to read before answering the user: a small, policy-checked block of what Almanac "
        "knows that bears on the question (or nothing when nothing does).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "the user's question or topic"},
                "budget_tokens": {"type": "integer", "minimum": 100, "maximum": 4000, "default": 800},
                "scope": {"type": "string", "enum": ["auto", *SCOPES], "default": "auto"},
            },
            "required": ["query"],
        },
    },
    {
        "name": "search_memory",
        "description": "Search memories and transcripts by meaning and words.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "scope": {"type": "string", "enum": SCOPES, "default": "all"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            },
            "required": ["query"],
        },
    },
    {
        "name": "remember",
        "description": "Propose a memory about the user learned in conversation. It waits in the user's review "
        "queue until accepted; claims the user rejected before are refused.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "one plain statement, e.g. 'Dana prefers window seats'"},
                "quote": {"type": "string", "description": "what the user said, verbatim"},
                "importance": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
            },
            "required": ["content"],
        },
    },
]


class ToolInputError(DomainError):
    status_code = 422


def _text(value: str, name: str, max_len: int = 4000) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"{name} must be a non-empty string")
    if len(value) > max_len:
        raise ToolInputError(f"{name} is longer than {max_len} characters")
    return value.strip()


def call_tool(user, name: str, arguments: dict, *, client_label: str = "agent") -> dict:
    """Run one tool for ``user``; returns structured content. Raises ToolInputError/DomainError on bad input."""
    if name == "recall":
        budget = arguments.get("budget_tokens")
        if budget is not None and (not isinstance(budget, int) or not 100 <= budget <= 4000):
            raise ToolInputError("budget_tokens must be an integer from 100 to 4000")
        scope = arguments.get("scope") or None
        if scope not in (None, "auto", *SCOPES):
            raise ToolInputError(f"scope must be one of: auto, {', '.join(SCOPES)}")
        result = recall_services.recall_context(
            owner=user, query=_text(arguments.get("query"), "query"), budget_tokens=budget, scope=scope
        )
        return result.as_dict()
    if name == "search_memory":
        scope = arguments.get("scope") or "all"
        if scope not in SCOPES:
            raise ToolInputError(f"scope must be one of: {', '.join(SCOPES)}")
        limit = arguments.get("limit", 10)
        if not isinstance(limit, int) or not 1 <= limit <= 50:
            raise ToolInputError("limit must be an integer from 1 to 50")
        items = search_memory(user, scope, _text(arguments.get("query"), "query"), limit)
        return {"items": [i.as_dict() for i in items]}
    if name == "remember":
        content = _text(arguments.get("content"), "content", 500)
        quote = arguments.get("quote") or content
        importance = arguments.get("importance", "normal")
        if importance not in ("low", "normal", "high"):
            raise ToolInputError("importance must be low, normal or high")
        evidence = ledger_services.EvidenceIn(
            source_type="chat",
            source_ref={"client": client_label},
            quote=_text(quote, "quote", 2000),
            extractor_id="mcp",
            extractor_version="1",
            capture_confidence=0.9,
            source_label=f"agent:{client_label}",
        )
        result = ledger_services.propose_fact(
            owner=user,
            content=content,
            evidence=[evidence],
            importance=importance,
            veracity=0.5,
            capture_confidence=0.9,
            status="pending_review",
            reason="proposed-by-agent",
            source_label=f"agent:{client_label}",
            tags=["agent"],
            author="extractor",
            author_label=f"mcp:{client_label}",
            on_duplicate="corroborate",
        )
        return {
            "outcome": result.outcome,
            "id": str(result.fact.public_id) if result.fact else None,
            "status": result.fact.status if result.fact else None,
        }
    raise ToolInputError(f"Unknown tool: {name}")


def _error(msg_id, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def handle_message(user, message, *, client_label: str = "agent") -> dict | None:
    """Answer one JSON-RPC message; None for notifications (no id)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "method" not in message:
        return _error(message.get("id") if isinstance(message, dict) else None, -32600, "Invalid Request")
    msg_id, method, params = message.get("id"), message["method"], message.get("params") or {}
    if msg_id is None:
        return None  # notifications (initialized, cancelled) need no answer
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "jsonrpc": "2.0",
            "id": msg_id,
            "result": {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "almanac", "version": "0.1.0"},
                "instructions": "Call recall before answering questions about the user's life, people and plans.",
            },
        }
    if method == "ping":
        return {"jsonrpc": "2.0", "id": msg_id, "result": {}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": msg_id, "result": {"tools": TOOLS}}
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(arguments, dict):
            return _error(msg_id, -32602, "arguments must be an object")
        try:
            data = call_tool(user, name, arguments, client_label=client_label)
        except DomainError as exc:
            content = [{"type": "text", "text": exc.message}]
            return {"jsonrpc": "2.0", "id": msg_id, "result": {"content": content, "isError": True}}
        except Exception:
            logger.exception("MCP tool %s failed", name)
            content = [{"type": "text", "text": "Internal error"}]
            return {"jsonrpc": "2.0", "id": msg_id, "result": {"content": content, "isError": True}}
        text = data.get("block") if name == "recall" else json.dumps(data, default=str)
        return {
            "jsonrpc": "2.0",
            "id": msg_id,
            "result": {"content": [{"type": "text", "text": text or ""}], "structuredContent": data, "isError": False},
        }
    return _error(msg_id, -32601, f"Method not found: {method}")
