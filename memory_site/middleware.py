"""Request limits, once for every route: size (413), NUL bytes (400), oversized fields and query strings.

PostgreSQL refuses NUL characters in text, and Django turns an oversized body into an exception deep inside
a view; both used to surface as 500s, route by route. This middleware answers them before any view runs:
JSON ``{"detail": ...}`` on the API (and for any client asking for JSON), a small HTML page for forms.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable

from django.conf import settings
from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.db import DataError
from django.http import HttpRequest, HttpResponse, JsonResponse, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.utils.html import escape

from accounts.crypto import EncryptionUnavailable
from accounts.database import LOST, database_trouble
from accounts.schemas import MAX_OFFSET

logger = logging.getLogger(__name__)

NUL = "\x00"
# While PostgreSQL restarts (seconds) a request answers 503 and says when to come back, instead of a 500.
DATABASE_UNAVAILABLE = "the database is unavailable (restarting or unreachable); try again shortly"
RETRY_AFTER_SECONDS = 5
BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
JSON_PREFIXES = ("/api/", "/mcp", "/v1/")
MCP_PATH = "/mcp"


class BadInput(Exception):
    """An input the server refuses as a whole: ``status`` and a ``detail`` a person can act on."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


def wants_json(request: HttpRequest) -> bool:
    """API clients (and anything that sent or asked for JSON) get JSON errors; browsers get a page."""
    if request.path.startswith(JSON_PREFIXES):
        return True
    return "json" in request.content_type or "application/json" in request.headers.get("Accept", "")


def error_response(request: HttpRequest, status: int, detail: str) -> HttpResponse:
    response = _error_body(request, status, detail)
    if status == 503 and detail == DATABASE_UNAVAILABLE:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _error_body(request: HttpRequest, status: int, detail: str) -> HttpResponse:
    if wants_json(request):
        return JsonResponse({"detail": detail}, status=status)
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Request refused · Almanac</title>'
        '<link rel="stylesheet" href="/static/css/almanac.css"></head><body><main class="page">'
        f'<h1>Request refused</h1><p class="error">{escape(detail)}</p><p><a href="/">Back to Almanac</a></p>'
        "</main></body></html>"
    )
    return HttpResponse(page, status=status, content_type="text/html; charset=utf-8")


