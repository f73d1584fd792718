"""Conversations exported from chat assistants, and plain API message lists.

- ``openai``: a ChatGPT ``conversations.json`` (mapping tree: the visible thread is walked from
  ``current_node`` up through ``parent``), or an OpenAI chat-completions body ``{"messages": [...]}``.
- ``anthropic``: a Claude.ai ``conversations.json`` (``chat_messages`` with sender human/assistant), or an
  Anthropic Messages body ``{"system", "messages": [...]}``.
- ``gemini``: a Takeout "Gemini Apps" ``MyActivity.json`` (one prompt/response per entry, newest first; grouped
  into conversations by the app URL, else by day), or a ``generateContent`` body ``{"contents": [...]}``.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

from chats.importers.base import FileReport, load_json, parse_time, split_typed
from chats.text import SessionIn, TurnIn


def _load(path: Path):
    return load_json(path)


def _digest_id(path: Path, i: int) -> str:
    return hashlib.sha256(f"{path.name}:{i}".encode()).hexdigest()[:24]


def _user(text, at=None) -> TurnIn:
    typed, extras = split_typed(text)
    return TurnIn(role="user", text=typed, speaker="user", is_owner=True, at=at, extras=extras)


def _assistant(text, at=None, speaker="assistant", calls=None) -> TurnIn:
    return TurnIn(role="assistant", text=text, speaker=speaker, at=at, tool_calls=calls or [])


def _has_own(turn: TurnIn) -> bool:
    return bool(turn.text) or any(e["kind"] in ("pasted", "quoted") for e in turn.extras)


# --- OpenAI ------------------------------------------------------------------------------------------
def _part_text(part) -> str:
    """A part's text: a string, or an object carrying ``text`` (a text block, a voice transcription); images
    and other assets carry none."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("content_type") not in (
        "tool_call", "tool_result"):  # fmt: skip
        return part["text"]
    return ""


def _chatgpt_parts(content: dict) -> str:
    ctype = content.get("content_type")
    if ctype in ("text", "multimodal_text"):
        return "\n".join(t for t in (_part_text(p) for p in content.get("parts") or []) if t).strip()
    if ctype in ("code", "execution_output"):
        return str(content.get("text") or "")
    return ""


def _tool_parts(content: dict, kind: str) -> list[dict]:
    return [p for p in content.get("parts") or [] if isinstance(p, dict) and p.get("content_type") == kind]


def _chatgpt_thoughts(content: dict) -> str:
    if content.get("content_type") == "thoughts":
        return "\n".join(str(t.get("content") or t.get("summary") or "") for t in content.get("thoughts") or []
                         if isinstance(t, dict)).strip()  # fmt: skip
    if content.get("content_type") == "reasoning_recap":
        return str(content.get("content") or "")
    return ""


