"""Almanac's MCP server on the official SDK (``mcp`` 2.x ``MCPServer``): stdio and Streamable HTTP.

Tools: recall, search_memory, search_hits + expand_hits (progressive disclosure: short cited hits, then full
evidence for the ids an agent opens, ``memory_site.mcp_hits``), remember (through ``distill``: screened, gated,
never auto-accepted; anything but "queued for review" is a tool error saying why, ``memory_site.mcp_remember``),
transcript_day, transcript_search, review_queue, lessons, and events_timeline when ``screen`` offers a query
function. Whose memory a call reads is a context variable: set once by ``manage.py mcp --user`` (stdio) or per
request by the ``/mcp`` view after its bearer-token and Origin checks (``memory_site.views.mcp_http``).

Every input passes one gate (``call_tool``): ``<private>`` spans are removed before anything reads them (counted,
the text is never logged), and every free-text argument has one limit per kind, the same in the schema an agent reads and in
the body that runs. Tool bodies are sync service calls run through ``sync_to_async`` (Django's ORM is
sync-only); ``call_tool`` is the sync dispatcher they share, so the logic is testable without a transport.
"""

from __future__ import annotations

import contextvars
import logging
from datetime import date
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, CallToolResult, TextContent
from pydantic import ConfigDict, Field, ValidationError

from accounts.exceptions import DomainError
from chats.services.agent_context import RECALL_HEADROOM
from distill.models import MinImportance
from distill.services import MAX_REMEMBER_CHARS
from ledger.choices import Status
from ledger.models import Fact
from ledger.private_spans import strip_private
from ledger.recall import services as recall_services
from ledger.recall.planner import clamp_budget
from ledger.recall.search import search_memory
from memory_site import mcp_hits, mcp_project
from wearables.models import SourceKind

logger = logging.getLogger(__name__)

SCOPES = ["pinned", "episodes", "transcript", "events", "facts", "all"]
current_owner: contextvars.ContextVar = contextvars.ContextVar("almanac_mcp_owner")
current_client: contextvars.ContextVar[str] = contextvars.ContextVar("almanac_mcp_client", default="agent")
# The project (working directory or repository) a connection works in, when its client says so once:
# ``manage.py mcp --project`` or the ``X-Almanac-Project`` header. A tool's own ``project`` argument wins.
current_project: contextvars.ContextVar[str] = contextvars.ContextVar("almanac_mcp_project", default="")

# One limit per kind of text, in the schemas and in the bodies alike.
QUERY_MAX = 4000  # any question or search words (recall, the searches, lessons, the prompt's topic)
CONTENT_MAX = MAX_REMEMBER_CHARS  # one statement to remember
QUOTE_MAX = 2000
NAME_MAX = 200  # a person's name (remember's ``about``)
PROJECT_MAX = 500  # a working directory or repository
EVENT_TYPE_MAX = 100  # a screen event type or namespace
ID_MAX = 100  # one hit id


class ToolInputError(DomainError):
    status_code = 422


def _text(value, name: str, max_len: int = QUERY_MAX) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"{name} must be a non-empty string")
    if len(value) > max_len:
        raise ToolInputError(f"{name} is longer than {max_len} characters")
    if "\x00" in value:
        raise ToolInputError(f"{name} must not contain NUL characters")
    return value.strip()


def _optional_text(a: dict, name: str, max_len: int) -> str:
    value = a.get(name) or ""
    return _text(value, name, max_len) if value else ""


def _limit(a: dict, default: int, most: int) -> int:
    limit = a.get("limit", default)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= most:
        raise ToolInputError(f"limit must be an integer from 1 to {most}")
    return limit


def _day(value) -> date:
    try:
        return date.fromisoformat(str(value))
    except ValueError as exc:
        raise ToolInputError("date must be YYYY-MM-DD") from exc


def _scope(a: dict, default: str) -> str:
    scope = a.get("scope") or default
    if scope not in ("auto", *SCOPES):
        raise ToolInputError(f"scope must be one of: auto, {', '.join(SCOPES)}")
    return scope


