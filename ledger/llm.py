"""A small client for any OpenAI-compatible endpoint (chat completions with JSON output, embeddings).

The LLM is optional: every caller checks ``llm_configured()`` and has a deterministic default. All failures
(timeout, HTTP error, unreadable or schema-invalid JSON) surface as ``LLMError`` so callers can fall back in one
place. Error messages never include the API key or the prompt (transcript text may be private).

Settings: ``ALMANAC_LLM_BASE_URL`` (e.g. http://127.0.0.1:8080/v1), ``ALMANAC_LLM_MODEL``,
``ALMANAC_LLM_API_KEY`` (optional), ``ALMANAC_LLM_TIMEOUT`` seconds.
"""

from __future__ import annotations

import json
import re

import httpx
from django.conf import settings


class LLMError(Exception):
    """The model could not give a usable answer (timeout, HTTP error, invalid JSON, schema mismatch)."""


def llm_configured() -> bool:
    return bool(getattr(settings, "ALMANAC_LLM_BASE_URL", "") and getattr(settings, "ALMANAC_LLM_MODEL", ""))


def model_name() -> str:
    return getattr(settings, "ALMANAC_LLM_MODEL", "") or ""


def _endpoint(path: str) -> str:
    base = settings.ALMANAC_LLM_BASE_URL.rstrip("/")
    # Accept both ".../v1" and a bare host as the base URL.
    if not base.endswith("/v1"):
        base += "/v1"
    return base + path


def _headers() -> dict:
    key = getattr(settings, "ALMANAC_LLM_API_KEY", "")
    return {"Authorization": f"Bearer {key}"} if key else {}


def _post(path: str, payload: dict, timeout: float | None) -> dict:
    if not llm_configured():
        raise LLMError("no LLM configured (ALMANAC_LLM_BASE_URL / ALMANAC_LLM_MODEL)")
    timeout = timeout if timeout is not None else float(getattr(settings, "ALMANAC_LLM_TIMEOUT", 30.0))
    try:
        response = httpx.post(_endpoint(path), json=payload, headers=_headers(), timeout=timeout)
    except httpx.TimeoutException as exc:
        raise LLMError(f"LLM request timed out after {timeout:g}s") from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"LLM request failed: {type(exc).__name__}") from exc
    if response.status_code >= 400:
        raise LLMError(f"LLM endpoint answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise LLMError("LLM endpoint answered with a body that is not JSON") from exc


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def _parse_json_content(content: str) -> dict:
    text = _FENCE.sub("", (content or "").strip())
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise LLMError("LLM answer is not valid JSON") from exc
    if not isinstance(value, dict):
        raise LLMError("LLM answer is not a JSON object")
    return value


_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def validate_schema(value, schema: dict, path: str = "$") -> None:
    """Validate ``value`` against a small JSON-Schema subset (type, properties, required, items, enum,
    minimum/maximum). Raises ``LLMError`` naming the first offending path."""
    expected = schema.get("type")
    if expected:
        kinds = expected if isinstance(expected, list) else [expected]
        ok = False
        for kind in kinds:
            py = _TYPES.get(kind)
            if py is None:
                continue
            if isinstance(value, bool) and kind in ("integer", "number"):
                continue
            if isinstance(value, py):
                ok = True
                break
        if not ok:
            raise LLMError(f"LLM answer does not match the schema at {path}: expected {expected}")
    if "enum" in schema and value not in schema["enum"]:
        raise LLMError(f"LLM answer does not match the schema at {path}: {value!r} not allowed")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise LLMError(f"LLM answer does not match the schema at {path}: below minimum")
        if "maximum" in schema and value > schema["maximum"]:
            raise LLMError(f"LLM answer does not match the schema at {path}: above maximum")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                raise LLMError(f"LLM answer does not match the schema at {path}: missing {key!r}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                validate_schema(value[key], sub, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate_schema(item, schema["items"], f"{path}[{i}]")


def chat_json(messages: list[dict], *, schema: dict, timeout: float | None = None) -> dict:
    """Ask the chat model for one JSON object that satisfies ``schema``.

    Raises ``LLMError`` on timeout, HTTP error, a non-JSON answer or a schema mismatch.
    """
    payload = {
        "model": model_name(),
        "messages": messages,
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }
    body = _post("/chat/completions", payload, timeout)
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMError("LLM answer has no message content") from exc
    value = _parse_json_content(content)
    validate_schema(value, schema)
    return value


def embed(texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
    """Embed ``texts`` with the configured endpoint; one vector per text, in order. Raises ``LLMError``."""
    if not texts:
        return []
    body = _post("/embeddings", {"model": model_name(), "input": list(texts)}, timeout)
    try:
        rows = sorted(body["data"], key=lambda row: row.get("index", 0))
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise LLMError("embedding answer is malformed") from exc
    if len(vectors) != len(texts):
        raise LLMError("embedding answer has the wrong number of vectors")
    return vectors
