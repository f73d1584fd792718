"""Shared HTTP behaviour for every connector: timeouts, retries with backoff, clear errors, no leaked keys.

``ProviderClient`` is the only place that talks to the network. Connectors build one per call with the
provider's auth headers, and ask it for JSON. It never logs headers, and every message it builds is passed
through ``scrub`` so a provider that echoes the key back cannot leak it into logs or exceptions.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from wearables.connectors.base import CheckResult, Connector, ProviderError

logger = logging.getLogger("wearables.connectors")

MAX_BACKOFF_SECONDS = 30.0
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
Params = Mapping[str, Any] | list[tuple[str, Any]]


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every secret (and anything 4+ chars long that is one) in ``text`` with ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def display_url(url: str) -> str:
    """The URL without userinfo, query or fragment: safe to show in messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def parse_retry_after(value: Any) -> float | None:
    """Seconds from a Retry-After header or a body ``retryAfter`` (Limitless sends it as a string).

    Accepts delta-seconds ("17", 17, "2.5") and HTTP dates; returns None for anything unreadable.
    """
    if value is None or isinstance(value, bool):
        return None
    text = str(value).strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(0.0, seconds)


def error_detail(response: httpx.Response) -> str:
    """The provider's own error text: ``error`` / ``message`` / ``detail`` from JSON, else a short body."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            value = body.get(key)
            if isinstance(value, str) and value:
                return value[:200]
            if value:
                return json.dumps(value)[:200]
    return ""


class ProviderClient:
    """JSON-over-HTTP for one provider, with retries.

    Inputs: provider display name ("Limitless"), base URL, auth headers, per-request timeout (seconds),
    ``max_retries`` extra attempts after the first, and an injectable ``sleep`` so tests don't wait.
    ``get_json(path, params)`` returns the decoded body of a 2xx response. Raises ``ProviderError``:
    ``permanent=True`` for 4xx other than 408/425/429 (bad key, bad request); ``permanent=False`` when retries
    are exhausted on network errors, timeouts, 429 or 5xx, or the body is not JSON.
    """

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str] | None = None,
        secrets: Iterable[str | None] = (),
        timeout: float = 30.0,
        max_retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        max_backoff: float = MAX_BACKOFF_SECONDS,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.sleep = sleep
        self.max_backoff = max_backoff
        self._headers = dict(headers or {})
        self._secrets = [s for s in secrets if s]
        self.requests_made = 0

    def __repr__(self) -> str:
        return f"<ProviderClient {self.provider} {display_url(self.base_url)}>"

    def _fail(self, message: str, *, permanent: bool, status: int | None = None) -> ProviderError:
        return ProviderError(scrub(message, self._secrets), permanent=permanent, status=status)

    def backoff(self, attempt: int, hint: float | None) -> float:
        """Seconds to wait before retry ``attempt`` (0-based): the provider's hint, else 1, 2, 4 …; capped."""
        delay = hint if hint is not None else float(2**attempt)
        return min(self.max_backoff, delay)

    def get_json(self, path: str, params: Params | None = None, *, retries: int | None = None) -> Any:
        """GET ``path`` and return its JSON body. See the class docstring for errors."""
        max_retries = self.max_retries if retries is None else max(0, retries)
        where = display_url(self.base_url)
        with httpx.Client(base_url=self.base_url, headers=self._headers, timeout=self.timeout) as http:
            attempt = 0
            while True:
                problem, hint, status = self._attempt(http, path, params)
                if problem is None:
                    return hint  # the decoded body
                if isinstance(problem, ProviderError):
                    raise problem
                if attempt >= max_retries:
                    tries = attempt + 1
                    suffix = f" after {tries} attempts" if tries > 1 else ""
                    if status is None:
                        raise self._fail(f"Could not reach {where}: {problem}{suffix}", permanent=False)
                    raise self._fail(f"{self.provider} {problem}{suffix}", permanent=False, status=status)
                delay = self.backoff(attempt, hint)
                logger.warning(
                    "%s: %s; retrying in %.1fs (retry %d of %d)",
                    self.provider,
                    scrub(problem, self._secrets),
                    delay,
                    attempt + 1,
                    max_retries,
                )
                self.sleep(delay)
                attempt += 1

    def _attempt(self, http: httpx.Client, path: str, params: Params | None) -> tuple[Any, Any, int | None]:
        """One request. Returns (None, body, status) on success, (ProviderError, None, status) when it must
        not be retried, or (reason text, retry hint seconds, status|None) when it may be retried."""
        self.requests_made += 1
        try:
            response = http.get(path, params=params)
        except httpx.TimeoutException:
            return f"timed out after {self.timeout:g}s", None, None
        except httpx.ConnectError as exc:
            reason = "connection refused" if "refused" in str(exc).lower() else "connection failed"
            return reason, None, None
        except httpx.TransportError as exc:
            return f"network error ({type(exc).__name__})", None, None
        status = response.status_code
        if 200 <= status < 300:
            try:
                return None, response.json(), status
            except ValueError:
                return self._fail(f"{self.provider} returned a response that is not JSON", permanent=False), None, status
        detail = scrub(error_detail(response), self._secrets)
        if status in RETRYABLE_STATUSES:
            hint = parse_retry_after(response.headers.get("retry-after"))
            if hint is None and status == 429:
                hint = self._body_retry_after(response)
            label = "rate limited the request (429)" if status == 429 else f"returned {status}"
            return (f"{label}: {detail}" if detail and status != 429 else label), hint, status
        return self._fail(self._permanent_message(status, detail, path), permanent=True, status=status), None, status

    @staticmethod
    def _body_retry_after(response: httpx.Response) -> float | None:
        try:
            body = response.json()
        except ValueError:
            return None
        return parse_retry_after(body.get("retryAfter")) if isinstance(body, dict) else None

    def _permanent_message(self, status: int, detail: str, path: str) -> str:
        if status in (401, 403):
            message = f"{self.provider} rejected the API key ({status})"
        elif status == 404:
            message = f"{self.provider} returned 404 for {path.split('?')[0]}"
        else:
            message = f"{self.provider} rejected the request ({status})"
        return f"{message}: {detail}" if detail else message


