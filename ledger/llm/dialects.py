"""How each kind of model server wants an answer's JSON schema, and how it says no (pure: no network, no database).

A dialect is one way of asking for structured output. The schema travels at every step: where the server cannot
enforce it, it goes into the system prompt instead.

| dialect | request | servers |
| --- | --- | --- |
| ``json_schema`` | ``response_format: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}`` | OpenAI, vLLM, LM Studio, llama.cpp's ``llama-server``, Ollama's ``/v1`` since 0.5 |
| ``json_object_schema`` | ``response_format: {"type": "json_object", "schema": ...}`` (the schema becomes a grammar) | llama-cpp-python's server (its ``response_format`` takes only ``text`` and ``json_object``: ``json_schema`` is answered with HTTP 500), ``llama-server`` |
| ``json_object`` | ``response_format: {"type": "json_object"}``, schema in the prompt | JSON mode without schemas |
| ``text`` | no ``response_format``, schema in the prompt | anything OpenAI-compatible |
| ``ollama`` | Ollama's own ``POST /api/chat`` with ``"format": schema``, ``options.num_predict``, NDJSON stream | Ollama (found by ``GET /api/version``) |
| ``ollama_json`` | the same with ``"format": "json"``, schema in the prompt | Ollama before 0.5 |

An OpenAI-compatible server is tried in ``OPENAI_CHAIN`` order and Ollama in ``OLLAMA_CHAIN`` order; the first form
the server accepts is kept (``ledger.llm.health`` probes it at start-up; the client steps down when a call is
refused for its shape and remembers the step).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from django.db import models


class Dialect(models.TextChoices):
    JSON_SCHEMA = "json_schema", "response_format json_schema"
    JSON_OBJECT_SCHEMA = "json_object_schema", "response_format json_object with its schema"
    JSON_OBJECT = "json_object", "response_format json_object, schema in the prompt"
    TEXT = "text", "no response_format, schema in the prompt"
    OLLAMA = "ollama", "Ollama /api/chat with format: schema"
    OLLAMA_JSON = "ollama_json", "Ollama /api/chat with format: json, schema in the prompt"


OPENAI_CHAIN = (Dialect.JSON_SCHEMA, Dialect.JSON_OBJECT_SCHEMA, Dialect.JSON_OBJECT, Dialect.TEXT)
OLLAMA_CHAIN = (Dialect.OLLAMA, Dialect.OLLAMA_JSON)
ENFORCES_SCHEMA = frozenset({Dialect.JSON_SCHEMA, Dialect.JSON_OBJECT_SCHEMA, Dialect.OLLAMA})


def chain_of(dialect: str) -> tuple[Dialect, ...]:
    return OLLAMA_CHAIN if dialect in OLLAMA_CHAIN else OPENAI_CHAIN


def next_in_chain(dialect: str) -> Dialect | None:
    chain = chain_of(dialect)
    at = chain.index(Dialect(dialect))
    return chain[at + 1] if at + 1 < len(chain) else None


@dataclass(frozen=True)
class Request:
    path: str  # "/v1/chat/completions" (OpenAI-compatible) or "/api/chat" (Ollama), relative to the server root
    body: dict
    ndjson: bool  # Ollama streams one JSON object per line; the others stream server-sent events


def schema_hint(schema: dict) -> str:
    return "Answer with one JSON object, nothing else, matching this JSON schema: " + json.dumps(schema)


def build(
    dialect: str, *, model: str, messages: list[dict], schema: dict, name: str, max_tokens: int, temperature: float
) -> Request:
    """The streamed request asking ``model`` for one answer matching ``schema`` in ``dialect``."""
    dialect = Dialect(dialect)
    if dialect not in ENFORCES_SCHEMA:
        system = {**messages[0], "content": messages[0]["content"] + "\n" + schema_hint(schema)}
        messages = [system, *messages[1:]]
    if dialect in OLLAMA_CHAIN:
        body = {
            "model": model,
            "messages": messages,
            "stream": True,
            "format": schema if dialect == Dialect.OLLAMA else "json",
            "options": {"num_predict": max_tokens, "temperature": temperature},
        }
        return Request("/api/chat", body, ndjson=True)
    body = {
        "model": model,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if dialect == Dialect.JSON_SCHEMA:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    elif dialect == Dialect.JSON_OBJECT_SCHEMA:
        body["response_format"] = {"type": "json_object", "schema": schema}
    elif dialect == Dialect.JSON_OBJECT:
        body["response_format"] = {"type": "json_object"}
    return Request("/v1/chat/completions", body, ndjson=False)


# --- How servers say no ---------------------------------------------------------------------------------
# Read from the error bodies real servers send: OpenAI and vLLM 400 ``{"error": {"message", "param"}}``,
# llama-cpp-python 500 ``{"error": {"message": "[{'type': 'literal_error', 'loc': ('body', 'response_format',
# 'type'), ...}]", "type": "internal_server_error"}}``, llama-server 400/500 "response_format type must be one of
# ...", LM Studio 400 "'response_format.type' must be 'json_schema' or 'text'", Ollama 400/500 ``{"error": "..."}``.
_SHAPE_WORDS = re.compile(r"response_format|json_schema|json_object|\bschema\b|grammar|\bformat\b", re.IGNORECASE)
_CONTEXT = re.compile(r"context (window|length|size)|exceeds? (the )?(context|maximum)|too many tokens|n_ctx",
                      re.IGNORECASE)  # fmt: skip
_MODEL_MISSING = re.compile(r"model\b.*\b(not found|does not exist|not loaded|unknown)|model_not_found|no such model",
                            re.IGNORECASE)  # fmt: skip


class Refusal(models.TextChoices):
    """Why a server answered a request with an error, read from its status and body."""

    SHAPE = "shape", "refused the structured-output form"
    CONTEXT = "context", "the request is longer than the server's context window"
    MODEL = "model", "does not serve the model"
    AUTH = "auth", "refused the API key"
    BUSY = "busy", "is busy or rate-limited"
    SERVER = "server", "failed"


def error_text(raw: bytes) -> str:
    """The message of an error body (OpenAI's ``error.message``, Ollama's ``error``), else the start of the body."""
    text = raw[:4000].decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()[:500]
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        return " ".join(str(error.get(k) or "") for k in ("message", "param", "code")).strip()[:500]
    return str(error)[:500]


def classify(status: int, message: str, *, asked_for_a_form: bool) -> Refusal:
    """What an error status and message mean. ``asked_for_a_form``: the request carried a structured-output form
    (a ``response_format`` or Ollama ``format``), so a complaint about a format or schema is about that form."""
    if status in (401, 403):
        return Refusal.AUTH
    if _MODEL_MISSING.search(message) or (status == 404 and "model" in message.lower()):
        return Refusal.MODEL
    if _CONTEXT.search(message):
        return Refusal.CONTEXT
    if status in (429, 503):
        return Refusal.BUSY
    if asked_for_a_form and status in (400, 415, 422, 500, 501) and _SHAPE_WORDS.search(message):
        return Refusal.SHAPE
    if status == 404:
        return Refusal.MODEL
    return Refusal.SERVER
