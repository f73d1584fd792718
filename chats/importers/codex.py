"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Every line is ``{timestamp, type, payload}``. What the person typed and what the agent answered are taken from
``event_msg`` (user_message / agent_message) only, because each also appears as a ``response_item`` message
(which for users includes injected context). Tool calls come from ``response_item`` function/custom tool calls,
and their outputs are attached by ``call_id``.
"""

from __future__ import annotations

import json
from pathlib import Path

from chats.importers.base import parse_time
from chats.text import SessionIn, TurnIn

SOURCE = "chat:codex"


def session_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("rollout-*.jsonl") if "archived_sessions" not in p.parts) or sorted(
        root.rglob("*.jsonl")
    )


def _arguments(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"raw": str(raw)[:2000]}
    return value if isinstance(value, dict) else {"value": value}


def _output(raw) -> str:
    if isinstance(raw, list):
        return "\n".join(str(x.get("text", "")) for x in raw if isinstance(x, dict))
    if isinstance(raw, dict):
        return str(raw.get("output") or raw.get("content") or json.dumps(raw))
    return str(raw or "")


def parse_file(path: Path) -> list[SessionIn]:
    session_id, cwd = path.stem, ""
    turns: list[TurnIn] = []
    calls: dict[str, dict] = {}
    pending_calls: list[dict] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        kind, payload = rec.get("type"), rec.get("payload") or {}
        at = parse_time(rec.get("timestamp"))
        if kind == "session_meta":
            session_id = payload.get("id") or session_id
            cwd = payload.get("cwd") or cwd
        elif kind == "turn_context":
            cwd = payload.get("cwd") or cwd
        elif kind == "event_msg" and payload.get("type") == "user_message":
            text = str(payload.get("message") or "").strip()
            if text:
                turns.append(TurnIn(role="user", text=text, speaker="user", is_owner=True, at=at))
        elif kind == "event_msg" and payload.get("type") == "agent_message":
            turn = TurnIn(role="assistant", text=str(payload.get("message") or ""), speaker="codex", at=at)
            turn.tool_calls, pending_calls = pending_calls, []
            turns.append(turn)
        elif kind == "response_item" and payload.get("type") in (
            "function_call",
            "custom_tool_call",
            "local_shell_call",
        ):
            args = _arguments(payload.get("arguments") if "arguments" in payload else payload.get("input"))
            if payload.get("type") == "local_shell_call":
                args = payload.get("action") or {}
            call = {"id": payload.get("call_id"), "name": payload.get("name") or "shell", "input": args,
                    "result": "", "is_error": False}  # fmt: skip
            calls[payload.get("call_id")] = call
            pending_calls.append(call)
        elif kind == "response_item" and payload.get("type") in ("function_call_output", "custom_tool_call_output"):
            call = calls.get(payload.get("call_id"))
            if call is not None:
                out = _output(payload.get("output"))
                call["result"] = out[:4000]
                call["is_error"] = _looks_failed(out)
    if pending_calls:
        turns.append(TurnIn(role="assistant", text="", speaker="codex", tool_calls=pending_calls))
    if not turns:
        return []
    return [SessionIn(source_key=SOURCE, external_id=session_id, turns=turns, project=cwd, started_at=turns[0].at)]


def _looks_failed(output: str) -> bool:
    """Codex output carries the exit code as text ("Exit code: 1") or as JSON metadata."""
    head = output[:400].lower()
    if '"exit_code": 0' in head or "exit code: 0" in head:
        return False
    return '"exit_code":' in head or "exit code:" in head or "error" in head
