"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``).

Every line is ``{timestamp, type, payload}``. What the person typed and what the agent answered are taken from
``event_msg`` (user_message / agent_message) when the file has them, because each also appears as a
``response_item`` message (which for users includes injected context); older or exec-mode files that carry
only ``response_item`` messages are read from those, skipping the injected context blocks. An editor's IDE
context before "## My request for Codex:" is kept apart from the typed request. Tool calls come from
``response_item`` function/custom/local-shell calls; their outputs are attached by ``call_id`` with the exit
code read from the structured output (JSON metadata, the "Exit code: N" header, or ``exec_command_end``).
Reasoning summaries are kept as thinking, never as the reply.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from chats.importers.base import FileReport, parse_time, read_jsonl, split_ide_context, split_typed
from chats.text import SessionIn, TurnIn

SOURCE = "chat:codex"
_EXIT_HEADER = re.compile(r"^\s*(?:Exit code|Process exited with code)[:\s]+(-?\d+)", re.IGNORECASE | re.MULTILINE)
CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")


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


def parse_output(raw) -> tuple[str, int | None]:
    """(output text, exit code or None) of a function_call_output: a JSON string with ``output`` and
    ``metadata.exit_code``, a text with an "Exit code: N" header, or content items."""
    if isinstance(raw, list):
        return "\n".join(str(x.get("text", "")) for x in raw if isinstance(x, dict)), None
    data = raw
    if isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            data = json.loads(raw)
        except ValueError:
            data = raw
    if isinstance(data, dict):
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        code = meta.get("exit_code", data.get("exit_code"))
        text = str(data.get("output") or data.get("content") or "")
        return text, code if isinstance(code, int) and not isinstance(code, bool) else None
    text = str(data or "")
    m = _EXIT_HEADER.search(text[:300])
    return text, int(m.group(1)) if m else None


def _message_text(payload: dict) -> str:
    return "\n".join(str(c.get("text") or "") for c in payload.get("content") or [] if isinstance(c, dict)).strip()


class _Reader:
    def __init__(self, path: Path, use_events: bool):
        self.session_id, self.cwd, self.use_events = path.stem, "", use_events
        self.repository = ""
        self.turns: list[TurnIn] = []
        self.calls: dict[str, dict] = {}
        self.pending: list[dict] = []
        self.thinking: list[dict] = []

    def user(self, text: str, at) -> None:
        typed, extras = split_ide_context(text)
        typed, more = split_typed(typed)
        if typed or any(e["kind"] in ("pasted", "quoted") for e in more):
            self.turns.append(TurnIn(role="user", text=typed, speaker="user", is_owner=True, at=at,
                                     extras=extras + more))  # fmt: skip

    def assistant(self, text: str, at) -> None:
        turn = TurnIn(role="assistant", text=text.strip(), speaker="codex", at=at, extras=self.thinking)
        turn.tool_calls, self.pending, self.thinking = self.pending, [], []
        self.turns.append(turn)

    def call(self, payload: dict) -> None:
        if payload.get("type") == "local_shell_call":
            args = payload.get("action") or {}
        else:
            args = _arguments(payload.get("arguments") if "arguments" in payload else payload.get("input"))
        call = {"id": payload.get("call_id"), "name": payload.get("name") or "shell", "input": args,
                "result": "", "is_error": False}  # fmt: skip
        self.calls[payload.get("call_id")] = call
        self.pending.append(call)

    def output(self, payload: dict) -> None:
        call = self.calls.get(payload.get("call_id"))
        if call is None:
            return
        text, code = parse_output(payload.get("output"))
        call["result"] = text[:4000]
        if code is not None:
            call["exit_code"], call["is_error"] = code, code != 0

    def line(self, rec: dict) -> None:
        kind, payload = rec.get("type"), rec.get("payload")
        if not isinstance(payload, dict):
            return
        at = parse_time(rec.get("timestamp") or payload.get("timestamp"))
        ptype = payload.get("type")
        if kind == "session_meta":
            self.session_id = str(payload.get("id") or self.session_id)
            self.cwd = payload.get("cwd") or self.cwd
            git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
            self.repository = str(git.get("repository_url") or self.repository)
        elif kind == "turn_context":
            self.cwd = payload.get("cwd") or self.cwd
        elif kind == "event_msg" and self.use_events and ptype in ("user_message", "agent_message"):
            text = str(payload.get("message") or "")
            self.user(text, at) if ptype == "user_message" else self.assistant(text, at)
        elif kind == "event_msg" and ptype == "exec_command_end":
            call = self.calls.get(payload.get("call_id"))
            if call is not None and isinstance(payload.get("exit_code"), int):
                call["exit_code"], call["is_error"] = payload["exit_code"], payload["exit_code"] != 0
        elif kind == "response_item" and ptype == "message" and not self.use_events:
            role, text = payload.get("role"), _message_text(payload)
            if role == "user" and text and not text.startswith("<") and not text.startswith("# AGENTS.md"):
                self.user(text, at)
            elif role == "assistant" and text:
                self.assistant(text, at)
        elif kind == "response_item" and ptype == "reasoning":
            summary = " ".join(str(s.get("text") or "") for s in payload.get("summary") or [] if isinstance(s, dict))
            if summary.strip():
                self.thinking.append({"kind": "thinking", "text": summary.strip()[:4000]})
        elif kind == "response_item" and ptype in CALLS:
            self.call(payload)
        elif kind == "response_item" and ptype in OUTPUTS:
            self.output(payload)

    def finish(self) -> None:
        if not self.pending:
            return
        last = self.turns[-1] if self.turns else None
        if last is not None and last.role == "assistant":
            last.tool_calls += self.pending  # calls after the last reply (an aborted turn) belong to it
        else:
            self.turns.append(TurnIn(role="assistant", text="", speaker="codex", tool_calls=self.pending))
        self.pending = []


def parse_file(path: Path, report: FileReport | None = None) -> list[SessionIn]:
    report = report if report is not None else FileReport()
    records = list(read_jsonl(path, report))
    use_events = any(
        r.get("type") == "event_msg" and isinstance(r.get("payload"), dict)
        and r["payload"].get("type") in ("user_message", "agent_message")
        for r in records
    )  # fmt: skip
    reader = _Reader(path, use_events)
    for rec in records:
        if not isinstance(rec.get("payload"), dict):
            report.skip("record without a payload object")
            continue
        reader.line(rec)
    reader.finish()
    if not reader.turns:
        return []
    return [SessionIn(source_key=SOURCE, external_id=reader.session_id, turns=reader.turns, project=reader.cwd,
                      repository=reader.repository,
                      started_at=next((t.at for t in reader.turns if t.at), None))]  # fmt: skip
