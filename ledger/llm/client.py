"""One structured call to a model server, with every way it can fail turned into ``LLMError``.

``ask(call=..., owner=..., system=..., data=..., answer=PydanticModel)``:

1. refuses at once when nothing usable is configured (``ConfigError``), when it runs inside a database transaction
   (a slow model would hold the transaction's row locks, and every web request waiting on them, for as long as it
   thinks), or when the owner's daily cap is spent (``CapReached``); a cached valid answer for the same prompt
   version, schema, model and data costs no call;
2. fences ``data`` (``fencing.Fence``: a random boundary around one line of escaped JSON), sent once;
3. asks for the pydantic model's JSON schema in the server's dialect (``dialects``: ``json_schema``, llama.cpp's
   ``json_object`` + ``schema``, Ollama's ``format``, or the schema in the prompt), learned once per server
   (``health.probe`` at start-up, or here on the first call) and stepped down, keeping the schema, when the server
   refuses a form (llama-cpp-python answers ``json_schema`` with HTTP 500);
4. streams the answer with ``max_tokens`` and ``temperature`` of the call type under one deadline for the whole
   answer, kept by a timer (``transport``): past it the connection is closed, so a server that notices stops;
5. validates the content with the pydantic model.

Figures (calls, valid answers, latency, tokens) are counted per owner, local day and call type; an answer cut at
``max_tokens`` or at the deadline counts the tokens it used. Errors never contain the API key or the prompt.
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
from django.db import connection
from pydantic import BaseModel, ValidationError

from ledger.llm import config, dialects, health, transport, usage
from ledger.llm.config import CallType
from ledger.llm.fencing import Fence, escape

log = logging.getLogger("ledger.llm")
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
CACHE_SECONDS = 60 * 60 * 24 * 30
_format_level = health._dialects  # the server dialects this process learned (tests clear it between servers)


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
    if inside_transaction():
        log.error("LLM %s asked inside a database transaction; refused (call the model before or after it)",
                  CallType(call).label)  # fmt: skip
        raise LLMError("refused: asked inside a database transaction")
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
    got = transport.Answer()
    try:
        got = _complete(call, messages, answer, timeout if timeout is not None else config.timeout())
        value = answer.model_validate_json(_strip_code_fence(got.content))
    except ValidationError as exc:
        _record(owner, call, started, got, messages, valid=False)
        raise LLMError(f"answer does not match the {answer.__name__} schema ({exc.error_count()} errors)") from exc
    except _Failed as exc:
        _record(owner, call, started, exc.answer, messages, valid=False)
        raise LLMError(str(exc)) from None
    except LLMError:
        _record(owner, call, started, got, messages, valid=False)
        raise
    latency = _record(owner, call, started, got, messages, valid=True)
    return Reply(value=value, cache_key=key, latency_ms=latency, tokens=got.tokens)


def inside_transaction() -> bool:
    """True inside ``transaction.atomic()`` (a test case's own wrapping transaction does not count)."""
    return any(not block._from_testcase for block in connection.atomic_blocks)


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


def _record(owner, call, started, got: transport.Answer, messages: list[dict], *, valid: bool) -> int:
    """Count one call; tokens as reported, else estimated (four characters a token) from the prompt and what
    arrived, or ``max_tokens`` for an answer cut there."""
    latency = int((time.monotonic() - started) * 1000)
    tokens = got.tokens
    if not tokens:
        prompt = sum(len(m["content"]) for m in messages) // 4
        made = config.call_settings(call).max_tokens if got.finish == "length" else len(got.content) // 4
        tokens = prompt + made if (got.content or got.finish) else 0
    usage.record_call(owner, call, valid=valid, latency_ms=latency, tokens=tokens)
    return latency


_CODE_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _strip_code_fence(content: str) -> str:
    text = _CODE_FENCE.sub("", (content or "").strip())
    if not text:
        raise LLMError("empty answer")
    return text


class _Failed(Exception):
    """The call failed after it was sent; ``answer`` keeps what arrived (for its tokens)."""

    def __init__(self, why: str, answer: transport.Answer) -> None:
        super().__init__(why)
        self.answer = answer


def headers() -> dict:
    key = config.api_key()
    return {"Authorization": f"Bearer {key}"} if key else {}


def send(dialect: str, call: CallType, messages: list[dict], answer: type[BaseModel], timeout: float):
    """One request in ``dialect``; returns the ``transport.Answer`` or raises a ``transport.TransportError``."""
    limits = config.call_settings(call)
    request = dialects.build(dialect, model=config.model_name(), messages=messages, schema=answer.model_json_schema(),
                             name=answer.__name__, max_tokens=limits.max_tokens, temperature=limits.temperature)  # fmt: skip
    try:
        return transport.send(config.server_root() + request.path, request, headers=headers(), timeout=timeout,
                              asked_for_a_form=dialect != dialects.Dialect.TEXT)  # fmt: skip
    except UnicodeEncodeError as exc:
        raise ConfigError("ALMANAC_LLM_API_KEY cannot be sent in an HTTP header") from exc


def _complete(call: CallType, messages: list[dict], answer: type[BaseModel], timeout: float) -> transport.Answer:
    """Ask in the server's dialect, stepping down (the schema kept) while the server refuses the form."""
    deadline = time.monotonic() + timeout
    dialect = health.known_dialect() or dialects.Dialect.JSON_SCHEMA
    while True:
        try:
            got = send(dialect, call, messages, answer, max(0.05, deadline - time.monotonic()))
        except transport.Refused as exc:
            lower = dialects.next_in_chain(dialect) if exc.kind == dialects.Refusal.SHAPE else None
            if lower is None:
                health.note_refusal(exc)
                raise LLMError(f"LLM endpoint answered HTTP {exc.status} ({exc.kind.label})") from None
            log.warning("LLM server refused %s (HTTP %s); asking with %s from now on", dialects.Dialect(dialect).label,
                        exc.status, dialects.Dialect(lower).label)  # fmt: skip
            dialect = lower
            health.remember_dialect(dialect)
            continue
        except transport.Unreachable as exc:
            health.note_problem(f"the LLM host at {config.base_url()} does not answer ({exc})")
            raise LLMError(f"LLM host unreachable ({exc})") from None
        except transport.Unfinished as exc:
            if exc.interrupted:
                health.note_problem("the LLM server ends an answer when another request arrives (llama-cpp-python: "
                                    "start it with --interrupt_requests False)")  # fmt: skip
            raise _Failed(str(exc), exc.answer) from None
        health.answered(dialect)
        return got


def embed(texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
    """Embed ``texts`` with the configured endpoint; one vector per text, in order. Raises ``LLMError``."""
    if not texts:
        return []
    if not config.llm_configured():
        raise ConfigError("no LLM configured (ALMANAC_LLM_BASE_URL / ALMANAC_LLM_MODEL)")
    try:
        response = httpx.post(config.endpoint("/embeddings"), json={"model": config.model_name(), "input": list(texts)},
                              headers=headers(), timeout=timeout or config.timeout())  # fmt: skip
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
