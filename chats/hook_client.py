"""Claude Code hook client: reads the hook JSON on stdin, asks the running Almanac server, prints its answer.

Run by Claude Code for SessionStart, UserPromptSubmit, PreToolUse, Stop, PreCompact and SessionEnd (``chats
setup`` writes the commands). Standard library only, no Django, and a plain-socket HTTP/1.1 request (even
``http.client`` costs ~0.2 s of imports on a busy machine): it starts in tens of milliseconds and never touches
a database. It fails open: when the server is down, slow, refuses or answers nonsense, it prints nothing,
writes one line to stderr and exits 0, so the agent is never blocked.

    ALMANAC_URL=http://127.0.0.1:8000 ALMANAC_TOKEN=alm_… python -S chats/hook_client.py user-prompt-submit

ALMANAC_HOOK_TIMEOUT (seconds, default 0.5) bounds the whole exchange, connect to last byte.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

EVENTS = ("session-start", "user-prompt-submit", "pre-tool-use", "stop", "pre-compact", "session-end")
DEFAULT_TIMEOUT = 0.5
MAX_ANSWER = 1_000_000


class HookFailure(Exception):
    """Anything that means "no answer": the caller prints one line and lets the agent continue."""


def _split_url(url: str) -> tuple[str, str, int, str]:
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("http", "https"):
        raise HookFailure(f"ALMANAC_URL must start with http:// or https:// (got {url!r})")
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.rpartition(":") if hostport.count(":") == 1 else (hostport, "", "")
    host = host or hostport
    return scheme, host.strip("[]"), int(port) if port.isdigit() else (443 if scheme == "https" else 80), "/" + path


def _exchange(url: str, path: str, body: bytes, token: str, timeout: float) -> tuple[int, bytes]:
    scheme, host, port, prefix = _split_url(url)
    deadline = time.monotonic() + timeout
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        if scheme == "https":
            import ssl  # only when asked for: the import is slow

            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        head = (
            f"POST {prefix.rstrip('/')}{path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode("latin-1") + body)
        chunks, size = [], 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            sock.settimeout(left)
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > MAX_ANSWER:
                raise HookFailure("answer too large")
    finally:
        sock.close()
    raw = b"".join(chunks)
    header, _, payload = raw.partition(b"\r\n\r\n")
    status_line = header.split(b"\r\n", 1)[0].split()
    if len(status_line) < 2 or not status_line[1].isdigit():
        raise HookFailure("the answer is not HTTP")
    if b"transfer-encoding: chunked" in header.lower():
        payload = _unchunk(payload)
    return int(status_line[1]), payload


def _unchunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out, data = out + rest[:size], rest[size + 2 :]
    return out


def call(event: str, raw: str, *, url: str, token: str, timeout: float) -> str:
    """POST the hook payload; returns what to print. Raises on any failure (the caller fails open)."""
    status, payload = _exchange(url, f"/api/v1/chats/hooks/{event}", raw.encode("utf-8"), token, timeout)
    if status != 200:
        raise HookFailure(f"server answered {status}")
    answer = json.loads(payload or b"{}")
    output = answer.get("output") if isinstance(answer, dict) else None
    return output if isinstance(output, str) else ""


def _fail(message: str) -> int:
    sys.stderr.write(f"almanac hook: {message} (continuing without memory)\n")
    return 0


def main(argv: list[str] | None = None, stdin=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in EVENTS:
        return _fail(f"unknown event {argv[0] if argv else '(none)'}; expected one of {', '.join(EVENTS)}")
    url, token = os.environ.get("ALMANAC_URL", ""), os.environ.get("ALMANAC_TOKEN", "")
    if not url or not token:
        return _fail("ALMANAC_URL and ALMANAC_TOKEN are not set")
    try:
        timeout = float(os.environ.get("ALMANAC_HOOK_TIMEOUT") or DEFAULT_TIMEOUT)
    except ValueError:
        timeout = DEFAULT_TIMEOUT
    try:
        raw = (stdin or sys.stdin).read(5_000_000)
        output = call(argv[0], raw or "{}", url=url, token=token, timeout=timeout)
    except HookFailure as exc:
        return _fail(str(exc))
    except (OSError, ValueError) as exc:  # refused, timed out, reset, not JSON
        return _fail(f"server unreachable or slow: {type(exc).__name__}")
    if output:
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