def _walk_strings(value, path: str = "") -> Iterable[tuple[str, str]]:
    """Every string in a decoded JSON document (keys included), with a dotted path for the error."""
    if isinstance(value, str):
        yield path or "body", value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            yield child, str(key)
            yield from _walk_strings(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk_strings(item, f"{path}[{index}]" if path else f"[{index}]")


def check_strings(pairs: Iterable[tuple[str, str]], *, max_chars: int) -> None:
    """Raise BadInput for the first NUL character (400) or string longer than ``max_chars`` (422)."""
    for name, text in pairs:
        if NUL in text:
            raise BadInput(400, f"{name}: NUL characters (\\u0000) are not allowed")
        if len(text) > max_chars:
            raise BadInput(422, f"{name}: too long ({len(text)} characters, at most {max_chars})")


def _content_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError as exc:
        raise BadInput(400, "Content-Length is not a number") from exc


def check_request(request: HttpRequest) -> None:
    """Apply every limit to one request; raise BadInput on the first that fails."""
    if NUL in request.path:
        raise BadInput(400, "path: NUL characters are not allowed")
    query = request.META.get("QUERY_STRING", "")
    if len(query) > settings.ALMANAC_MAX_QUERY_CHARS:
        raise BadInput(
            414, f"query string too long ({len(query)} characters, at most {settings.ALMANAC_MAX_QUERY_CHARS})"
        )
    check_strings(
        ((f"query parameter {k}", s) for k, values in request.GET.lists() for s in [k, *values]),
        max_chars=settings.ALMANAC_MAX_QUERY_CHARS,
    )
    _check_paging(request)
    if request.method not in BODY_METHODS:
        return
    multipart = request.content_type == "multipart/form-data"
    limit = settings.ALMANAC_MAX_UPLOAD_BYTES if multipart else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if _content_length(request) > limit:
        raise BadInput(413, f"request body too large (at most {limit} bytes)")
    if multipart and _content_length(request) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        return  # a large upload streams to the view untouched (files may hold any byte)
    if multipart or request.content_type == "application/x-www-form-urlencoded":
        # Read the body first: the form is then parsed from memory and the view can still read request.body.
        _ = request.body
        fields = ((f"field {k}", s) for k, values in request.POST.lists() for s in [k, *values])
        check_strings(fields, max_chars=settings.ALMANAC_MAX_FIELD_CHARS)
        return
    if request.path == MCP_PATH:
        return  # JSON-RPC: memory_site.mcp_http answers bad strings as JSON-RPC errors an MCP client can read
    body = request.body  # read once here; Django caches it for the view
    if b"\x00" in body:
        raise BadInput(400, "body: NUL bytes are not allowed")
    if "json" not in request.content_type and not body.lstrip().startswith((b"{", b"[")):
        return
    _require_object_body(request, body)
    # Decoding costs one pass; only worth it when a string could break a limit.
    if b"\\u0000" not in body and len(body) <= settings.ALMANAC_MAX_FIELD_CHARS:
        return
    try:
        document = json.loads(body)
    except ValueError:
        return  # the view reports the syntax error in its own words
    check_strings(_walk_strings(document), max_chars=settings.ALMANAC_MAX_FIELD_CHARS)


def _check_paging(request: HttpRequest) -> None:
    """``offset`` is bounded on every route, including ones that forgot to declare a bound (SQL OFFSET beyond
    bigint is a database error, and a deep offset is a slow scan)."""
    raw = request.GET.get("offset")
    if raw is None:
        return
    try:
        offset = int(raw)
    except ValueError:
        return  # the route's own schema answers 422 for a non-number
    if not 0 <= offset <= MAX_OFFSET:
        raise BadInput(422, f"offset must be between 0 and {MAX_OFFSET}")


def _require_object_body(request: HttpRequest, body: bytes) -> None:
    """Every JSON body on /api/ is an object. ninja schemas read attributes, so ``[]``, ``42`` or ``null``
    would validate as "no fields given" and succeed; refuse them here for every route at once."""
    stripped = body.strip()
    if not request.path.startswith(JSON_PREFIXES[0]) or not stripped or stripped.startswith(b"{"):
        return
    try:
        json.loads(stripped)
    except ValueError:
        return  # not JSON at all: the view reports the syntax error
    raise BadInput(422, "body: expected a JSON object")


class RequestLimitsMiddleware:
    """Refuse NUL bytes, oversized bodies, fields and query strings before any view; map late failures too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            check_request(request)
        except BadInput as exc:
            return error_response(request, exc.status, exc.detail)
        except RequestDataTooBig:
            return error_response(request, 413, "request body too large")
        except TooManyFieldsSent:
            return error_response(request, 400, "too many form fields")
        except (SuspiciousOperation, BadRequest, MultiPartParserError, UnreadablePostError) as exc:
            return error_response(request, 400, str(exc) or "bad request")
        return self._json_errors(request, self.get_response(request))

    @staticmethod
    def _json_errors(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """Every API error is JSON with a ``detail``, including Django's own 404/405 pages."""
        if response.status_code < 400 or not request.path.startswith(JSON_PREFIXES[0]):
            return response
        if "json" in response.get("Content-Type", ""):
            return response
        replacement = JsonResponse({"detail": response.reason_phrase or "error"}, status=response.status_code)
        if response.has_header("Allow"):
            replacement["Allow"] = response["Allow"]
        return replacement

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        response = map_exception(exception)
        return error_response(request, *response) if response else None


def map_exception(exception: Exception) -> tuple[int, str] | None:
    """(status, detail) for the bad-input failures a view can still hit late; None for real server errors."""
    if isinstance(exception, RequestDataTooBig):
        return 413, "request body too large"
    if isinstance(exception, EncryptionUnavailable):
        # A configuration problem, not a crash: one clear sentence (never a key) for the page, the API and the log.
        logger.error("encryption at rest: %s", exception)
        return 503, str(exception)
    if database_trouble(exception) == LOST:
        logger.warning("database unavailable: %s", (str(exception).strip().splitlines() or [""])[0][:200])
        return 503, DATABASE_UNAVAILABLE
    if isinstance(exception, DataError):
        # The client's value, but worth a line: a route is missing a bound its schema should declare.
        logger.warning("database refused a value: %s", str(exception).splitlines()[0][:200])
        return 422, "a value does not fit the field it is stored in (too long or out of range)"
    if isinstance(exception, ValueError) and "NUL" in str(exception):
        return 400, "NUL characters (\\u0000) are not allowed"
    return None