def _without_private(arguments: dict) -> tuple[dict, int]:
    """The arguments with every ``<private>`` span removed, and how many were. A field that held nothing but
    private text is refused: there is nothing left to act on, and saying so is better than a silent no-op."""
    out, removed = {}, 0
    for name, value in arguments.items():
        if isinstance(value, list):
            parts = [strip_private(v) if isinstance(v, str) else None for v in value]
            out[name] = [p.text if p else v for p, v in zip(parts, value, strict=True)]
            removed += sum(p.removed for p in parts if p)
            continue
        if not isinstance(value, str):
            out[name] = value
            continue
        stripped = strip_private(value)
        if stripped.removed and value.strip() and not stripped.text.strip():
            raise ToolInputError(f"{name} held only <private> text, which Almanac never stores, searches or sends on")
        out[name], removed = stripped.text, removed + stripped.removed
    return out, removed


# --- The sync tool bodies -------------------------------------------------------------------------------
def _view(user, a: dict) -> mcp_project.View:
    """The project this call works in: its own ``project`` argument, else the connection's."""
    return mcp_project.view_for(user, _optional_text(a, "project", PROJECT_MAX) or current_project.get())


def _project_out(view: mcp_project.View) -> str | None:
    return view.project.name if view.project is not None else None


def _recall(user, a: dict) -> dict:
    budget = a.get("budget_tokens")
    if budget is not None and (not isinstance(budget, int) or not 100 <= budget <= 4000):
        raise ToolInputError("budget_tokens must be an integer from 100 to 4000")
    scope, view, asked = _scope(a, "auto"), _view(user, a), clamp_budget(budget)
    # Recall packs for more than the budget and another project's items are left out before the block is cut to
    # it, so they never take the budget from what this project may see; usage is counted for what is shown.
    result = recall_services.recall_context(owner=user, query=_text(a.get("query"), "query"),
                                            budget_tokens=asked * RECALL_HEADROOM, scope=scope, feedback=False)  # fmt: skip
    result.budget_tokens = asked
    mcp_project.repack(user, result, mcp_project.visible_items(user, view, result.items))
    recall_services.queue_usage(owner=user, items=result.items)
    return result.as_dict() | {"project": _project_out(view)}


def _found(user, a: dict, *, most: int) -> tuple[list, mcp_project.View]:
    scope = _scope(a, "all")
    scope = "all" if scope == "auto" else scope  # auto: every layer (there is no gate to route a search)
    limit, view = _limit(a, 10, most), _view(user, a)
    # Twice as deep as asked: other projects' rows are left out after ranking, and the list should stay full.
    found = search_memory(user, scope, _text(a.get("query"), "query"), limit * 2)
    return mcp_project.visible_items(user, view, found)[:limit], view


def _search(user, a: dict) -> dict:
    items, view = _found(user, a, most=50)
    return {"items": [i.as_dict() for i in items], "project": _project_out(view)}


def _search_hits(user, a: dict) -> dict:
    items, view = _found(user, a, most=50)
    return mcp_hits.hits(user, items) | {"project": _project_out(view)}


