"""One structured call to any OpenAI-compatible chat endpoint, with every way it can fail turned into ``LLMError``.

``ask(call=..., owner=..., system=..., data=..., answer=PydanticModel)``:

1. refuses at once when nothing usable is configured (``ConfigError``) or the owner's daily cap is spent
   (``CapReached``); a cached valid answer for the same prompt version, schema, model and data costs no call;
2. fences ``data`` (``fencing.Fence``: a random boundary around one line of escaped JSON), sent once;
3. asks for the pydantic model's JSON schema as ``response_format: json_schema``, stepping down to
   ``json_object`` and then plain text (schema in the prompt) for a server that refuses it, remembered per server;
4. streams the answer with ``max_tokens`` and ``temperature`` of the call type and a deadline for the whole
   answer: past it the connection is closed, so a server that notices (llama.cpp does) stops generating;
5. validates the content with the pydantic model.

Figures (calls, valid answers, latency, tokens) are counted per owner, local day and call type. Errors never
contain the API key or the prompt (the data may be private).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import httpx
from django.core.cache import cache
from pydantic import BaseModel, ValidationError

from ledger.llm import config, health, usage
from ledger.llm.config import CallType
from ledger.llm.fencing import Fence, escape

log = logging.getLogger("ledger.llm")
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
CACHE_SECONDS = 60 * 60 * 24 * 30
FORMATS = ("json_schema", "json_object", "text")
_format_level: dict[tuple[str, str], int] = {}  # (base URL, model) → index in FORMATS the server accepted


class LLMError(Exception):
    """The model gave no usable answer (configuration, cap, timeout, HTTP error, cut connection, invalid JSON)."""


class ConfigError(LLMError):
    pass


class CapReached(LLMError):
    pass


@dataclass
class Reply:
    value: BaseModel
    cache_key: str
    cached: bool = False
    latency_ms: int = 0
    tokens: int = 0


def schema_of(answer: type[BaseModel]) -> dict:
    return answer.model_json_schema()


def cache_key(call: CallType, prompt_version: str, answer: type[BaseModel], data) -> str:
    schema = json.dumps(schema_of(answer), sort_keys=True)
    raw = "|".join([call.value, prompt_version, config.model_name(), hashlib.sha256(schema.encode()).hexdigest(),
                    escape(data)])  # fmt: skip
    return f"llm:answer:{hashlib.sha256(raw.encode()).hexdigest()}"


def remember(reply: Reply) -> None:
    """Cache a reply the caller found useful (valid and non-empty); useless answers are never cached."""
    if not reply.cached:
        cache.set(reply.cache_key, reply.value.model_dump(mode="json"), CACHE_SECONDS)


def ask(
    *,
    call: CallType,
    owner,
    system: str,
    data,
    answer: type[M],
    prompt_version: str,
    timeout: float | None = None,
) -> Reply:
    """Ask for one ``answer`` about fenced ``data``; raises ``LLMError`` (see the module docstring)."""
    problems = config.blocking_problems()
    if problems:
        raise ConfigError(problems[0])
    if config.offline_reason(call):
        raise ConfigError(f"the model is not called here ({config.offline_reason(call)})")
    if not config.llm_configured(call):
        raise ConfigError("no LLM configured (ALMANAC_LLM_BASE_URL / ALMANAC_LLM_MODEL)")
    key = cache_key(call, prompt_version, answer, data)
    hit = cache.get(key)
    if hit is not None:
        try:
            return Reply(value=answer.model_validate(hit), cache_key=key, cached=True)
        except ValidationError:
            cache.delete(key)
    if not usage.take_call(owner, call):
        raise CapReached(f"daily LLM call cap ({config.daily_cap()}) reached")
    fence = Fence()
    messages = [
        {"role": "system", "content": f"{system}\n{fence.rule()}"},
        {"role": "user", "content": fence.wrap(data)},
    ]
    started = time.monotonic()
    content, tokens = "", 0
    try:
        content, tokens = _complete(call, messages, answer, timeout if timeout is not None else config.timeout())
        value = answer.model_validate_json(_strip_code_fence(content))
    except ValidationError as exc:
        _record(owner, call, started, tokens, content, valid=False)
        raise LLMError(f"answer does not match the {answer.__name__} schema ({exc.error_count()} errors)") from exc
    except LLMError:
        _record(owner, call, started, tokens, content, valid=False)
        raise
    latency = _record(owner, call, started, tokens, content, valid=True)
    return Reply(value=value, cache_key=key, latency_ms=latency, tokens=tokens)


@dataclass
class Attempt(Generic[T]):
    """What ``ask_or_fall_back`` gave: the caller's ``value`` from a useful answer, or ``why`` the deterministic
    path runs instead (``failed``: the call itself failed rather than answering with nothing usable)."""

    value: T | None = None
    why: str = ""
    failed: bool = False

    @property
    def useful(self) -> bool:
        return not self.why


def ask_or_fall_back(
    *,
    call: CallType,
    owner,
    system: str,
    data,
    answer: type[M],
    prompt_version: str,
    use: Callable[[M], tuple[T, str]] | None = None,
    where: str = "",
    cache_answer: bool = True,
    timeout: float | None = None,
) -> Attempt[T]:
    """The one way callers ask the model with the deterministic path behind it. Asks once (``ask``); ``use``
    turns a valid answer into ``(value, "")``, or ``(anything, why)`` when it holds nothing usable (without
    ``use`` the answer itself is the value). A failed call or a useless answer is counted and logged as a
    fallback (the reason, then `` (where)`` when given) and returned as ``why``; a useful answer is cached
    (``remember``) unless ``cache_answer`` is False (a caller that caches its own way). Never raises
    ``LLMError``."""
    try:
        reply = ask(call=call, owner=owner, system=system, data=data, answer=answer, prompt_version=prompt_version,
                    timeout=timeout)  # fmt: skip
    except LLMError as exc:
        return _fall_back(owner, call, str(exc), where, failed=True)
    value, why = use(reply.value) if use is not None else (reply.value, "")
    if why:
        return _fall_back(owner, call, why, where, failed=False)
    if cache_answer:
        remember(reply)
    return Attempt(value=value)


def _fall_back(owner, call: CallType, why: str, where: str, *, failed: bool) -> Attempt:
    usage.record_fallback(owner, call, f"{why} ({where})" if where else why)
    return Attempt(why=why, failed=failed)


def _record(owner, call, started, tokens, content, *, valid) -> int:
    latency = int((time.monotonic() - started) * 1000)
    usage.record_call(owner, call, valid=valid, latency_ms=latency, tokens=tokens or len(content) // 4)
    return latency


_CODE_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _strip_code_fence(content: str) -> str:
    text = _CODE_FENCE.sub("", (content or "").strip())
    if not text:
        raise LLMError("empty answer")
    return text


def _payload(call: CallType, messages: list[dict], answer: type[BaseModel], fmt: str) -> dict:
    limits = config.call_settings(call)
    payload = {
        "model": config.model_name(),
        "messages": messages,
        "temperature": limits.temperature,
        "max_tokens": limits.max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    schema = schema_of(answer)
    if fmt == "json_schema":
        payload["response_format"] = {"type": "json_schema", "json_schema": {"name": answer.__name__,
                                                                              "schema": schema}}  # fmt: skip
    else:
        if fmt == "json_object":
            payload["response_format"] = {"type": "json_object"}
        hint = "Answer with one JSON object, nothing else, matching this JSON schema: " + json.dumps(schema)
        payload["messages"] = [{**messages[0], "content": messages[0]["content"] + "\n" + hint}, *messages[1:]]
    return payload


def _complete(call: CallType, messages: list[dict], answer: type[BaseModel], timeout: float) -> tuple[str, int]:
    server = (config.base_url(), config.model_name())
    level = _format_level.get(server, 0)
    while True:
        try:
            return _stream(_payload(call, messages, answer, FORMATS[level]), timeout)
        except _FormatRefused:
            if level + 1 >= len(FORMATS):
                raise LLMError("the server refused the request even without response_format") from None
            level += 1
            _format_level[server] = level
            log.warning("LLM server refused response_format; using %s from now on", FORMATS[level])


class _FormatRefused(Exception):
    pass


def _headers() -> dict:
    key = config.api_key()
    return {"Authorization": f"Bearer {key}"} if key else {}


def _stream(payload: dict, timeout: float) -> tuple[str, int]:
    """POST and read the streamed answer within ``timeout`` seconds overall; returns (content, tokens)."""
    deadline = time.monotonic() + timeout
    url = config.endpoint("/chat/completions")
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0))) as client:
            with client.stream("POST", url, json=payload, headers=_headers()) as response:
                _check_status(response, payload)
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    return _whole_body(response, deadline)
                return _read_events(response, deadline, timeout)
    except httpx.TimeoutException as exc:
        raise LLMError(f"LLM request timed out after {timeout:g}s") from exc
    except httpx.ConnectError as exc:
        health.note_problem(f"the LLM host at {config.base_url()} does not answer ({type(exc).__name__})")
        raise LLMError(f"LLM host unreachable ({type(exc).__name__})") from exc
    except httpx.HTTPError as exc:  # connection cut mid-answer, protocol errors
        raise LLMError(f"LLM request failed: {type(exc).__name__}") from exc
    except UnicodeEncodeError as exc:
        raise ConfigError("ALMANAC_LLM_API_KEY cannot be sent in an HTTP header") from exc


def _check_status(response: httpx.Response, payload: dict) -> None:
    if response.status_code < 400:
        health.clear_problem()
        return
    body = response.read()[:2000].decode("utf-8", "replace").lower()
    if response.status_code in (400, 415, 422) and "response_format" in payload and "model" not in body:
        raise _FormatRefused()
    if response.status_code == 404 or (response.status_code == 400 and "model" in body):
        health.note_problem(f"the LLM server does not serve the model {config.model_name()!r} (HTTP "
                            f"{response.status_code})")  # fmt: skip
    raise LLMError(f"LLM endpoint answered HTTP {response.status_code}")


def _whole_body(response: httpx.Response, deadline: float) -> tuple[str, int]:
    raw = b""
    for chunk in response.iter_bytes():
        raw += chunk
        if time.monotonic() > deadline:
            raise LLMError("LLM answer did not finish before the deadline")
    try:
        body = json.loads(raw)
        choice = body["choices"][0]
        content = choice["message"]["content"] or ""
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMError("LLM answer has no message content") from exc
    if choice.get("finish_reason") == "length":
        raise LLMError("LLM answer was cut at max_tokens")
    return content, int((body.get("usage") or {}).get("total_tokens") or 0)


def _read_events(response: httpx.Response, deadline: float, timeout: float) -> tuple[str, int]:
    parts: list[str] = []
    tokens, finish, done = 0, None, False
    for line in response.iter_lines():
        if time.monotonic() > deadline:
            raise LLMError(f"LLM answer did not finish within {timeout:g}s (connection closed)")
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            done = True
            break
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise LLMError("LLM stream has an unreadable event") from exc
        tokens = int((event.get("usage") or {}).get("total_tokens") or tokens)
        for choice in event.get("choices") or []:
            parts.append((choice.get("delta") or {}).get("content") or "")
            finish = choice.get("finish_reason") or finish
    if finish == "length":
        raise LLMError("LLM answer was cut at max_tokens")
    if not done and finish is None:
        raise LLMError("LLM stream ended before the answer was complete")
    return "".join(parts), tokens


def embed(texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
    """Embed ``texts`` with the configured endpoint; one vector per text, in order. Raises ``LLMError``."""
    if not texts:
        return []
    if not config.llm_configured():
        raise ConfigError("no LLM configured (ALMANAC_LLM_BASE_URL / ALMANAC_LLM_MODEL)")
    try:
        response = httpx.post(config.endpoint("/embeddings"), json={"model": config.model_name(), "input": list(texts)},
                              headers=_headers(), timeout=timeout or config.timeout())  # fmt: skip
        body = response.json() if response.status_code < 400 else None
    except (httpx.HTTPError, ValueError) as exc:
        raise LLMError(f"embedding request failed: {type(exc).__name__}") from exc
    if body is None:
        raise LLMError(f"embedding endpoint answered HTTP {response.status_code}")
    try:
        rows = sorted(body["data"], key=lambda row: row.get("index", 0))
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise LLMError("embedding answer is malformed") from exc
    if len(vectors) != len(texts):
        raise LLMError("embedding answer has the wrong number of vectors")
    return vectors
