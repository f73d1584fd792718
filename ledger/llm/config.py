"""What the LLM path is configured to do, and what is wrong with that configuration (never raising).

Every setting is read here, once per call, so tests and the Settings page see the same values:
``ALMANAC_LLM_BASE_URL``, ``ALMANAC_LLM_MODEL``, ``ALMANAC_LLM_API_KEY``, ``ALMANAC_LLM_TIMEOUT``,
``ALMANAC_LLM_DAILY_CALLS``, ``ALMANAC_LLM_MAX_TOKENS`` and ``ALMANAC_LLM_TEMPERATURE`` (per call type).

A configuration problem (a key that cannot travel in an HTTP header, a URL that does not parse, a host that does
not answer, a model the server does not serve) never stops a pass: ``problems()`` names it, the client raises
``LLMError`` before any network traffic, and every caller runs its deterministic path.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
from django.conf import settings
from django.db import models

log = logging.getLogger("ledger.llm")


class CallType(models.TextChoices):
    """Every use of the model; each has its own output budget and is counted against the owner's daily cap."""

    EXTRACTOR = "extractor", "memory extractor"
    JUDGE = "judge", "memory judge"
    DIGEST = "digest", "chats digest"
    SCREEN_NAMER = "screen_namer", "screen event namer"
    RECALL_GATE = "recall_gate", "recall gate"


# Output budgets: enough for a full valid answer of each schema, small enough that a model that never stops is
# cut by the server (abandoned requests otherwise keep generating and queue ahead of every later call).
DEFAULT_MAX_TOKENS = {
    CallType.EXTRACTOR: 1200,
    CallType.JUDGE: 600,
    CallType.DIGEST: 500,
    CallType.SCREEN_NAMER: 160,
    CallType.RECALL_GATE: 64,
}
DEFAULT_TEMPERATURE = 0.0


@dataclass(frozen=True)
class CallSettings:
    max_tokens: int
    temperature: float


def per_call(name: str, cast) -> tuple[dict[str, float], list[str]]:
    """``"extractor=1200,judge=400"`` (or a dict, in tests) as {call type: value}, plus what could not be read."""
    raw = getattr(settings, name, "") or ""
    items = (
        raw.items() if isinstance(raw, dict) else (p.partition("=")[::2] for p in re.split(r"[,;]", raw) if p.strip())
    )
    values, bad = {}, []
    for key, value in items:
        key = str(key).strip()
        try:
            if key not in CallType.values:
                raise ValueError
            values[key] = cast(str(value).strip())
        except ValueError:
            bad.append(f"{name} has an entry that is not <call type>=<number> ({key}={value})")
    return values, bad


def call_settings(call: CallType) -> CallSettings:
    tokens, _ = per_call("ALMANAC_LLM_MAX_TOKENS", int)
    temps, _ = per_call("ALMANAC_LLM_TEMPERATURE", float)
    max_tokens = int(tokens.get(call.value, DEFAULT_MAX_TOKENS[call]))
    return CallSettings(max_tokens=max(16, max_tokens), temperature=float(temps.get(call.value, DEFAULT_TEMPERATURE)))


def base_url() -> str:
    return (getattr(settings, "ALMANAC_LLM_BASE_URL", "") or "").strip()


def model_name() -> str:
    return (getattr(settings, "ALMANAC_LLM_MODEL", "") or "").strip()


def api_key() -> str:
    return getattr(settings, "ALMANAC_LLM_API_KEY", "") or ""


def timeout() -> float:
    return float(getattr(settings, "ALMANAC_LLM_TIMEOUT", 30.0))


def daily_cap() -> int:
    return int(getattr(settings, "ALMANAC_LLM_DAILY_CALLS", 200))


# A context in which the model is not called: demo seeding (it must serve at once, whatever is configured) and
# web requests (``middleware.NoModelOnRequestPath``: only the recall gate, with its own short timeout, may call).
_offline: contextvars.ContextVar[tuple[str, frozenset]] = contextvars.ContextVar(
    "almanac_llm_offline", default=("", frozenset())
)


@contextlib.contextmanager
def offline(reason: str, *, allow: frozenset | set = frozenset()) -> Iterator[None]:
    """Inside this block ``llm_configured(call)`` is False except for the call types in ``allow``: every other
    caller takes its deterministic path."""
    token = _offline.set((reason, frozenset(allow)))
    try:
        yield
    finally:
        _offline.reset(token)


def offline_reason(call: CallType | None = None) -> str:
    reason, allowed = _offline.get()
    return "" if call is not None and call in allowed else reason


def model_in_use() -> bool:
    """A model is configured with no static problem: the worker calls it, whatever this context allows."""
    return bool(base_url() and model_name()) and not blocking_problems()


def llm_configured(call: CallType | None = None) -> bool:
    """A model is configured and usable for ``call``: URL and model set, no static configuration problem, and not
    inside ``offline()`` (unless ``call`` is allowed there)."""
    return model_in_use() and not offline_reason(call)


def model_work_waits_for_worker() -> bool:
    """Here (a web request, demo seeding) the model is not called, but the worker would call it: work that would
    use it belongs in the worker, not on the deterministic path."""
    return bool(offline_reason()) and model_in_use()


def server_root() -> str:
    """The server's address without the OpenAI-compatible ``/v1`` (Ollama's own API lives beside it)."""
    base = base_url().rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def endpoint(path: str) -> str:
    return server_root() + "/v1" + path  # accept both ".../v1" and a bare host


def blocking_problems() -> list[str]:
    """Problems that keep the model off (half a configuration, key encoding, URL shape)."""
    url, model, key = base_url(), model_name(), api_key()
    if not url and not model:
        return []
    out = []
    if not url:
        out.append("ALMANAC_LLM_MODEL is set but ALMANAC_LLM_BASE_URL is empty")
    if not model:
        out.append("ALMANAC_LLM_BASE_URL is set but ALMANAC_LLM_MODEL is empty")
    if key and not key.isascii():
        at = next(i for i, ch in enumerate(key) if not ch.isascii())
        out.append(f"ALMANAC_LLM_API_KEY has a non-ASCII character at position {at + 1} (a copy-paste quote or space?)")
    elif key and any(ch in key for ch in "\r\n\t "):
        out.append("ALMANAC_LLM_API_KEY contains whitespace")
    if url:
        problem = _url_problem(url)
        if problem:
            out.append(f"ALMANAC_LLM_BASE_URL {problem}")
    return out


def static_problems() -> list[str]:
    """Every problem visible without network traffic: the blocking ones, then unreadable per-call settings (those
    are reported, and the defaults of the entries not read apply)."""
    out = blocking_problems()
    if base_url() or model_name():
        for name, cast in (("ALMANAC_LLM_MAX_TOKENS", int), ("ALMANAC_LLM_TEMPERATURE", float)):
            out += per_call(name, cast)[1]
    return out


def _url_problem(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return "is not a valid URL"
    if parsed.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not parsed.host:
        return "has no host name"
    try:
        parsed.port  # noqa: B018 - a port out of range raises here
    except ValueError:
        return "has an invalid port"
    return ""
