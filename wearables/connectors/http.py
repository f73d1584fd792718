"""Shared HTTP behaviour for every connector: timeouts, retries with backoff, clear errors, no leaked keys.

``ProviderClient`` is the only place that talks to the network. Connectors build one per call with the
provider's auth headers, and ask it for JSON. It never logs headers, and every message it builds is passed
through ``scrub`` so a provider that echoes the key back cannot leak it into logs or exceptions.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import math
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import certifi
import httpx
import tenacity

from wearables.connectors.base import CheckResult, Connector, FetchResult, ProviderError

logger = logging.getLogger("wearables.connectors")

MAX_BACKOFF_SECONDS = 30.0
RETRYABLE_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
Params = Mapping[str, Any] | list[tuple[str, Any]]


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verified TLS context for the process: building it per client costs tens of milliseconds."""
    return ssl.create_default_context(cafile=certifi.where())


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


def connect_failure(text: str) -> str:
    """A short, key-free reason for a failed connect (the OS text varies by platform)."""
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if (
        "name or service" in lowered
        or "name resolution" in lowered
        or "nodename" in lowered
        or "getaddrinfo" in lowered
    ):
        return "host not found"
    if "certificate" in lowered or "ssl" in lowered:
        return "TLS certificate not trusted"
    return "connection failed"


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


@dataclass
class Attempt:
    """What one request produced: a ``body``, an ``error`` to raise now, or a ``retry_reason`` (+ server hint)."""

    body: Any = None
    error: ProviderError | None = None
    retry_reason: str | None = None
    retry_after: float | None = None
    status: int | None = None


class _Retry(Exception):
    """One attempt that is worth retrying (tenacity retries on it; the last one becomes a ProviderError)."""

    def __init__(self, attempt: Attempt):
        super().__init__(attempt.retry_reason)
        self.attempt = attempt


