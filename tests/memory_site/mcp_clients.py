"""The official ``mcp`` SDK client against Almanac, over stdio (``manage.py mcp`` as a subprocess) and over
Streamable HTTP (``/mcp`` on the live test server). Each helper runs one async ``exercise(client)`` and returns
what it returned; the server's stderr (stdio) is kept so a test can read the server's log."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable

from django.conf import settings
from django.db import connection

from accounts import services

Exercise = Callable[[object], Awaitable[object]]


def database_url() -> str:
    s = connection.settings_dict
    host = s.get("HOST") or ""
    if host.startswith("/"):
        return f"postgresql://{s['USER']}:{s.get('PASSWORD') or ''}@/{s['NAME']}?host={host}"
    return f"postgresql://{s['USER']}:{s.get('PASSWORD') or ''}@{host}:{s.get('PORT') or 5432}/{s['NAME']}"


def run_async(make_coro):
    """asyncio.run in a thread of its own (a browser test may have left an event loop in this one)."""
    out: dict = {}

    def target():
        try:
            out["value"] = asyncio.run(make_coro())
        except BaseException as exc:
            out["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def over_stdio(
    username: str, exercise: Exercise, *, extra_args: tuple[str, ...] = (), env: dict | None = None
) -> tuple[object, str]:
    """(what ``exercise`` returned, the server's stderr) for ``manage.py mcp --user username``."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--user", username, *extra_args],
        cwd=str(settings.BASE_DIR),
        env={**os.environ, "DATABASE_URL": database_url(), **(env or {})},
    )
    with tempfile.TemporaryFile("w+") as errlog:

        async def run():
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return await exercise(client)

        value = run_async(run)
        errlog.seek(0)
        return value, errlog.read()


def over_http(
    owner, live_server, exercise: Exercise, *, headers: dict | None = None, token: str | None = None, path: str = "/mcp"
):
    """What ``exercise`` returned over Streamable HTTP at ``path`` with a bearer token of ``owner`` (a new one
    unless given)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = token or services.create_token(owner=owner, name="agent")[1]

    async def run():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}", **(headers or {})})
        async with http, Client(streamable_http_client(f"{live_server.url}{path}", http_client=http)) as client:
            return await exercise(client)

    return run_async(run)


def data(result) -> dict:
    """The structured answer of a successful tool call."""
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


def error_text(result) -> str:
    """The reason of a tool error (the call must have been one)."""
    assert result.is_error, result.structured_content
    return result.content[0].text
