"""Real session files other projects keep as fixtures (tests/fixtures/real_sessions/PROVENANCE.md).

Each file is imported with the turn counts checked against a count made here with plain ``json`` over the
file, by the file's own record types and roles; re-imported as a no-op; and distilled with no memory about the
owner whose evidence is anything but the owner's own typed words.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from chats.models import ChatSession, ChatTurn
from chats.services.imports import import_path
from ledger.models import Evidence

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "real_sessions"
FORMAT = {"claude_code": "claude-code", "codex": "codex", "chatgpt": "openai", "claude_ai": "anthropic"}
FILES = sorted((d, f.name) for d in FORMAT for f in (ROOT / d).iterdir())
pytestmark = pytest.mark.django_db


def _lines(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _prompt(text: str) -> bool:
    """A real prompt: not a harness block (those start with "<"), an interruption note or the command caveat."""
    text = text.strip()
    return bool(text) and not text.startswith(("<", "[Request interrupted", "Caveat: The messages below"))


def count_claude_code(path: Path) -> dict:
    users, replies, tools, acting = defaultdict(int), defaultdict(set), set(), set()
    prompts: dict[str, set] = defaultdict(set)
    seen = set()
    for rec in _lines(path):
        sid, msg = rec.get("sessionId"), rec.get("message")
        if rec.get("type") not in ("user", "assistant") or rec.get("isSidechain") or not isinstance(msg, dict):
            continue
        if rec.get("uuid") in seen:
            continue
        seen.add(rec.get("uuid"))
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if rec["type"] == "user" and not rec.get("isMeta") and not rec.get("isCompactSummary"):
            if texts and _prompt("\n".join(texts)):
                users[sid] += 1
                prompts[sid].add("\n".join(texts).strip())
        elif rec["type"] == "assistant":
            if any(t.strip() for t in texts):
                replies[sid].add(msg.get("id") or rec.get("uuid"))
            used = {b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"}
            tools.update(used)
            acting.update([sid] if used else [])
    for rec in _lines(path):
        content, sid = rec.get("content"), rec.get("sessionId")
        if rec.get("type") == "queue-operation" and isinstance(content, str) and _prompt(content):
            users[sid] += content.strip() not in prompts[sid]
    return {"user": sum(users.values()), "assistant": sum(len(v) for v in replies.values()), "tools": len(tools),
            "sessions": len(set(users) | set(replies) | acting)}  # fmt: skip


def count_codex(path: Path) -> dict:
    recs = [r for r in _lines(path) if isinstance(r.get("payload"), dict)]
    events = [r["payload"] for r in recs if r.get("type") == "event_msg"]
    items = [r["payload"] for r in recs if r.get("type") == "response_item"]
    if any(e.get("type") in ("user_message", "agent_message") for e in events):
        user = sum(1 for e in events if e.get("type") == "user_message" and _prompt(str(e.get("message") or "")))
        agent = sum(1 for e in events if e.get("type") == "agent_message" and str(e.get("message") or "").strip())
    else:

        def text(p):
            return "".join(c.get("text", "") for c in p.get("content") or [])

        user = sum(1 for p in items if p.get("type") == "message" and p.get("role") == "user" and _prompt(text(p)))
        agent = sum(1 for p in items if p.get("type") == "message" and p.get("role") == "assistant" and text(p))
    tools = sum(1 for p in items if p.get("type") in ("function_call", "custom_tool_call", "local_shell_call"))
    return {"user": user, "assistant": agent, "tools": tools, "sessions": 1 if user or agent or tools else 0}


def count_chatgpt(path: Path) -> dict:
    data = json.loads(path.read_text())
    totals = {"user": 0, "assistant": 0, "tools": 0, "sessions": 0}
    for conv in data if isinstance(data, list) else [data]:
        mapping = conv["mapping"]
        node = conv.get("current_node")
        chain = []
        while node:
            chain.append(mapping[node])
            node = mapping[node].get("parent")
        for n in chain:
            m = n.get("message") or {}
            role, content = (m.get("author") or {}).get("role"), m.get("content") or {}
            every = content.get("parts") or []
            texts = [p if isinstance(p, str) else p.get("text") for p in every
                     if isinstance(p, str) or (isinstance(p, dict) and p.get("content_type") == "text")]  # fmt: skip
            parts = [t for t in texts if isinstance(t, str) and t.strip()]
            totals["tools"] += sum(1 for p in every if isinstance(p, dict) and p.get("content_type") == "tool_call")
            visible = content.get("content_type") in ("text", "multimodal_text") and parts
            if role == "user" and visible:
                totals["user"] += 1
            elif role == "assistant" and (m.get("recipient") or "all") != "all":
                totals["tools"] += 1
            elif role == "assistant" and visible:
                totals["assistant"] += 1
        totals["sessions"] += 1
    return totals


def count_claude_ai(path: Path) -> dict:
    data = json.loads(path.read_text())
    totals = {"user": 0, "assistant": 0, "tools": 0, "sessions": 0}
    for conv in data if isinstance(data, list) else [data]:
        for m in conv["chat_messages"]:
            blocks = m.get("content") or []
            text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text") if blocks else m.get("text")
            if (text or "").strip():
                totals["user" if m["sender"] == "human" else "assistant"] += 1
            totals["tools"] += sum(1 for b in blocks if b.get("type") == "tool_use")
        totals["sessions"] += 1
    return totals


COUNTERS = {"claude_code": count_claude_code, "codex": count_codex, "chatgpt": count_chatgpt,
            "claude_ai": count_claude_ai}  # fmt: skip


def stored_counts(owner) -> dict:
    turns = ChatTurn.objects.filter(owner=owner)
    return {
        "user": turns.filter(role="user").count(),
        "assistant": sum(1 for t in turns.filter(role="assistant") if t.text.strip()),
        "tools": sum(len(t.tool_calls) for t in turns),
        "sessions": ChatSession.objects.filter(owner=owner).count(),
    }


def test_there_are_enough_real_files_of_each_kind():
    kinds = defaultdict(int)
    for d, _ in FILES:
        kinds[d] += 1
    assert kinds["claude_code"] >= 4 and kinds["codex"] >= 3 and kinds["chatgpt"] >= 2 and kinds["claude_ai"] >= 2


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_real_file_imports_with_the_files_own_turn_counts(user, folder, name):
    path = ROOT / folder / name
    expected = COUNTERS[folder](path)
    report = import_path(owner=user, path=path, fmt=FORMAT[folder])
    assert report.errors == [] and report.hints == []
    assert expected["user"] + expected["assistant"] > 0
    assert stored_counts(user) == expected


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_real_file_reimport_is_a_no_op(user, folder, name, tmp_path):
    path = tmp_path / name
    path.write_bytes((ROOT / folder / name).read_bytes())
    import_path(owner=user, path=path, fmt=FORMAT[folder])
    turns = ChatTurn.objects.filter(owner=user).count()
    again = import_path(owner=user, path=path, fmt=FORMAT[folder])
    assert again.files_skipped == again.files_seen == 1
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 10))  # touched: read again, nothing new
    touched = import_path(owner=user, path=path, fmt=FORMAT[folder])
    assert touched.turns_added == 0 and set(touched.outcomes) == {"unchanged"}
    assert ChatTurn.objects.filter(owner=user).count() == turns


@pytest.mark.parametrize(("folder", "name"), FILES)
def test_real_file_memories_come_only_from_the_owners_typed_words(user, folder, name):
    import_path(owner=user, path=ROOT / folder / name, fmt=FORMAT[folder])
    typed = [t.text for t in ChatTurn.objects.filter(owner=user, role="user")]
    quotes = [
        e.quote for e in Evidence.objects.filter(owner=user).exclude(source_type="chat", extractor_id="chats.lessons")
    ]
    for quote in quotes:
        assert any(quote.strip() in t for t in typed), quote
    others = [t for t in ChatTurn.objects.filter(owner=user) if t.role != "user"]
    pasted = [e["text"] for t in ChatTurn.objects.filter(owner=user) for e in t.extras]
    for quote in quotes:
        assert not any(quote.strip() and quote.strip() in x for x in [*(t.text for t in others), *pasted]), quote