class CursorGuard:
    """Stops paging when a provider hands back a cursor (or a page) it has already given.

    ``repeated(token)`` records the token and says whether it was seen before. Real providers never cycle, but
    a buggy proxy or server can; without this a day fetch would never end.
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def repeated(self, token: str) -> bool:
        if token in self._seen:
            return True
        self._seen.add(token)
        return False


class HttpConnector(Connector):
    """Base for the HTTP connectors: a key-free repr and ``check()`` built on one cheap call.

    Subclasses set ``kind``/``provider`` and implement ``client()`` and ``probe(client)``.
    """

    provider: str = ""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {display_url(self.base_url)}>"

    def make_client(self, headers: Mapping[str, str], secrets: Iterable[str | None]) -> ProviderClient:
        return ProviderClient(
            provider=self.provider,
            base_url=self.base_url,
            headers=headers,
            secrets=secrets,
            timeout=self.timeout,
            max_retries=self.max_retries,
            sleep=self.sleep,
        )

    def client(self) -> Any:
        """The provider's client (``<provider>/client.py``) with auth applied."""
        raise NotImplementedError

    def probe(self, client: Any) -> None:
        """The cheap authenticated call ``check()`` makes; raises ``ProviderError``."""
        raise NotImplementedError

    def connected_message(self) -> str:
        return f"Connected to {self.provider}"

    def check(self) -> CheckResult:
        """One cheap authenticated call, no retries; never raises."""
        try:
            self.probe(self.client())
        except ProviderError as exc:
            return CheckResult(ok=False, message=exc.message)
        return CheckResult(ok=True, message=self.connected_message())
