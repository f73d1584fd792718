"""Almanac's MCP server on the official SDK (``mcp`` 2.x ``MCPServer``): stdio and Streamable HTTP.

Tools: recall, search_memory, remember (through ``distill``: screened, gated, never auto-accepted),
transcript_day, transcript_search, review_queue, lessons, and events_timeline when ``screen`` offers a query
function. Whose memory a call reads is a context variable: set once by ``manage.py mcp --user`` (stdio) or per
request by the ``/mcp`` view after its bearer-token and Origin checks (``memory_site.views.mcp_http``).

Tool bodies are sync service calls run through ``sync_to_async`` (Django's ORM is sync-only); ``call_tool``
is the sync dispatcher they share, so the logic is testable without a transport.
"""

from __future__ import annotations

import contextvars
import logging
from datetime import date
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ConfigDict, Field

from accounts.exceptions import DomainError
from distill.models import MinImportance
from ledger.choices import Status
from ledger.models import Fact
from ledger.recall import services as recall_services
from ledger.recall.search import search_memory

logger = logging.getLogger(__name__)

SCOPES = ["pinned", "episodes", "transcript", "events", "facts", "all"]
current_owner: contextvars.ContextVar = contextvars.ContextVar("almanac_mcp_owner")
current_client: contextvars.ContextVar[str] = contextvars.ContextVar("almanac_mcp_client", default="agent")


class ToolInputError(DomainError):
    status_code = 422


def _text(value, name: str, max_len: int = 4000) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"{name} must be a non-empty string")
    if len(value) > max_len:
        raise ToolInputError(f"{name} is longer than {max_len} characters")
    return value.strip()


def _day(value) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise ToolInputError("date must be YYYY-MM-DD") from exc


# --- The sync tool bodies -------------------------------------------------------------------------------
def _recall(user, a: dict) -> dict:
    budget = a.get("budget_tokens")
    if budget is not None and (not isinstance(budget, int) or not 100 <= budget <= 4000):
        raise ToolInputError("budget_tokens must be an integer from 100 to 4000")
    scope = a.get("scope") or None
    if scope not in (None, "auto", *SCOPES):
        raise ToolInputError(f"scope must be one of: auto, {', '.join(SCOPES)}")
    return recall_services.recall_context(
        owner=user, query=_text(a.get("query"), "query"), budget_tokens=budget, scope=scope
    ).as_dict()


def _search(user, a: dict) -> dict:
    scope = a.get("scope") or "all"
    scope = "all" if scope == "auto" else scope  # auto: every layer (there is no gate to route a search)
    if scope not in SCOPES:
        raise ToolInputError(f"scope must be one of: auto, {', '.join(SCOPES)}")
    limit = a.get("limit", 10)
    if not isinstance(limit, int) or not 1 <= limit <= 50:
        raise ToolInputError("limit must be an integer from 1 to 50")
    return {"items": [i.as_dict() for i in search_memory(user, scope, _text(a.get("query"), "query"), limit)]}


def _remember(user, a: dict) -> dict:
    from distill.services import remember

    result = remember(
        owner=user,
        text=_text(a.get("content"), "content", 500),
        source_key=f"agent:{current_client.get()}",
        about=a.get("about") or "user",
        quote=a.get("quote") or "",
        importance=a.get("importance") or "normal",
    )
    fact = result.fact
    return {
        "outcome": result.outcome,
        "reason": result.reason,
        "id": str(fact.public_id) if fact else None,
        "status": fact.status if fact else None,
    }


def _transcript_day(user, a: dict) -> dict:
    from chats import queries as chat_queries
    from wearables.queries import transcripts_for_day

    day = _day(a.get("date"))
    transcripts = []
    for t in transcripts_for_day(user, day, a.get("source") or None):
        turns = [{"speaker": u.speaker_name or u.speaker_label, "text": u.text,
                  "at": u.started_at.isoformat() if u.started_at else None} for u in t.utterances.order_by("index")]  # fmt: skip
        transcripts.append({"source": t.source.kind, "utterances": turns[:2000]})
    chats = [
        {"session": str(s.public_id), "title": s.title, "source": s.source_key,
         "turns": [{"speaker": x.speaker or x.role, "text": x.text[:2000]} for x in s.turns.all()[:500]]}
        for s in chat_queries.sessions_on_day(user, day)
    ]  # fmt: skip
    return {"date": day.isoformat(), "transcripts": transcripts, "chats": chats}


def _transcript_search(user, a: dict) -> dict:
    from wearables.queries import search_utterances

    query = _text(a.get("query"), "query")
    limit = a.get("limit", 20)
    if not isinstance(limit, int) or not 1 <= limit <= 100:
        raise ToolInputError("limit must be an integer from 1 to 100")
    found = search_utterances(user, query, limit=limit)
    items = [{k: v for k, v in hit.items() if k != "snippet"} | {"text": hit.get("text", "")} for hit in found.hits]
    chats = search_memory(user, "transcript", query, limit)
    items += [i.as_dict() for i in chats if i.kind == "chat_turn"]
    return {"items": items[:limit]}