def _leaf(mapping: dict) -> str | None:
    """The visible thread's end when an export has no ``current_node``: the newest node without children."""
    leaves = [(k, n) for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
    if not leaves:
        return None

    def when(item):
        msg = item[1].get("message") or {}
        return float(msg.get("create_time") or 0) if isinstance(msg.get("create_time"), int | float) else 0.0

    return max(leaves, key=when)[0]


def _chatgpt_message(turns: list[TurnIn], msg: dict, thinking: list[dict]) -> None:
    role = (msg.get("author") or {}).get("role")
    content = msg.get("content") or {}
    at = parse_time(msg.get("create_time"))
    thought = _chatgpt_thoughts(content)
    if thought:
        thinking.append({"kind": "thinking", "text": thought[:4000]})
        return
    text = _chatgpt_parts(content)
    recipient = msg.get("recipient") or "all"
    calls = [
        {
            "id": p.get("id"),
            "name": p.get("name") or "tool",
            "input": p.get("input") if isinstance(p.get("input"), dict) else {},
            "result": "",
            "is_error": False,
        }
        for p in _tool_parts(content, "tool_call")
    ]
    if calls and role == "assistant":  # tool calls as content parts (exports that carry them that way)
        turns.append(_assistant(text, at, speaker="chatgpt", calls=calls))
        return
    results = _tool_parts(content, "tool_result")
    if results and role == "tool":
        for r in results:
            _attach(turns, r.get("id"), str(r.get("output") or r.get("text") or "")[:4000])
        return
    if role == "user" and text:
        turns.append(_user(text, at))
    elif role == "assistant" and recipient != "all":
        # Addressed to a tool (browsing, code interpreter): a tool call, not a reply to the person.
        call = {"id": msg.get("id"), "name": recipient, "input": {"code": text[:4000]}, "result": "", "is_error": False}
        if turns and turns[-1].role == "assistant" and not turns[-1].text:
            turns[-1].tool_calls.append(call)
        else:
            turns.append(_assistant("", at, speaker="chatgpt", calls=[call]))
    elif role == "assistant" and text:
        slug = (msg.get("metadata") or {}).get("model_slug") or "chatgpt"
        if turns and turns[-1].role == "assistant" and not turns[-1].text and turns[-1].tool_calls:
            turns[-1].text, turns[-1].speaker = text, slug  # the reply after its own tool calls
        else:
            turns.append(_assistant(text, at, speaker=slug))
        turns[-1].extras += thinking
        thinking.clear()
    elif role == "tool" and text and turns and turns[-1].role == "assistant":
        name = (msg.get("author") or {}).get("name") or "tool"
        target = next((c for c in reversed(turns[-1].tool_calls) if not c.get("result")), None)
        if target is None:
            turns[-1].tool_calls.append({"name": name, "result": text[:4000], "is_error": False})
        else:
            target["result"] = text[:4000]


def _chatgpt(conv: dict, path: Path, i: int, tag: str = "") -> SessionIn | None:
    mapping = conv.get("mapping") or {}
    if not isinstance(mapping, dict):
        return None
    node_id = conv.get("current_node") if conv.get("current_node") in mapping else _leaf(mapping)
    chain: list[dict] = []
    seen: set = set()
    while node_id and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        chain.append(mapping[node_id])
        node_id = mapping[node_id].get("parent")
    turns: list[TurnIn] = []
    thinking: list[dict] = []
    for node in reversed(chain):
        msg = node.get("message")
        if not isinstance(msg, dict) or (msg.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
            continue
        _chatgpt_message(turns, msg, thinking)
    turns = [t for t in turns if t.role != "user" or _has_own(t)]
    if not turns:
        return None
    ext = conv.get("id") or conv.get("conversation_id") or _digest_id(path, i)
    return SessionIn(source_key="chat:openai", external_id=str(ext), turns=turns, title=conv.get("title") or "",
                     started_at=parse_time(conv.get("create_time")) or turns[0].at)  # fmt: skip


def _openai_messages(body: dict, path: Path, i: int = 0) -> list[SessionIn]:
    turns = []
    for m in body.get("messages") or []:
        role, content = m.get("role"), m.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        text = str(content or "")
        if role == "user":
            turns.append(_user(text))
        elif role == "assistant":
            calls = [{"id": c.get("id"), "name": (c.get("function") or {}).get("name"),
                      "input": _json((c.get("function") or {}).get("arguments")), "result": ""}
                     for c in m.get("tool_calls") or []]  # fmt: skip
            turns.append(_assistant(text, calls=calls))
        elif role == "tool":
            _attach(turns, m.get("tool_call_id"), text)
    turns = [t for t in turns if t.role != "user" or _has_own(t)]
    if not any(t.role == "user" for t in turns):
        return []
    ext = str(body.get("id") or body.get("conversation_id") or _digest_id(path, i))
    return [SessionIn(source_key="chat:openai", external_id=ext, turns=turns, title=str(body.get("title") or ""),
                      started_at=parse_time(body.get("create_time")))]  # fmt: skip


def parse_openai(path: Path, report: FileReport | None = None) -> list[SessionIn]:
    """A ChatGPT export (conversations with a ``mapping`` tree), a list of conversations carrying plain
    ``messages`` (browser exporters), or one chat-completions body."""
    report = report if report is not None else FileReport()
    data = _load(path)
    if isinstance(data, dict) and "messages" in data and "mapping" not in data:
        return _openai_messages(data, path)
    convs = data if isinstance(data, list) else [data]
    out = []
    for i, conv in enumerate(convs):
        if not isinstance(conv, dict):
            report.skip("a conversation that is not an object")
            continue
        if "mapping" not in conv and isinstance(conv.get("messages"), list):
            found = _openai_messages(conv, path, i)
        else:
            found = [s for s in [_chatgpt(conv, path, i)] if s]
        if not found:
            report.skip("a conversation with no message from you")
        out += found
    return out


# --- Anthropic ---------------------------------------------------------------------------------------
def _blocks_text(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def _claude_ai_message(turns: list[TurnIn], calls: dict, m: dict) -> None:
    at = parse_time(m.get("created_at"))
    blocks = [b for b in m.get("content") or [] if isinstance(b, dict)]
    human = m.get("sender") in ("human", "user")
    for b in blocks:
        if b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
            call = calls[b["tool_use_id"]]
            call["result"], call["is_error"] = _blocks_text(b.get("content"))[:4000], bool(b.get("is_error"))
    # When the message has content blocks they are the truth: the flattened ``text`` may also hold the hidden
    # thinking that preceded the answer.
    text = _blocks_text(blocks).strip() if blocks else str(m.get("text") or "").strip()
    if human:
        turn = _user(text, at)
        for a in m.get("attachments") or []:
            if isinstance(a, dict) and a.get("extracted_content"):
                turn.extras.append({"kind": "pasted", "text": str(a["extracted_content"])[:4000]})
        if _has_own(turn):
            turns.append(turn)
        return
    turn = _assistant(text, at, "claude")
    for b in blocks:
        if b.get("type") == "thinking" and b.get("thinking"):
            turn.extras.append({"kind": "thinking", "text": str(b["thinking"])[:4000]})
        elif b.get("type") == "tool_use":
            call = {"id": b.get("id"), "name": b.get("name"), "input": b.get("input") or {}, "result": "",
                    "is_error": False}  # fmt: skip
            calls[b.get("id")] = call
            turn.tool_calls.append(call)
    if turn.text or turn.tool_calls:
        turns.append(turn)


def _claude_ai(conv: dict, path: Path, i: int, tag: str = "") -> SessionIn | None:
    msgs = [m for m in conv.get("chat_messages") or [] if isinstance(m, dict)]
    msgs.sort(
        key=lambda m: (m.get("index", 0) if isinstance(m.get("index"), int) else 0, str(m.get("created_at") or ""))
    )
    turns: list[TurnIn] = []
    calls: dict = {}
    for m in msgs:
        _claude_ai_message(turns, calls, m)
    if not turns:
        return None
    return SessionIn(source_key="chat:anthropic", external_id=str(conv.get("uuid") or _digest_id(path, i)),
                     turns=turns, title=conv.get("name") or "",
                     started_at=parse_time(conv.get("created_at")) or turns[0].at)  # fmt: skip


def _anthropic_messages(body: dict, path: Path) -> list[SessionIn]:
    turns: list[TurnIn] = []
    for m in body.get("messages") or []:
        content = m.get("content")
        if m.get("role") == "user":
            for b in content if isinstance(content, list) else []:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    _attach(turns, b.get("tool_use_id"), _blocks_text(b.get("content")), bool(b.get("is_error")))
            text = _blocks_text(content).strip()
            if text:
                turns.append(_user(text))
        elif m.get("role") == "assistant":
            calls = [{"id": b.get("id"), "name": b.get("name"), "input": b.get("input") or {}, "result": ""}
                     for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(
                content, list) else []  # fmt: skip
            turns.append(_assistant(_blocks_text(content), calls=calls))
    return [SessionIn(source_key="chat:anthropic", external_id=_digest_id(path, 0), turns=turns)] if turns else []


def parse_anthropic(path: Path, report: FileReport | None = None) -> list[SessionIn]:
    data = _load(path)
    if isinstance(data, dict) and "messages" in data:
        return _anthropic_messages(data, path)
    convs = data if isinstance(data, list) else [data]
    return [s for i, c in enumerate(convs) if isinstance(c, dict) for s in [_claude_ai(c, path, i)] if s]


# --- Gemini ------------------------------------------------------------------------------------------
_TAG = re.compile(r"<[^>]+>")


def _strip_html(chunks) -> str:
    text = " ".join(c.get("html", "") for c in chunks or [] if isinstance(c, dict))
    return html.unescape(_TAG.sub(" ", text)).strip()


def _takeout(entries: list, path: Path) -> list[SessionIn]:
    groups: dict[str, list[TurnIn]] = {}
    for e in sorted((x for x in entries if isinstance(x, dict)), key=lambda x: x.get("time") or ""):
        title = str(e.get("title") or "")
        if " " not in title:
            continue
        # The verb before the prompt is localised ("Prompted", "Pregunta"…); a prompt entry has a response or
        # an app URL, other activity ("Created Gem …") has neither.
        prompt = title.split(" ", 1)[1]
        url = next((d.get("url") for d in e.get("details") or [] if isinstance(d, dict) and d.get("url")), "")
        if not (e.get("safeHtmlItem") or url):
            continue
        at = parse_time(e.get("time"))
        key = url or (at.date().isoformat() if at else "undated")
        turns = groups.setdefault(key, [])
        turns.append(_user(prompt, at))
        answer = _strip_html(e.get("safeHtmlItem"))
        if answer:
            turns.append(_assistant(answer, at, "gemini"))
    return [
        SessionIn(
            source_key="chat:gemini",
            external_id=hashlib.sha256(k.encode()).hexdigest()[:24],
            turns=t,
            started_at=t[0].at,
            title=t[0].text[:80],
        )  # fmt: skip
        for k, t in groups.items()
    ]


def _gemini_contents(body: dict, path: Path) -> list[SessionIn]:
    turns: list[TurnIn] = []
    for c in body.get("contents") or []:
        parts = c.get("parts") or []
        text = "\n".join(p.get("text", "") for p in parts if isinstance(p, dict) and p.get("text")).strip()
        if c.get("role") == "model":
            calls = [{"name": p["functionCall"].get("name"), "input": p["functionCall"].get("args") or {}, "result": ""}
                     for p in parts if isinstance(p, dict) and p.get("functionCall")]  # fmt: skip
            turns.append(_assistant(text, speaker="gemini", calls=calls))
        else:
            for p in parts:
                if isinstance(p, dict) and p.get("functionResponse"):
                    fr = p["functionResponse"]
                    _attach(turns, None, json.dumps(fr.get("response")), name=fr.get("name"))
            if text:
                turns.append(_user(text))
    return [SessionIn(source_key="chat:gemini", external_id=_digest_id(path, 0), turns=turns)] if turns else []


def parse_gemini(path: Path, report: FileReport | None = None) -> list[SessionIn]:
    data = _load(path)
    if isinstance(data, dict) and "contents" in data:
        return _gemini_contents(data, path)
    return _takeout(data if isinstance(data, list) else [], path)


# --- shared ------------------------------------------------------------------------------------------
def _json(raw) -> dict:
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"raw": str(raw)[:2000]}
    return value if isinstance(value, dict) else {"value": value}


def _attach(turns: list[TurnIn], call_id, result: str, is_error: bool = False, name: str | None = None) -> None:
    """Pair a tool result with its call: by id when there is one, else (Gemini) by function name."""
    for turn in reversed(turns):
        for call in turn.tool_calls:
            if (call_id and call.get("id") == call_id) or (not call_id and name and call.get("name") == name
                                                           and not call.get("result")):  # fmt: skip
                call["result"], call["is_error"] = result[:4000], is_error
                return
