"""Tool calls reported by PostToolUse hooks: recorded as they happen, summarised while the session's transcript
has not arrived yet, and dropped once it has (the transcript holds the same calls, with their results)."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from chats.episodes import actions_summary
from chats.models import AgentProject, AgentToolEvent, ChatSession
from chats.services.agent_transcripts import cut_strings, mask_secrets

MAX_RESPONSE = 4_000


def _response_text(response) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        parts = [str(response.get(k) or "") for k in ("stdout", "stderr", "error", "content", "output")]
        return "\n".join(p for p in parts if p)
    return ""


def record(*, owner, payload: dict, project: AgentProject | None) -> AgentToolEvent | None:
    """Store the call a PostToolUse/PostToolUseFailure payload carries (the payload's private spans are already
    removed); a call reported twice is stored once."""
    session_id = str(payload.get("session_id") or "")[:200]
    name = str(payload.get("tool_name") or "")[:200]
    if not session_id or not name:
        return None
    failed = payload.get("hook_event_name") == "PostToolUseFailure" or bool(payload.get("error"))
    response = _response_text(payload.get("tool_response")) or str(payload.get("error") or "")
    call = mask_secrets({"input": cut_strings(payload.get("tool_input") if isinstance(payload.get("tool_input"), dict)
                                        else {}), "response": response[:MAX_RESPONSE]})  # fmt: skip
    try:
        with transaction.atomic():
            return AgentToolEvent.objects.create(
                owner=owner, agent_session_id=session_id, agent_project=project, is_error=failed, call=call,
                tool_use_id=str(payload.get("tool_use_id") or "")[:200], tool_name=name,
            )  # fmt: skip
    except IntegrityError:
        return None


def forget_imported(*, owner, session_id: str) -> int:
    """Drop the events of a session whose transcript is now stored."""
    deleted, _ = AgentToolEvent.objects.owned_by(owner).filter(agent_session_id=session_id).delete()
    return deleted


def pending_activity(owner, project: AgentProject | None, *, exclude_session_id: str = "") -> tuple[str, str, object]:
    """(session id, summary, time) of the latest session in ``project`` known only from its tool calls (its
    transcript never arrived); ("", "", None) when there is none."""
    if project is None:
        return "", "", None
    rows = AgentToolEvent.objects.owned_by(owner).filter(agent_project=project)
    if exclude_session_id:
        rows = rows.exclude(agent_session_id=exclude_session_id)
    latest = rows.order_by("-created_at").first()
    if latest is None:
        return "", "", None
    stored = ChatSession.objects.owned_by(owner).filter(external_id__endswith=f":{latest.agent_session_id}")
    if stored.exists():
        return "", "", None
    events = list(rows.filter(agent_session_id=latest.agent_session_id))
    calls = [{"name": e.tool_name, "input": (e.call or {}).get("input") or {}, "is_error": e.is_error} for e in events]
    return latest.agent_session_id, actions_summary(calls) or f"{len(events)} tool call(s)", latest.created_at
