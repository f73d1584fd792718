"""Streamable HTTP for the MCP server inside Django (WSGI): bearer token and Origin checked here, then the
request is handed to the SDK's session manager (stateless, JSON responses) as an ASGI call.

Bad input inside a JSON-RPC request (a string argument over ``ALMANAC_MAX_FIELD_CHARS``, a NUL character) is
answered here as a JSON-RPC error naming the argument, with the request's id, so an MCP client reports the reason
instead of an HTTP status it cannot read (the site's request-limit middleware leaves /mcp's strings to this module).
"""

from __future__ import annotations

import asyncio
import json
import threading
from urllib.parse import unquote, urlsplit

from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import INVALID_PARAMS

from memory_site import mcp
from memory_site.middleware import BadInput, check_strings
from memory_site.middleware import _walk_strings as walk_strings

# The connection's default project: the header (percent-encoded when not ASCII), else the URL's ``project``
# parameter (what the Claude Code plugin and ``chats setup`` send: ``/mcp?project=${PWD:-}``).
PROJECT_HEADER = "X-Almanac-Project"
PROJECT_PARAMETER = "project"

LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")


def origin_allowed(request: HttpRequest) -> bool:
    """Browsers send Origin; a page from another site must not drive the user's agent tools (DNS rebinding)."""
    origin = request.headers.get("Origin")
    if not origin:
        return True
    allowed = set(getattr(settings, "ALMANAC_MCP_ALLOWED_ORIGINS", []) or [])
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    if parts.hostname in LOOPBACK:
        return True
    return parts.netloc == request.get_host()


def _scope(request: HttpRequest) -> dict:
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()]
    host, _, port = request.get_host().partition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode(),
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR") or "127.0.0.1", 0),
        "server": (host, int(port or (443 if request.is_secure() else 80))),
    }


def input_error(body: bytes) -> JsonResponse | None:
    """A JSON-RPC error for each request whose params break a string limit; None when every request is fine
    (or the body is not JSON-RPC at all: the SDK answers that in its own words)."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    requests = document if isinstance(document, list) else [document]
    errors = []
    for request in requests:
        if not isinstance(request, dict):
            continue
        try:
            check_strings(walk_strings(request.get("params"), "params"), max_chars=settings.ALMANAC_MAX_FIELD_CHARS)
        except BadInput as exc:
            error = {"code": INVALID_PARAMS, "message": f"Invalid params: {exc.detail}"}
            errors.append({"jsonrpc": "2.0", "id": request.get("id"), "error": error})
    if not errors:
        return None
    return JsonResponse(errors if isinstance(document, list) else errors[0], safe=False, status=200)


def project_of(request: HttpRequest) -> str:
    named = request.headers.get(PROJECT_HEADER, "").strip()
    if not named:
        # Read by hand: a folder name may hold "+", which form decoding (request.GET) would turn into a space.
        query = request.META.get("QUERY_STRING", "")
        pairs = (part.partition("=") for part in query.split("&"))
        named = next((value for key, _, value in pairs if key == PROJECT_PARAMETER), "")
    return unquote(named).strip()[: mcp.PROJECT_MAX]


async def _dispatch(scope: dict, body: bytes, owner, client: str, project: str = "") -> tuple[int, list, bytes]:
    mcp.current_owner.set(owner)
    mcp.current_client.set(client)
    mcp.current_project.set(project)
    sent = {"status": 500, "headers": [], "body": b""}
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            sent["status"], sent["headers"] = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            sent["body"] += message.get("body", b"")

    manager = StreamableHTTPSessionManager(app=mcp.server._lowlevel_server, json_response=True, stateless=True)
    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return sent["status"], sent["headers"], sent["body"]


def _run(scope: dict, body: bytes, owner, project: str) -> tuple[int, list, bytes]:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return async_to_sync(_dispatch)(scope, body, owner, "http", project)  # the normal WSGI case
    # This thread already runs an event loop (an embedding app or test harness): use a thread of our own.
    result: dict = {}

    def target():
        try:
            result["value"] = asyncio.run(_dispatch(scope, body, owner, "http", project))
        except BaseException as exc:  # re-raised in the request thread
            result["error"] = exc

    worker = threading.Thread(target=target, name="mcp-http")
    worker.start()
    worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def handle(request: HttpRequest, owner) -> HttpResponse:
    refused = input_error(request.body) if request.method == "POST" else None
    if refused is not None:
        return refused
    status, headers, body = _run(_scope(request), request.body, owner, project_of(request))
    response = HttpResponse(body, status=status)
    for k, v in headers:
        name = k.decode("latin-1")
        if name.lower() not in ("content-length", "connection", "transfer-encoding"):
            response[name] = v.decode("latin-1")
    return response
