"""Chats API: ingest (/memory/ingest), conversation import (/chats/conversations), sessions and lessons.

Mounted at the API root (the ingest path lives under /memory/ for agents' convenience).
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router
from pydantic import ValidationError

from chats import queries, tasks
from chats.schemas import (
    ChatConversationOut,
    ConversationIn,
    ConversationsOut,
    ErrorOut,
    FlushIn,
    HookIn,
    HookOut,
    IngestIn,
    IngestOut,
    LessonOut,
    SessionOut,
)
from chats.services import agent_hooks
from chats.services import conversations as conversation_services
from chats.services import ingest as ingest_services

router = Router(tags=["chats"])
MAX_JSONL_BYTES = 20 * 1024 * 1024


@router.post("/memory/ingest", response={200: IngestOut, 422: ErrorOut})
def ingest(request, payload: IngestIn):
    result = ingest_services.ingest(
        owner=request.auth,
        agent_id=payload.agent_id,
        conversation_id=payload.conversation_id,
        turns=[t.dict() for t in payload.turns],
        session_date=payload.session_date,
        skip_extraction=payload.skip_extraction,
        flush=payload.flush,
        enqueue=tasks.enqueue_distill,
        mode=payload.mode,
    )
    return _ingest_out(result, payload.conversation_id, payload.agent_id)


def _ingest_out(result, conversation_id: str, agent_id: str) -> dict:
    out = result.as_dict()
    out["conversation_id"] = out["conversation_id"] or conversation_id
    out["agent_id"] = out["agent_id"] or agent_id
    return out


@router.post("/memory/ingest/flush", response={200: IngestOut, 422: ErrorOut})
def flush(request, payload: FlushIn):
    result = ingest_services.flush(
        owner=request.auth, conversation_id=payload.conversation_id, enqueue=tasks.enqueue_distill
    )
    return _ingest_out(result, payload.conversation_id, "")


@router.get("/memory/ingest/{conversation_id}", response={200: IngestOut, 422: ErrorOut})
def ingest_status(request, conversation_id: str):
    result = ingest_services.status(owner=request.auth, conversation_id=conversation_id)
    return _ingest_out(result, conversation_id, "")


@router.post("/chats/conversations", response={200: ChatConversationOut, 422: ErrorOut})
def import_conversation(request, payload: ConversationIn):
    return _import_one(request.auth, payload).as_dict()


def _import_one(owner, payload: ConversationIn):
    return conversation_services.import_conversation(
        owner=owner,
        external_id=payload.external_id,
        title=payload.title,
        started_at=payload.started_at,
        participants=[p.dict() for p in payload.participants],
        turns=[t.dict() for t in payload.turns],
    )


@router.post("/chats/conversations/jsonl", response={200: ConversationsOut, 413: ErrorOut, 422: ErrorOut})
def import_conversations_jsonl(request: HttpRequest):
    """Body: one conversation object (the shape of POST /chats/conversations) per line."""
    if len(request.body) > MAX_JSONL_BYTES:
        return 413, {"detail": f"body larger than {MAX_JSONL_BYTES} bytes"}
    rows = conversation_services.parse_jsonl(request.body.decode("utf-8", errors="replace"))
    payloads = []
    for n, row in enumerate(rows, start=1):
        try:
            payloads.append(ConversationIn.model_validate(row))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", []))
            raise conversation_services.ConversationError(f"conversation {n}: {loc}: {first.get('msg')}") from exc
    return {"conversations": [_import_one(request.auth, p).as_dict() for p in payloads]}


@router.get("/chats/sessions", response=list[SessionOut])
def sessions(request, limit: int = 50):
    return [queries.session_out(s) for s in queries.recent_sessions(request.auth, limit=min(max(limit, 1), 500))]


@router.get("/chats/lessons", response=list[LessonOut])
def lessons(request, q: str = "", limit: int = 50):
    return [queries.lesson_out(x) for x in queries.lessons(request.auth, query=q, limit=min(max(limit, 1), 200))]


@router.post("/chats/hooks/{event}", response={200: HookOut, 422: ErrorOut})
def hook(request, event: str, payload: HookIn):
    """One Claude Code hook call (``chats/agent_plugin/hook_client.py`` sends its stdin here, with the new transcript lines and
    the project it read on the agent's machine); ``output`` is what the client prints."""
    data = payload.model_dump(exclude_none=True)
    answer = agent_hooks.run_hook(owner=request.auth, event=event, payload=data,
                                  enqueue_import=tasks.enqueue_transcript_import)  # fmt: skip
    return {"output": answer.output, "transcript_offset": answer.transcript_offset}