def _review_queue(user, a: dict) -> dict:
    limit = a.get("limit", 10)
    if not isinstance(limit, int) or not 1 <= limit <= 50:
        raise ToolInputError("limit must be an integer from 1 to 50")
    from review import queries as review_queries

    # The person's order: importance x trust uncertainty x recency over the whole queue (snoozed items hidden).
    order = [r.pk for r in review_queries.queue_plan(user).rows[:limit]]
    by_pk = Fact.objects.owned_by(user).in_bulk(order)
    rows = [by_pk[pk] for pk in order if pk in by_pk]
    return {
        "items": [
            {"id": str(f.public_id), "content": f.content, "source": f.source_label, "importance": f.importance,
             "status": f.status}
            for f in rows
        ]
    }  # fmt: skip


def _lessons(user, a: dict) -> dict:
    from chats import queries as chat_queries

    limit = a.get("limit", 10)
    if not isinstance(limit, int) or not 1 <= limit <= 50:
        raise ToolInputError("limit must be an integer from 1 to 50")
    rows = chat_queries.lessons(user, query=a.get("query") or "", limit=limit)
    return {"items": [chat_queries.lesson_out(x) for x in rows]}


def _events_timeline(user, a: dict) -> dict:
    from screen.queries import events_timeline

    limit = a.get("limit", 100)
    if not isinstance(limit, int) or not 1 <= limit <= 500:
        raise ToolInputError("limit must be an integer from 1 to 500")
    return events_timeline(user, _day(a.get("date")), event_type=a.get("event_type") or "", limit=limit)


TOOL_BODIES = {
    "recall": _recall,
    "search_memory": _search,
    "remember": _remember,
    "transcript_day": _transcript_day,
    "transcript_search": _transcript_search,
    "review_queue": _review_queue,
    "lessons": _lessons,
    "events_timeline": _events_timeline,
}


def call_tool(user, name: str, arguments: dict, *, client_label: str = "agent") -> dict:
    """Run one tool for ``user`` (sync). Raises ToolInputError/DomainError on bad input."""
    body = TOOL_BODIES.get(name)
    if body is None:
        raise ToolInputError(f"Unknown tool: {name}")
    token = current_client.set(client_label)
    try:
        return body(user, arguments)
    finally:
        current_client.reset(token)


async def _run(name: str, arguments: dict) -> dict:
    owner = current_owner.get(None)
    if owner is None:
        raise ToolInputError("not authenticated")
    client = current_client.get()
    args = {k: v for k, v in arguments.items() if v is not None}
    try:
        return await sync_to_async(call_tool, thread_sensitive=True)(owner, name, args, client_label=client)
    except DomainError as exc:
        # ToolError is the SDK's "anticipated failure": the agent reads the reason, the log gets no traceback.
        raise ToolError(exc.message) from exc


# --- The SDK server ---------------------------------------------------------------------------------------
server = MCPServer(
    name="almanac",
    version="0.2.0",
    instructions="Call recall before answering questions about the user's life, people, plans or past work; "
    "call lessons before repeating a task you were corrected on; remember proposes, the user decides.",
)
Scope = Literal["auto", "pinned", "episodes", "transcript", "events", "facts", "all"]


@server.tool(description="Context to read before answering the user: a small, policy-checked block of what "
             "Almanac knows that bears on the question (or nothing when nothing does).")  # fmt: skip
async def recall(
    query: Annotated[str, Field(description="the user's question or topic")],
    budget_tokens: Annotated[int, Field(ge=100, le=4000)] = 800,
    scope: Scope = "auto",
) -> dict[str, Any]:
    return await _run("recall", {"query": query, "budget_tokens": budget_tokens, "scope": scope})


@server.tool(name="search_memory", description="Search memories and transcripts by meaning and words.")
async def search_memory_tool(
    query: str, scope: Scope = "all", limit: Annotated[int, Field(ge=1, le=50)] = 10
) -> dict[str, Any]:
    return await _run("search_memory", {"query": query, "scope": scope, "limit": limit})


@server.tool(description="Propose a memory about the user learned in conversation. It is screened and waits in "
             "the user's review queue; claims the user rejected before are refused.")  # fmt: skip
async def remember(
    content: Annotated[str, Field(description="one plain statement, e.g. 'Dana prefers window seats'")],
    quote: Annotated[str, Field(description="what the user said, verbatim")] = "",
    importance: Literal[tuple(MinImportance.values)] = MinImportance.NORMAL.value,
    about: Annotated[str, Field(description="'user' or the name of the person it is about")] = "user",
) -> dict[str, Any]:
    return await _run("remember", {"content": content, "quote": quote, "importance": importance, "about": about})


@server.tool(description="Everything recorded on one day: wearable transcripts and agent/chat sessions.")
async def transcript_day(
    date: Annotated[str, Field(description="YYYY-MM-DD, the user's local date")],
    source: Annotated[str | None, Field(description="limit to one wearable source kind")] = None,
) -> dict[str, Any]:
    return await _run("transcript_day", {"date": date, "source": source})