class ProviderClient:
    """JSON-over-HTTP for one provider, with retries (tenacity).

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
        auth_hint: str = "",
    ) -> None:
        self.provider = provider
        self.auth_hint = auth_hint
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.sleep = sleep
        self.max_backoff = max_backoff
        self._headers = dict(headers or {})
        self._secrets = [s for s in secrets if s]
        self._http: httpx.Client | None = None
        self.requests_made = 0

    def _session(self) -> httpx.Client:
        # One connection pool per client: a day fetch makes many calls, and TLS handshakes to real hosts add up.
        if self._http is None:
            self._http = httpx.Client(
                base_url=self.base_url, headers=self._headers, timeout=self.timeout, verify=tls_context()
            )
        return self._http

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def __enter__(self) -> ProviderClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
        http = self._session()

        def wait(state: tenacity.RetryCallState) -> float:
            return self.backoff(state.attempt_number - 1, state.outcome.exception().attempt.retry_after)

        def log_retry(state: tenacity.RetryCallState) -> None:
            reason = state.outcome.exception().attempt.retry_reason
            delay = state.next_action.sleep if state.next_action else 0.0
            logger.warning(
                "%s: %s; retrying in %.1fs (retry %d of %d)",
                self.provider, reason, delay, state.attempt_number, max_retries,
            )  # fmt: skip

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry),
            stop=tenacity.stop_after_attempt(max_retries + 1),
            wait=wait,
            sleep=self.sleep,
            before_sleep=log_retry,
            reraise=True,
        )
        try:
            return retrying(self._once, http, path, params)
        except _Retry as last:
            raise self._gave_up(last.attempt, retrying.statistics["attempt_number"]) from None

    def _once(self, http: httpx.Client, path: str, params: Params | None) -> Any:
        outcome = self._attempt(http, path, params)
        if outcome.error is not None:
            raise outcome.error
        if outcome.retry_reason is not None:
            raise _Retry(outcome)
        return outcome.body

    def _gave_up(self, outcome: Attempt, tries: int) -> ProviderError:
        suffix = f" (gave up after {tries} attempts)" if tries > 1 else ""
        if outcome.status is None:
            where = display_url(self.base_url)
            error = self._fail(f"Could not reach {where}: {outcome.retry_reason}{suffix}", permanent=False)
            error.unanswered = True
            return error
        return self._fail(f"{self.provider} {outcome.retry_reason}{suffix}", permanent=False, status=outcome.status)

    def _attempt(self, http: httpx.Client, path: str, params: Params | None) -> Attempt:
        """One request, classified: a body, an error not worth retrying, or a reason to retry."""
        self.requests_made += 1
        try:
            response = http.get(path, params=params)
        except httpx.TimeoutException:
            return Attempt(retry_reason=f"timed out after {self.timeout:g}s")
        except httpx.ConnectError as exc:
            return Attempt(retry_reason=connect_failure(str(exc)))
        except httpx.TransportError as exc:
            return Attempt(retry_reason=f"network error ({type(exc).__name__})")
        status = response.status_code
        if 200 <= status < 300:
            try:
                return Attempt(body=response.json(), status=status)
            except ValueError:
                error = self._fail(f"{self.provider} returned a response that is not JSON", permanent=False)
                return Attempt(error=error, status=status)
        detail = scrub(error_detail(response), self._secrets)
        if status == 429:
            hint = parse_retry_after(response.headers.get("retry-after"))
            if hint is None:
                hint = self._body_retry_after(response)
            return Attempt(retry_reason="rate limited the request (429)", retry_after=hint, status=status)
        if status in RETRYABLE_STATUSES:
            reason = f"returned {status}" + (f": {detail}" if detail else "")
            return Attempt(
                retry_reason=reason, retry_after=parse_retry_after(response.headers.get("retry-after")), status=status
            )
        return Attempt(
            error=self._fail(self._permanent_message(status, detail, path), permanent=True, status=status),
            status=status,
        )

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
            if self.auth_hint:
                detail = f"{detail}; {self.auth_hint}" if detail else self.auth_hint
        elif status == 404:
            message = f"{self.provider} returned 404 for {path.split('?')[0]}"
        else:
            message = f"{self.provider} rejected the request ({status})"
        return f"{message}: {detail}" if detail else message


class ApiClient:
    """Base of each ``<provider>/client.py`` class: wraps a ``ProviderClient``; ``with`` closes its connections."""

    def __init__(self, http: ProviderClient) -> None:
        self.http = http

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()


class CursorGuard:
    """Stops paging when a provider hands back a cursor (or a page) it has already given.

    ``repeated(token)`` records the token and says whether it was seen before. Real providers never cycle, but
    a buggy proxy or server can; without this a day fetch would never end.
    """

    MAX_PAGES = 2000  # a day never has this many pages; past it the listing is treated as a loop

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._pages: set[tuple] = set()

    def repeated(self, token: str, page_ids: Iterable[Any] = ()) -> bool:
        """True when ``token`` was seen before, or the page's item ids (when given, non-empty) were served before
        under another cursor (a server that repeats one page forever with fresh cursors), or past MAX_PAGES."""
        page = tuple(str(i) for i in page_ids)
        if token in self._seen or (page and page in self._pages) or len(self._seen) >= self.MAX_PAGES:
            return True
        self._seen.add(token)
        if page:
            self._pages.add(page)
        return False

    def stop_day(self, result: FetchResult, provider: str, cursor: str, items: list) -> bool:
        """True when a day listing must stop before following ``cursor`` past the page of ``items``: a repeated
        cursor or page (the fetch is then incomplete) or an empty page. Each says why in ``result.warnings``."""
        if self.repeated(cursor, [item.get("id") for item in items if isinstance(item, dict)]):
            result.warnings.append(
                f"{provider} repeated a pagination cursor on page {result.pages}; stopped paging to avoid a loop"
            )
            result.complete = False
            return True
        if not items:
            result.warnings.append(f"{provider} returned an empty page with a cursor on page {result.pages}; stopped")
            return True
        return False


class HttpConnector(Connector):
    """Base for the HTTP connectors: a key-free repr and ``check()`` built on one cheap call.

    Subclasses set ``kind``/``provider`` and implement ``client()`` and ``probe(client)``.
    """

    provider: str = ""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {display_url(self.base_url)}>"

    def make_client(
        self, headers: Mapping[str, str], secrets: Iterable[str | None], *, auth_hint: str = ""
    ) -> ProviderClient:
        return ProviderClient(
            auth_hint=auth_hint,
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
            with self.client() as client:
                self.probe(client)
        except ProviderError as exc:
            return CheckResult(ok=False, message=exc.message)
        return CheckResult(ok=True, message=self.connected_message())
