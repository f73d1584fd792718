"""The memory proxy: an OpenAI-compatible ``/v1/chat/completions`` in front of the configured upstream model.

For each request: ``<private>`` spans are removed from the whole body first (nothing after sees them, the
upstream included); what recall selected for the last user message above its threshold (never the proxy's own
earlier exchanges, never the owner's identity lines alone) goes into the system prompt; the request is
forwarded (streaming passes bytes through event by event); the exchange is recorded through the ingest path
(source "chat:proxy"): in the conversation the ``X-Almanac-Conversation`` header names, else in the stored
conversation whose turns the request's messages extend exactly, else in a new one (``conversation_for``); the
answer names it in ``X-Almanac-Conversation``. ``GET /v1/models`` passes through to the upstream. The upstream's status,
``Retry-After`` and error body reach the client unchanged; a hung upstream is a 504 after
``ALMANAC_PROXY_READ_TIMEOUT``; a stream cut mid-way is recorded with what arrived, marked incomplete.
Off unless ``ALMANAC_PROXY_UPSTREAM_URL`` is set. The upstream key never appears in logs or errors.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
from django.conf import settings

from chats.models import ChatSession
from chats.origins import Origin
from chats.privacy import EntryPoint, PrivateFilter, record_removed
from chats.services import agent_context
from chats.services import ingest as ingest_services
from chats.services.store import NotAnExtension, StoreMode, stored_hashes
from chats.text import SessionIn

logger = logging.getLogger(__name__)
MARK = "Context from the user's memory (Almanac; use only if relevant):"
PROXY_BUDGET = 400  # tokens of recalled memory added to one request


class ProxyError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def enabled() -> bool:
    return bool(getattr(settings, "ALMANAC_PROXY_UPSTREAM_URL", ""))


def _endpoint(path: str = "/chat/completions") -> str:
    base = settings.ALMANAC_PROXY_UPSTREAM_URL.rstrip("/")
    return (base if base.endswith("/v1") else base + "/v1") + path


def _headers() -> dict:
    key = getattr(settings, "ALMANAC_PROXY_UPSTREAM_KEY", "")
    return {"Authorization": f"Bearer {key}"} if key else {}


def _text(content) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return str(content or "")


def last_user_text(messages: list[dict]) -> str:
    return next((_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")


def without_private(owner, body: dict) -> dict:
    """The request body with every ``<private>`` span removed (messages, tool arguments, anything textual),
    counted for the owner: what follows (recall, the upstream, the record) never sees them."""
    private = PrivateFilter()
    clean = private.value(body)
    record_removed(owner=owner, entry_point=EntryPoint.PROXY, count=private.removed)
    return clean


def _not_the_proxy(origin: Origin) -> bool:
    # The proxy's own earlier exchanges are never evidence for its next answer: each call would feed the next.
    return origin.session is None or origin.session.source_key != ChatSession.Source.PROXY


def selected_block(owner, query: str) -> str:
    """The lines of what recall selected for ``query`` above its threshold ("" when it selected nothing; the
    owner's identity lines alone are never sent to an upstream model)."""
    items = agent_context.recalled(owner, query, budget=PROXY_BUDGET, allow=_not_the_proxy)
    return "\n".join(agent_context.block_lines(owner, items))


def with_memory(owner, body: dict) -> tuple[dict, str]:
    """The request body with the selected recall lines added to the system prompt (and those lines)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ProxyError(422, "messages must be a non-empty list of objects")
    block = selected_block(owner, last_user_text(messages).strip())
    if not block:
        return body, ""
    addition = f"{MARK}\n{block}"
    messages = [dict(m) for m in messages]
    if messages[0].get("role") in ("system", "developer"):
        messages[0]["content"] = f"{_text(messages[0].get('content'))}\n\n{addition}".strip()
    else:
        messages.insert(0, {"role": "system", "content": addition})
    return {**body, "messages": messages}, block


def exchange_pairs(body: dict, reply: str | None) -> list[dict]:
    """The request's user/assistant messages as {user, assistant} pairs (the ingest shape), with ``reply`` as
    the last pair's answer (None: the request only)."""
    pairs: list[dict] = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role == "user":
            pairs.append({"user": _text(m.get("content")), "assistant": None})
        elif role == "assistant" and pairs and pairs[-1]["assistant"] is None:
            pairs[-1]["assistant"] = _text(m.get("content"))
    if reply is not None and pairs and pairs[-1]["assistant"] is None:
        pairs[-1]["assistant"] = reply
    return [{k: v for k, v in p.items() if v is not None} for p in pairs]


@dataclass(frozen=True)
class Conversation:
    """Which stored conversation an exchange continues. ``external_id`` is the client's header, the stored
    conversation whose turns the request's messages extend exactly, or a new id; ``named`` when the client
    named it."""

    external_id: str
    named: bool = False


def conversation_for(owner, body: dict, header: str | None) -> Conversation:
    """The conversation of a request. Without ``X-Almanac-Conversation``, an exchange continues a stored
    conversation only when its messages begin with exactly that conversation's turns (the longest such, the
    most recent on a tie); anything else is a new conversation. Two chats that share a model and a first
    message are two conversations."""
    if header and header.strip():
        return Conversation(header.strip()[:200], named=True)
    pairs = exchange_pairs(body, None)
    if pairs:
        data = SessionIn(source_key=ChatSession.Source.PROXY, external_id="",
                         turns=ingest_services.turns_from_pairs(pairs, None))  # fmt: skip
        hashes = stored_hashes(owner, data)
        rows = ChatSession.objects.owned_by(owner).filter(source_key=ChatSession.Source.PROXY, content_hash__in=hashes)
        found = sorted(rows.values_list("content_hash", "updated_at", "external_id"),
                       key=lambda r: (hashes.index(r[0]), r[1]), reverse=True)  # fmt: skip
        if found:
            return Conversation(found[0][2])
    return Conversation(f"proxy-{uuid.uuid4().hex}")


def record(*, owner, body: dict, reply: str, conversation: Conversation, enqueue=None, incomplete: bool = False) -> str:
    """Record the exchange (the request's user/assistant messages + this reply) through ingest; returns its
    outcome. Nothing stored is ever replaced: an exchange that does not extend the stored turns of its
    conversation is a new conversation (unnamed), or adds only its last question and answer (named by the
    client, who may trim or edit the history it sends). ``incomplete``: the reply is what arrived before the
    upstream stream was cut (marked on the stored turn)."""
    pairs = exchange_pairs(body, reply)
    common = {"owner": owner, "agent_id": str(body.get("model") or ""), "source_key": ChatSession.Source.PROXY,
              "enqueue": enqueue}  # fmt: skip
    try:
        try:
            result = ingest_services.ingest(conversation_id=conversation.external_id, turns=pairs,
                                            mode=StoreMode.EXTEND, **common)  # fmt: skip
        except NotAnExtension:
            if conversation.named:
                result = ingest_services.ingest(conversation_id=conversation.external_id, turns=pairs[-1:],
                                                mode=StoreMode.APPEND, **common)  # fmt: skip
            else:  # another exchange took this conversation further meanwhile: this one is a branch of its own
                result = ingest_services.ingest(conversation_id=f"proxy-{uuid.uuid4().hex}", turns=pairs, **common)
        if incomplete and result.session is not None:
            _mark_incomplete(result.session)
    except Exception:  # recording must never break the answer the client is waiting for
        logger.exception("memory proxy could not record an exchange")
        return "error:record"
    return result.outcome


def _mark_incomplete(session) -> None:
    turn = session.turns.filter(role="assistant").order_by("-index").first()
    if turn is not None and not any(e.get("kind") == "incomplete" for e in turn.extras):
        turn.extras = [*turn.extras, {"kind": "incomplete", "text": "the upstream stream was cut"}]
        turn.save(update_fields=["extras"])


def _timeout() -> httpx.Timeout:
    connect = float(getattr(settings, "ALMANAC_PROXY_CONNECT_TIMEOUT", 5.0))
    read = float(getattr(settings, "ALMANAC_PROXY_READ_TIMEOUT", 60.0))
    return httpx.Timeout(read, connect=connect, read=read, write=read, pool=connect)


def _upstream_error(exc: httpx.HTTPError) -> ProxyError:
    if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
        return ProxyError(504, f"upstream did not answer in time ({type(exc).__name__})")
    if isinstance(exc, httpx.ConnectTimeout):
        return ProxyError(504, "upstream could not be reached in time (ConnectTimeout)")
    return ProxyError(502, f"upstream unreachable: {type(exc).__name__}")


@dataclass
class Upstream:
    """An upstream answer passed through: status, body bytes, content type and the headers worth keeping."""

    status: int
    body: bytes
    content_type: str
    headers: dict

    def json(self) -> dict:
        try:
            data = json.loads(self.body or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}


PASS_HEADERS = ("retry-after", "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
                "x-ratelimit-reset-requests", "x-request-id")  # fmt: skip


def _kept(headers) -> dict:
    return {k: v for k, v in headers.items() if k.lower() in PASS_HEADERS}


def complete(body: dict) -> Upstream:
    try:
        response = httpx.post(_endpoint(), json=body, headers=_headers(), timeout=_timeout())
    except httpx.HTTPError as exc:
        raise _upstream_error(exc) from exc
    return Upstream(response.status_code, response.content,
                    response.headers.get("content-type", "application/json"), _kept(response.headers))  # fmt: skip


def models() -> Upstream:
    """The upstream's ``GET /v1/models``, passed through (status, body, headers worth keeping)."""
    try:
        response = httpx.get(_endpoint("/models"), headers=_headers(), timeout=_timeout())
    except httpx.HTTPError as exc:
        raise _upstream_error(exc) from exc
    return Upstream(response.status_code, response.content,
                    response.headers.get("content-type", "application/json"), _kept(response.headers))  # fmt: skip


def reply_text(data: dict) -> str:
    choices = data.get("choices") or []
    return _text(((choices[0] if choices else {}).get("message") or {}).get("content"))


@dataclass
class Stream:
    status: int
    chunks: Iterator[bytes]
    text: list[str]  # filled while the chunks are consumed
    content_type: str = "text/event-stream"
    headers: dict = field(default_factory=dict)
    state: dict = field(default_factory=dict)  # "done": saw [DONE]; "cut": the upstream broke off
    on_end: object = None  # on_end(cut: bool), once, before the last bytes reach the client


CUT_EVENT = (
    b'data: {"error": {"message": "The upstream stream was cut before it finished.", "type": "upstream_error"}}\n\n'
)


def open_stream(body: dict) -> Stream:
    """Open the upstream stream; ``chunks`` passes its bytes through and collects ``delta.content``. A stream
    that breaks off (connection lost, read timeout) ends with an error event the client's SDK raises on."""
    client = httpx.Client(timeout=_timeout())
    try:
        response = client.send(client.build_request("POST", _endpoint(), json=body, headers=_headers()), stream=True)
    except httpx.HTTPError as exc:
        client.close()
        raise _upstream_error(exc) from exc
    collected: list[str] = []
    state: dict = {}
    holder = {}

    def end(cut: bool) -> None:
        """Called once, before the client can see the end of the stream (a client that stops reading at [DONE]
        may close the connection, and the rest of this generator would never run)."""
        if "ended" in state:
            return
        state["ended"], state["cut"] = True, cut
        if holder.get("on_end"):
            holder["on_end"](cut)

    def chunks() -> Iterator[bytes]:
        buffer = b""
        try:
            for raw in response.iter_raw():
                buffer += raw
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    state["done"] = state.get("done") or b"[DONE]" in event
                    collected.extend(_deltas(event))
                if state.get("done"):
                    end(False)
                yield raw
        except httpx.HTTPError as exc:
            logger.warning("memory proxy: upstream stream cut (%s)", type(exc).__name__)
            end(True)
            yield CUT_EVENT
        finally:
            response.close()
            client.close()
        if not state.get("done") and "ended" not in state:
            end(True)  # closed without [DONE]: the answer is not whole
            yield CUT_EVENT

    kept = _kept(response.headers)
    if response.status_code >= 400:
        try:
            body_bytes = response.read()
        except httpx.HTTPError as exc:
            raise _upstream_error(exc) from exc
        finally:
            response.close()
            client.close()
        ctype = response.headers.get("content-type", "application/json")
        return Stream(response.status_code, iter([body_bytes]), collected, ctype, kept, state)
    stream = Stream(response.status_code, chunks(), collected, "text/event-stream", kept, state)
    holder["on_end"] = lambda cut: stream.on_end(cut) if stream.on_end else None
    return stream


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