@server.tool(description="Find the exact words: full-text search over transcripts and chat turns.")
async def transcript_search(query: str, limit: Annotated[int, Field(ge=1, le=100)] = 20) -> dict[str, Any]:
    return await _run("transcript_search", {"query": query, "limit": limit})


@server.tool(description="Memories waiting for the user's review (newest first).")
async def review_queue(limit: Annotated[int, Field(ge=1, le=50)] = 10) -> dict[str, Any]:
    return await _run("review_queue", {"limit": limit})


@server.tool(description="Lessons learned from the user's corrections and recurring errors, strongest first; "
             "pass a query to get the ones that bear on a task.")  # fmt: skip
async def lessons(query: str = "", limit: Annotated[int, Field(ge=1, le=50)] = 10) -> dict[str, Any]:
    return await _run("lessons", {"query": query, "limit": limit})


@server.tool(description="Screen activity on one day: events (apps, documents, outcomes) with local times, "
             "evidence excerpts and the day's rollup.")  # fmt: skip
async def events_timeline(
    date: Annotated[str, Field(description="YYYY-MM-DD, the user's local date")],
    event_type: str = "",
    limit: Annotated[int, Field(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    return await _run("events_timeline", {"date": date, "event_type": event_type, "limit": limit})


# --- Resources and prompts ----------------------------------------------------------------------------------
def memory_file(user) -> str:
    """The memory file: what Almanac holds pinned about the person and the lessons agents should follow."""
    from chats import queries as chat_queries
    from ledger.models import PinnedFact

    pins = PinnedFact.objects.owned_by(user).select_related("fact").order_by("-salience")[:50]
    lines = ["# Almanac memory", "", "## Pinned"]
    lines += [f"- {p.fact.content}" for p in pins if p.fact and p.fact.status == Status.ACCEPTED] or ["- (nothing pinned)"]
    lines += ["", "## Lessons"]
    lines += [f"- {x.text}" for x in chat_queries.lessons(user, limit=20)] or ["- (no lessons yet)"]
    return "\n".join(lines) + "\n"


def todays_digest(user) -> str:
    """Today's digest (the person's local date): the day's episodes, newest last."""
    from datetime import datetime, time, timedelta

    from django.utils import timezone as dj_timezone

    from accounts.services import user_timezone
    from ledger.models import Episode

    tz = user_timezone(user)
    today = dj_timezone.now().astimezone(tz).date()
    start = datetime.combine(today, time.min, tzinfo=tz)
    rows = Episode.objects.owned_by(user).filter(started_at__gte=start, started_at__lt=start + timedelta(days=1))
    rows = rows.exclude(status=Status.REJECTED).order_by("started_at")[:100]
    lines = [f"# {today.isoformat()}", ""]
    lines += [f"- {e.started_at.astimezone(tz):%H:%M} {e.title or ''}: {e.summary}".strip() for e in rows]
    return "\n".join(lines if rows else [*lines, "Nothing recorded yet today."]) + "\n"


async def _owner_read(fn) -> str:
    owner = current_owner.get(None)
    if owner is None:
        raise ToolError("not authenticated")
    return await sync_to_async(fn, thread_sensitive=True)(owner)


@server.resource("almanac://memory", name="memory", mime_type="text/markdown",
                 description="The memory file: pinned memories and lessons for agents.")  # fmt: skip
async def memory_resource() -> str:
    return await _owner_read(memory_file)


@server.resource("almanac://digest/today", name="today", mime_type="text/markdown",
                 description="Today's digest in the person's timezone: the day's episodes.")  # fmt: skip
async def today_resource() -> str:
    return await _owner_read(todays_digest)


@server.prompt(name="what_do_you_know", description="What do you know about X? Answers from Almanac's recall.")
async def what_do_you_know(topic: Annotated[str, Field(description="a person, place, project or question")]) -> str:
    topic = topic.strip()[:500]
    if not topic:
        raise ToolError("topic must be a non-empty string")

    def block(user) -> str:
        return recall_services.recall_context(owner=user, query=f"What do you know about {topic}?").block

    context = await _owner_read(block)
    return (
        f"What do you know about {topic}? Answer only from the Almanac context below, and say plainly when it "
        f"holds nothing about it.\n\n<almanac-context>\n{context or '(nothing found)'}\n</almanac-context>"
    )


def _forbid_unknown_arguments() -> None:
    """Every tool's input schema says ``additionalProperties: false``, and the argument model refuses extras."""
    for tool in server._tool_manager.list_tools():
        tool.parameters["additionalProperties"] = False
        model = tool.fn_metadata.arg_model
        model.model_config = ConfigDict(**{**model.model_config, "extra": "forbid"})
        model.model_rebuild(force=True)


_forbid_unknown_arguments()


def tool_names() -> list[str]:
    return [t.name for t in server._tool_manager.list_tools()]
