"""Claude Code session transcripts (``~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl``).

Only top-level ``*.jsonl`` files of a project folder are sessions; ``agent-*.jsonl`` siblings and ``subagents/``
folders are subagent transcripts and are skipped, as are ``isSidechain`` lines. User text drops meta lines,
compaction summaries, slash-command records and other harness tags; the assistant records of one API
message (same ``message.id``) merge into one turn; each ``tool_result`` is attached to its ``tool_use`` by id.
"""

from __future__ import annotations

import json
from pathlib import Path

from chats.importers.base import parse_time
from chats.text import SessionIn, TurnIn

SOURCE = "chat:claude-code"


def session_files(root: Path) -> list[Path]:
    """Top-level session files under ``root`` (a projects folder, one project folder, or one file)."""
    if root.is_file():
        return [] if root.name.startswith("agent-") else [root]
    folders = [root] + [p for p in root.iterdir() if p.is_dir() and p.name != "subagents"]
    files = []
    for folder in folders:
        files += [p for p in sorted(folder.glob("*.jsonl")) if not p.name.startswith("agent-")]
    return files


def _records(path: Path):
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a half-written last line of a live session, or garbage: skip it
            if isinstance(rec, dict):
                yield rec


def _user_text(content) -> str:
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    else:
        parts = []
    text = "\n".join(p for p in parts if p).strip()
    # Slash commands, their output, shell-mode echoes and injected context all start with a tag.
    if text.startswith("<") or text.startswith("[Request interrupted"):
        return ""
    return text


def _tool_results(content) -> list[dict]:
    if not isinstance(content, list):
        return []
    out = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == "tool_result":
            c = b.get("content")
            if isinstance(c, list):
                c = "\n".join(x.get("text", "") for x in c if isinstance(x, dict) and x.get("type") == "text")
            out.append({"id": b.get("tool_use_id"), "result": str(c or "")[:4000], "is_error": bool(b.get("is_error"))})
    return out


def parse_file(path: Path) -> list[SessionIn]:
    turns: list[TurnIn] = []
    calls: dict[str, dict] = {}
    by_message: dict[str, TurnIn] = {}
    title = ai_title = ""
    session_id, cwd = path.stem, ""
    for rec in _records(path):
        kind = rec.get("type")
        if kind == "summary":
            title = title or str(rec.get("summary") or "")
            continue
        if kind == "ai-title":
            ai_title = str(rec.get("aiTitle") or ai_title)
            continue
        if kind not in ("user", "assistant") or rec.get("isSidechain"):
            continue
        session_id = rec.get("sessionId") or session_id
        cwd = rec.get("cwd") or cwd
        at = parse_time(rec.get("timestamp"))
        message = rec.get("message") or {}
        content = message.get("content")
        if kind == "user":
            for res in _tool_results(content):
                call = calls.get(res["id"])
                if call is not None:
                    call["result"], call["is_error"] = res["result"], res["is_error"]
            if rec.get("isMeta") or rec.get("isCompactSummary"):
                continue
            text = _user_text(content)
            if text:
                turns.append(TurnIn(role="user", text=text, speaker="user", is_owner=True, at=at))
            continue
        mid = message.get("id") or rec.get("uuid") or str(len(turns))
        turn = by_message.get(mid)
        if turn is None:
            turn = by_message[mid] = TurnIn(
                role="assistant", text="", speaker=message.get("model") or "assistant", at=at
            )
            turns.append(turn)
        for block in content if isinstance(content, list) else [{"type": "text", "text": str(content or "")}]:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and block.get("text"):
                turn.text = f"{turn.text}\n{block['text']}".strip()
            elif block.get("type") == "tool_use":
                call = {"id": block.get("id"), "name": block.get("name"), "input": block.get("input") or {},
                        "result": "", "is_error": False}  # fmt: skip
                calls[block.get("id")] = call
                turn.tool_calls.append(call)
    if not turns:
        return []
    return [
        SessionIn(
            source_key=SOURCE,
            external_id=session_id,
            turns=turns,
            title=ai_title or title,
            project=cwd,
            started_at=turns[0].at,
        )  # fmt: skip
    ]
