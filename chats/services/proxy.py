"""The memory proxy: an OpenAI-compatible ``/v1/chat/completions`` in front of the configured upstream model.

For each request: the recall block for the last user message goes into the system prompt; the request is
forwarded (streaming passes bytes through event by event); the exchange is recorded through the ingest path
(source "chat:proxy", one conversation per ``X-Almanac-Conversation`` header or per first user message).
Off unless ``ALMANAC_PROXY_UPSTREAM_URL`` is set. The upstream key never appears in logs or errors.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
from django.conf import settings

from chats.models import ChatSession
from chats.services import ingest as ingest_services
from ledger.recall import services as recall_services

logger = logging.getLogger(__name__)
MARK = "Context from the user's memory (Almanac; use only if relevant):"


class ProxyError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def enabled() -> bool:
    return bool(getattr(settings, "ALMANAC_PROXY_UPSTREAM_URL", ""))


def _endpoint() -> str:
    base = settings.ALMANAC_PROXY_UPSTREAM_URL.rstrip("/")
    return (base if base.endswith("/v1") else base + "/v1") + "/chat/completions"


def _headers() -> dict:
    key = getattr(settings, "ALMANAC_PROXY_UPSTREAM_KEY", "")
    return {"Authorization": f"Bearer {key}"} if key else {}


def _text(content) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content or "")


def last_user_text(messages: list[dict]) -> str:
    return next((_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")


def with_memory(owner, body: dict) -> tuple[dict, str]:
    """The request body with the recall block added to the system prompt (and the block itself)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ProxyError(422, "messages must be a non-empty list of objects")
    query = last_user_text(messages).strip()
    block = ""
    if query:
        block = recall_services.recall_context(owner=owner, query=query[:4000]).block or ""
    if not block:
        return body, ""
    addition = f"{MARK}\n{block}"
    messages = [dict(m) for m in messages]
    if messages[0].get("role") in ("system", "developer"):
        messages[0]["content"] = f"{_text(messages[0].get('content'))}\n\n{addition}".strip()
    else:
        messages.insert(0, {"role": "system", "content": addition})
    return {**body, "messages": messages}, block


def conversation_id(body: dict, header: str | None) -> str:
    if header:
        return header[:200]
    first = next((_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"), "")
    return "proxy-" + hashlib.sha256(f"{body.get('model', '')}\x1f{first}".encode()).hexdigest()[:24]


def record(*, owner, body: dict, reply: str, conversation: str, enqueue=None) -> str:
    """Record the exchange (prior user/assistant messages + this reply) through ingest; returns its outcome."""
    pairs: list[dict] = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role == "user":
            pairs.append({"user": _text(m.get("content")), "assistant": None})
        elif role == "assistant" and pairs and pairs[-1]["assistant"] is None:
            pairs[-1]["assistant"] = _text(m.get("content"))
    if pairs and pairs[-1]["assistant"] is None:
        pairs[-1]["assistant"] = reply
    pairs = [{k: v for k, v in p.items() if v is not None} for p in pairs]
    try:
        result = ingest_services.ingest(owner=owner, agent_id=str(body.get("model") or ""), conversation_id=conversation,
                                        turns=pairs, source_key=ChatSession.Source.PROXY, enqueue=enqueue)  # fmt: skip
    except Exception:  # recording must never break the answer the client is waiting for
        logger.exception("memory proxy could not record an exchange")
        return "error:record"
    return result.outcome


def complete(body: dict) -> tuple[int, dict]:
    try:
        response = httpx.post(_endpoint(), json=body, headers=_headers(), timeout=settings.ALMANAC_LLM_TIMEOUT * 4)
    except httpx.HTTPError as exc:
        raise ProxyError(502, f"upstream unreachable: {type(exc).__name__}") from exc
    try:
        return response.status_code, response.json()
    except ValueError as exc:
        raise ProxyError(502, "upstream answered with a body that is not JSON") from exc


def reply_text(data: dict) -> str:
    choices = data.get("choices") or []
    return _text(((choices[0] if choices else {}).get("message") or {}).get("content"))


@dataclass
class Stream:
    status: int
    chunks: Iterator[bytes]
    text: list[str]  # filled while the chunks are consumed


def open_stream(body: dict) -> Stream:
    """Open the upstream stream; ``chunks`` passes its bytes through and collects ``delta.content``."""
    client = httpx.Client(timeout=httpx.Timeout(settings.ALMANAC_LLM_TIMEOUT, read=300.0))
    try:
        response = client.send(client.build_request("POST", _endpoint(), json=body, headers=_headers()), stream=True)
    except httpx.HTTPError as exc:
        client.close()
        raise ProxyError(502, f"upstream unreachable: {type(exc).__name__}") from exc
    collected: list[str] = []

    def chunks() -> Iterator[bytes]:
        buffer = b""
        try:
            for raw in response.iter_raw():
                yield raw
                buffer += raw
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    collected.extend(_deltas(event))
        finally:
            response.close()
            client.close()

    if response.status_code >= 400:
        body_bytes = response.read()
        response.close()
        client.close()
        return Stream(response.status_code, iter([body_bytes]), collected)
    return Stream(response.status_code, chunks(), collected)


def _deltas(event: bytes) -> list[str]:
    out = []
    for line in event.decode("utf-8", errors="replace").splitlines():
        if not line.startswith("data:"):
            continue  # comments (keep-alive) and event names
        data = line[5:].strip()
        if data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        for choice in chunk.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                out.append(piece)
    return out