def _expand_hits(user, a: dict) -> dict:
    ids = a.get("ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= mcp_hits.MAX_IDS:
        raise ToolInputError(f"ids must be a list of 1 to {mcp_hits.MAX_IDS} hit ids from search_hits")
    ids = [_text(i, "ids[]", ID_MAX) for i in ids]
    hidden = mcp_project.hidden(user, _view(user, a), ids)  # another project's: not found, like another owner's
    items, missing = mcp_hits.expand(user, [i for i in ids if i not in hidden])
    out = {"items": items, "not_found": [i for i in ids if i in hidden or i in missing]}
    if not items:
        out["error"] = f"Not found: {', '.join(missing)}. Use ids exactly as search_hits gave them."
    return out


def _remember(user, a: dict) -> dict:
    from distill.services import remember
    from memory_site.mcp_remember import remember_out

    result = remember(
        owner=user,
        text=_text(a.get("content"), "content", CONTENT_MAX),
        source_key=f"agent:{current_client.get()}",
        about=_optional_text(a, "about", NAME_MAX) or "user",
        quote=_optional_text(a, "quote", QUOTE_MAX),
        importance=a.get("importance") or "normal",
    )
    return remember_out(user, result)


def _transcript_day(user, a: dict) -> dict:
    from chats import queries as chat_queries
    from wearables.queries import transcripts_for_day

    day = _day(a.get("date"))
    source = a.get("source") or None
    if source is not None and source not in SourceKind.values:
        raise ToolInputError(f"source must be one of: {', '.join(SourceKind.values)}")
    transcripts = []
    for t in transcripts_for_day(user, day, source):
        turns = [{"speaker": u.speaker_name or u.speaker_label, "text": u.text,
                  "at": u.started_at.isoformat() if u.started_at else None} for u in t.utterances.order_by("index")]  # fmt: skip
        transcripts.append({"source": t.source.kind, "utterances": turns[:2000]})
    view = _view(user, a)
    sessions = chat_queries.sessions_on_day(user, day)
    shown = [s for s in sessions if view.shows(s.agent_project_id)]
    chats = [
        {"session": str(s.public_id), "title": s.title, "source": s.source_key,
         "turns": [{"speaker": x.speaker or x.role, "text": x.text[:2000]} for x in s.turns.all()[:500]]}
        for s in shown
    ]  # fmt: skip
    return {
        "date": day.isoformat(),
        "transcripts": transcripts,
        "chats": chats,
        "project": _project_out(view),
        "other_projects_sessions": len(sessions) - len(shown),  # how many, never what: pass their project to read
    }


def _transcript_search(user, a: dict) -> dict:
    from wearables.queries import search_utterances

    query = _text(a.get("query"), "query")
    limit = _limit(a, 20, 100)
    found = search_utterances(user, query, limit=limit)
    items = [{k: v for k, v in hit.items() if k != "snippet"} | {"text": hit.get("text", "")} for hit in found.hits]
    view = _view(user, a)
    chats = [i for i in search_memory(user, "transcript", query, limit * 2) if i.kind == "chat_turn"]
    items += [i.as_dict() for i in mcp_project.visible_items(user, view, chats)]
    return {"items": items[:limit], "project": _project_out(view)}


def _review_queue(user, a: dict) -> dict:
    limit = _limit(a, 10, 50)
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

    limit = _limit(a, 10, 50)
    query = _optional_text(a, "query", QUERY_MAX)
    view = _view(user, a)
    rows = chat_queries.lessons(user, query=query, limit=limit, project=view.project)
    return {"items": [chat_queries.lesson_out(x) for x in rows], "project": _project_out(view)}


def _events_timeline(user, a: dict) -> dict:
    from screen.queries import events_timeline

    limit = _limit(a, 100, 500)
    event_type = _optional_text(a, "event_type", EVENT_TYPE_MAX)
    return events_timeline(user, _day(a.get("date")), event_type=event_type, limit=limit)


TOOL_BODIES = {
    "recall": _recall,
    "search_memory": _search,
    "search_hits": _search_hits,
    "expand_hits": _expand_hits,
    "remember": _remember,
    "transcript_day": _transcript_day,
    "transcript_search": _transcript_search,
    "review_queue": _review_queue,
    "lessons": _lessons,
    "events_timeline": _events_timeline,
}


def call_tool(user, name: str, arguments: dict, *, client_label: str = "agent") -> dict:
    """Run one tool for ``user`` (sync): private spans removed first, then the body. Raises
    ToolInputError/DomainError on bad input. A result with an ``error`` sentence did not do what was asked."""
    body = TOOL_BODIES.get(name)
    if body is None:
        raise ToolInputError(f"Unknown tool: {name}")
    arguments, removed = _cleaned(user, name, arguments)
    token = current_client.set(client_label)
    try:
        out = body(user, arguments)
    finally:
        current_client.reset(token)
    return out | ({"private_spans_removed": removed} if removed else {})


def _cleaned(user, name: str, arguments: dict) -> tuple[dict, int]:
    """``arguments`` without private spans; the spans removed are counted (per owner, entry point MCP) and the
    count logged: the removed text is gone before this returns, and never reaches a log or a table."""
    arguments, removed = _without_private(arguments)
    if removed:
        from chats.privacy import EntryPoint, record_removed

        record_removed(owner=user, entry_point=EntryPoint.MCP, count=removed)
        logger.info("mcp %s: %d private span(s) removed before use", name, removed)
    return arguments, removed


async def _run(name: str, arguments: dict) -> dict[str, Any] | CallToolResult:
    owner = current_owner.get(None)
    if owner is None:
        raise ToolInputError("not authenticated")
    client = current_client.get()
    args = {k: v for k, v in arguments.items() if v is not None}
    try:
        out = await sync_to_async(call_tool, thread_sensitive=True)(owner, name, args, client_label=client)
    except DomainError as exc:
        # ToolError is the SDK's "anticipated failure": the agent reads the reason, the log gets no traceback.
        raise ToolError(exc.message) from exc
    if "error" in out:
        # The call did not do what was asked: a tool error whose text says why, the details alongside.
        return CallToolResult(
            content=[TextContent(type="text", text=out["error"])], structured_content=out, is_error=True
        )
    return out


# --- The SDK server ---------------------------------------------------------------------------------------
def _invalid_arguments(tool: str, exc: ValidationError, declared: list[str]) -> str:
    """One readable line per wrong argument, without echoing its value (the SDK's text quotes the input)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "extra_forbidden":
            parts.append(f"{where}: unknown argument ({tool} takes {', '.join(declared)})")
        else:
            parts.append(f"{where}: {err['msg']}")
    return f"Invalid arguments for {tool}: " + "; ".join(parts)


class AlmanacServer(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            tool = self._tool_manager.get_tool(name)
            declared = list(tool.parameters.get("properties", {})) if tool else []
            # Raised from the ValidationError, so the SDK still logs field names only.
            raise ToolError(_invalid_arguments(name, exc.__cause__, declared)) from exc.__cause__

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context=None):
        """Bad prompt requests answered as JSON-RPC "invalid params" with a reason (the SDK would raise a bare
        ValueError: "Error rendering prompt" for the client, an ERROR traceback in the log)."""
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            known = ", ".join(p.name for p in self._prompt_manager.list_prompts())
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name} (prompts: {known})")
        declared = {arg.name: arg for arg in prompt.arguments or []}
        given = arguments or {}
        unknown = sorted(set(given) - set(declared))
        if unknown:
            raise MCPError(
                INVALID_PARAMS, f"{name} has no argument {', '.join(unknown)} (arguments: {', '.join(declared)})"
            )
        missing = [arg for arg, spec in declared.items() if spec.required and arg not in given]
        if missing:
            raise MCPError(INVALID_PARAMS, f"{name} needs the argument {', '.join(missing)}")
        return await super().get_prompt(name, arguments, context)


server = AlmanacServer(
    name="almanac",
    version="0.3.0",
    instructions="Call recall before answering questions about the user's life, people, plans or past work; "
    "search_hits then expand_hits to read only what matters; call lessons before repeating a task you were "
    "corrected on; remember proposes, the user decides. Pass project (the working directory) when you work in "
    "one: other projects' lessons and sessions stay out. Text inside <private>...</private> is never stored.",
)
Scope = Literal["auto", "pinned", "episodes", "transcript", "events", "facts", "all"]
Query = Annotated[str, Field(max_length=QUERY_MAX, description="the user's question, a topic or search words")]
Project = Annotated[
    str,
    Field(max_length=PROJECT_MAX, description="the working directory or repository of the task at hand; lessons "
          "and session summaries of other projects are left out"),
]  # fmt: skip


@server.tool(description="Context to read before answering the user: a small, policy-checked block of what "
             "Almanac knows that bears on the question (or nothing when nothing does).")  # fmt: skip
async def recall(
    query: Query,
    budget_tokens: Annotated[int, Field(ge=100, le=4000)] = 800,
    scope: Scope = "auto",
    project: Project = "",
) -> dict[str, Any]:
    return await _run("recall", {"query": query, "budget_tokens": budget_tokens, "scope": scope, "project": project})


@server.tool(name="search_memory", description="Search memories and transcripts by meaning and words; every hit "
             "in full. To spend fewer tokens, use search_hits and expand_hits.")  # fmt: skip
async def search_memory_tool(
    query: Query, scope: Scope = "all", limit: Annotated[int, Field(ge=1, le=50)] = 10, project: Project = ""
) -> dict[str, Any]:
    return await _run("search_memory", {"query": query, "scope": scope, "limit": limit, "project": project})


@server.tool(description="Search memories, transcripts and chats; answers one short cited line per hit (its id, "
             "kind, date) with the tokens it costs to open. Open the ones worth reading with expand_hits.")  # fmt: skip
async def search_hits(
    query: Query, scope: Scope = "all", limit: Annotated[int, Field(ge=1, le=50)] = 10, project: Project = ""
) -> dict[str, Any]:
    return await _run("search_hits", {"query": query, "scope": scope, "limit": limit, "project": project})


@server.tool(description="The full evidence behind hits from search_hits: a fact with its status and quotes, an "
             "episode's summary, a transcript or chat turn with the turns around it. Ids not found are listed.")  # fmt: skip
async def expand_hits(
    ids: Annotated[
        list[Annotated[str, Field(max_length=ID_MAX)]],
        Field(min_length=1, max_length=mcp_hits.MAX_IDS, description="ids exactly as search_hits gave them"),
    ],
    project: Project = "",
) -> dict[str, Any]:
    return await _run("expand_hits", {"ids": ids, "project": project})


@server.tool(description="Propose a memory about the user learned in conversation. It is screened and waits in "
             "the user's review queue. A tool error says why when it does not: the user rejected it before, it "
             "is already known, it contradicts an accepted fact, or it was dropped.")  # fmt: skip
async def remember(
    content: Annotated[
        str, Field(max_length=CONTENT_MAX, description="one plain statement, e.g. 'Dana prefers window seats'")
    ],
    quote: Annotated[str, Field(max_length=QUOTE_MAX, description="what the user said, verbatim")] = "",
    importance: Literal[tuple(MinImportance.values)] = MinImportance.NORMAL.value,
    about: Annotated[
        str, Field(max_length=NAME_MAX, description="'user' or the name of the person it is about")
    ] = "user",
) -> dict[str, Any]:
    return await _run("remember", {"content": content, "quote": quote, "importance": importance, "about": about})


@server.tool(description="Everything recorded on one day: wearable transcripts and agent/chat sessions.")
async def transcript_day(
    date: Annotated[str, Field(max_length=10, description="YYYY-MM-DD, the user's local date")],
    source: Annotated[
        Literal[tuple(SourceKind.values)] | None, Field(description="limit the transcripts to one wearable source")
    ] = None,
    project: Project = "",
) -> dict[str, Any]:
    return await _run("transcript_day", {"date": date, "source": source, "project": project})


@server.tool(description="Find the exact words: full-text search over transcripts and chat turns.")
async def transcript_search(
    query: Query, limit: Annotated[int, Field(ge=1, le=100)] = 20, project: Project = ""
) -> dict[str, Any]:
    return await _run("transcript_search", {"query": query, "limit": limit, "project": project})


@server.tool(description="Memories waiting for the user's review (newest first).")
async def review_queue(limit: Annotated[int, Field(ge=1, le=50)] = 10) -> dict[str, Any]:
    return await _run("review_queue", {"limit": limit})


@server.tool(description="Lessons learned from the user's corrections and recurring errors, strongest first; "
             "pass a query to get the ones that bear on a task.")  # fmt: skip
async def lessons(
    query: Annotated[str, Field(max_length=QUERY_MAX, description="the task at hand (optional)")] = "",
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    project: Project = "",
) -> dict[str, Any]:
    return await _run("lessons", {"query": query, "limit": limit, "project": project})


@server.tool(description="Screen activity on one day: events (apps, documents, outcomes) with local times, "
             "evidence excerpts and the day's rollup.")  # fmt: skip
async def events_timeline(
    date: Annotated[str, Field(max_length=10, description="YYYY-MM-DD, the user's local date")],
    event_type: Annotated[str, Field(max_length=EVENT_TYPE_MAX, description="a type or namespace, e.g. 'game'")] = "",
    limit: Annotated[int, Field(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    return await _run("events_timeline", {"date": date, "event_type": event_type, "limit": limit})


# --- Resources and prompts ----------------------------------------------------------------------------------
def memory_file(user) -> str:
    """The memory file: what Almanac holds pinned about the person and the lessons agents should follow."""
    from chats import queries as chat_queries
    from ledger.models import PinnedFact

    # Lessons are pinned facts too; they are listed below, as the connection's project may see them.
    pins = PinnedFact.objects.owned_by(user).select_related("fact").exclude(fact__tags__contains=["lesson"])
    pinned = [p.fact.content for p in pins.order_by("-salience")[:50] if p.fact and p.fact.status == Status.ACCEPTED]
    lines = ["# Almanac memory", "", "## Pinned", *([f"- {c}" for c in pinned] or ["- (nothing pinned)"])]
    lines += ["", "## Lessons"]
    project = mcp_project.view_for(user, current_project.get()).project
    lines += [f"- {x.text}" for x in chat_queries.lessons(user, limit=20, project=project)] or ["- (no lessons yet)"]
    return "\n".join(lines) + "\n"


def todays_digest(user) -> str:
    """Today's digest (the person's local date): the day's episodes, newest last; other projects' session
    summaries left out (the connection's project, ``memory_site.mcp_project``)."""
    from datetime import datetime, time, timedelta

    from django.utils import timezone as dj_timezone

    from accounts.services import user_timezone
    from ledger.models import Episode

    tz = user_timezone(user)
    today = dj_timezone.now().astimezone(tz).date()
    start = datetime.combine(today, time.min, tzinfo=tz)
    rows = Episode.objects.owned_by(user).filter(started_at__gte=start, started_at__lt=start + timedelta(days=1))
    rows = list(rows.exclude(status=Status.REJECTED).order_by("started_at")[:100])
    view = mcp_project.view_for(user, current_project.get())
    hidden = mcp_project.hidden(user, view, [f"episode:{e.public_id}" for e in rows])
    rows = [e for e in rows if f"episode:{e.public_id}" not in hidden]
    lines = [f"# {today.isoformat()}", ""]
    lines += [f"- {e.started_at.astimezone(tz):%H:%M} {e.title or ''}: {e.summary}".strip() for e in rows]
    return "\n".join(lines if rows else [*lines, "Nothing recorded yet today."]) + "\n"


async def _owner_read(fn):
    owner = current_owner.get(None)
    if owner is None:
        raise MCPError(INVALID_REQUEST, "not authenticated")
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
async def what_do_you_know(
    topic: Annotated[str, Field(description="a person, place, project or question")],
) -> str:
    def answer(user) -> tuple[str, str]:
        try:
            cleaned = _text(_cleaned(user, "what_do_you_know", {"topic": topic})[0]["topic"], "topic")
        except DomainError as exc:
            # A JSON-RPC "invalid params" error with the reason; the SDK would log anything else as a crash.
            raise MCPError(INVALID_PARAMS, exc.message) from exc
        return cleaned, _recall(user, {"query": f"What do you know about {cleaned}?"})["block"]

    asked, context = await _owner_read(answer)
    return (
        f"What do you know about {asked}? Answer only from the Almanac context below, and say plainly when it "
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
