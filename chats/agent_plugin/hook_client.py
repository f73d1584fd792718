"""Claude Code hook client: reads the hook JSON on stdin, sends it to the Almanac server, prints its answer.

Run by Claude Code for each hook event (the plugin's ``hooks/hooks.json`` or ``chats setup`` registers it).
Standard library only, no Django, and a plain-socket HTTP/1.1 request (even ``http.client`` costs ~0.2 s of
imports on a busy machine): it starts in tens of milliseconds and never touches a database. It fails open: when
the server is down, slow, refuses or answers nonsense, it prints nothing, writes one line to stderr and exits 0,
so the agent is never blocked.

Everything the server needs travels in the request; the server never opens a path. On this machine the client
reads what the hook payload points to:

- the transcript (``transcript_path``; ``agent_transcript_path`` at SubagentStop): the complete lines written
  since the last piece the server acknowledged, at most MAX_CHUNK_BYTES per call (a longer backlog goes with the
  next events). The acknowledged byte offset is kept in a small state file per transcript
  (ALMANAC_HOOK_STATE_DIR, default ``$XDG_STATE_HOME/almanac/hooks``); the paths themselves are not sent.
- the project: the repository root above ``cwd`` and its remote URL (from ``.git/config``, credentials dropped).

    ALMANAC_URL=http://127.0.0.1:8000 ALMANAC_TOKEN=alm_… python -S chats/hook_client.py user-prompt-submit

Installed as a Claude Code plugin, the URL and token come from the plugin's options (CLAUDE_PLUGIN_OPTION_URL,
CLAUDE_PLUGIN_OPTION_TOKEN). ALMANAC_HOOK_TIMEOUT (seconds, default 0.5) bounds each exchange, connect to last
byte.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import time

EVENTS = ("session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "stop", "subagent-stop",
          "pre-compact", "session-end")  # fmt: skip
# Events after which the transcript holds new lines worth sending, and the payload field that names it.
TRANSCRIPT_FIELDS = {"stop": "transcript_path", "pre-compact": "transcript_path", "session-end": "transcript_path",
                     "subagent-stop": "agent_transcript_path"}  # fmt: skip
DEFAULT_TIMEOUT = 0.5
MAX_ANSWER = 1_000_000
MAX_CHUNK_BYTES = 2_000_000  # of the transcript per call; the request stays under the server's 4 MB body limit
MAX_LINE_CHARS = 150_000  # the server refuses a single string over 200,000 characters
MAX_STRING_CHARS = 20_000  # a longer string inside an over-long line (an image, a file's content) is cut
MAX_FIELD_CHARS = 100_000  # a longer string in the hook payload itself (a pasted file as the prompt) is cut
MAX_STDIN = 5_000_000
STATE_MAX_AGE_DAYS = 30


class HookFailure(Exception):
    """Anything that means "no answer": the caller prints one line and lets the agent continue."""


# --- HTTP ---------------------------------------------------------------------------------------------------
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


def post(event: str, payload: dict, *, url: str, token: str, timeout: float) -> dict:
    """POST one hook payload; returns the server's JSON answer. Raises on any failure (the caller fails open)."""
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    status, answer = _exchange(url, f"/api/v1/chats/hooks/{event}", body, token, timeout)
    if status != 200:
        raise HookFailure(f"server answered {status}")
    data = json.loads(answer or b"{}")
    if not isinstance(data, dict):
        raise HookFailure("the answer is not a JSON object")
    return data


# --- The project: repository root and remote, read from .git on this machine -------------------------------
def _git_dir(folder: str) -> str | None:
    """The git directory of a working tree root (``.git`` itself, or where a worktree's ``.git`` file points)."""
    dot = os.path.join(folder, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as fh:
            first = fh.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    return target if os.path.isabs(target) else os.path.normpath(os.path.join(folder, target))


def _config_of(git_dir: str) -> str:
    """The repository's config file (a worktree's git dir names the shared one in ``commondir``)."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = fh.read().strip()
        git_dir = common if os.path.isabs(common) else os.path.normpath(os.path.join(git_dir, common))
    except OSError:
        pass
    return os.path.join(git_dir, "config")


_SECTION = re.compile(r'^\s*\[\s*remote\s+"([^"]+)"\s*\]')
_URL = re.compile(r"^\s*url\s*=\s*(\S+)")


def remote_url(git_dir: str) -> str:
    """The ``origin`` remote's URL (else the first remote's), without user name or password."""
    try:
        with open(_config_of(git_dir), encoding="utf-8", errors="replace") as fh:
            lines = fh.read(200_000).splitlines()
    except OSError:
        return ""
    remotes: dict[str, str] = {}
    current = None
    for line in lines:
        section = _SECTION.match(line)
        if section:
            current = section.group(1)
            continue
        if line.lstrip().startswith("["):
            current = None
        elif current and current not in remotes:
            m = _URL.match(line)
            if m:
                remotes[current] = m.group(1)
    url = remotes.get("origin") or next(iter(remotes.values()), "")
    return re.sub(r"(://)[^/@]*@", r"\1", url)  # https://user:token@host/… → https://host/…


def project_of(cwd: str) -> dict:
    """{root, repository} of the git working tree containing ``cwd`` ({} outside any)."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return {}
    folder = os.path.normpath(cwd)
    for _ in range(64):
        git_dir = _git_dir(folder)
        if git_dir:
            return {"root": folder, "repository": remote_url(git_dir)}
        parent = os.path.dirname(folder)
        if parent == folder:
            return {}
        folder = parent
    return {}


# --- The transcript: new complete lines since the acknowledged offset ---------------------------------------
def state_dir() -> str:
    base = os.environ.get("ALMANAC_HOOK_STATE_DIR") or os.path.join(
        os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state"), "almanac", "hooks"
    )
    return base


def _state_file(path: str, session_id: str, agent_id: str) -> str:
    import hashlib

    key = hashlib.sha256(f"{session_id}\x1f{agent_id}\x1f{path}".encode()).hexdigest()[:32]
    return os.path.join(state_dir(), key)


def read_offset(path: str, session_id: str, agent_id: str) -> int:
    try:
        with open(_state_file(path, session_id, agent_id), encoding="ascii") as fh:
            return max(0, int(fh.read().strip() or 0))
    except (OSError, ValueError):
        return 0


def write_offset(path: str, session_id: str, agent_id: str, offset: int) -> None:
    target = _state_file(path, session_id, agent_id)
    try:
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        tmp = f"{target}.{os.getpid()}"
        with open(tmp, "w", encoding="ascii") as fh:
            fh.write(str(int(offset)))
        os.replace(tmp, target)
    except OSError:
        pass  # the next call resends from the server's offset: nothing is lost


def forget_old_state(now: float | None = None) -> None:
    """Remove state files of transcripts untouched for STATE_MAX_AGE_DAYS (run at SessionEnd)."""
    now = now or time.time()
    try:
        names = os.listdir(state_dir())
    except OSError:
        return
    for name in names:
        full = os.path.join(state_dir(), name)
        try:
            if now - os.path.getmtime(full) > STATE_MAX_AGE_DAYS * 86400:
                os.remove(full)
        except OSError:
            continue


def file_tag(path: str) -> str:
    """The tag ``chats import`` gives the same file on the same machine (sha256 of its resolved path, 12 hex):
    a session sent by hooks and imported from its file later is one session. A tag, never a path."""
    import hashlib

    return hashlib.sha256(os.path.realpath(path).encode()).hexdigest()[:12]


def cut_strings(value, limit: int = MAX_STRING_CHARS):
    """``value`` (JSON-like) with every string longer than ``limit`` cut to it."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + " …[cut]"
    if isinstance(value, dict):
        return {k: cut_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [cut_strings(v, limit) for v in value]
    return value


def _shrink(line: str) -> str:
    """An over-long JSON line with its long strings cut (images, file contents); a stub if that is not enough."""
    try:
        record = json.loads(line)
    except ValueError:
        return json.dumps({"type": "almanac-skipped", "reason": "unreadable line", "chars": len(line)})
    small = json.dumps(cut_strings(record), ensure_ascii=False)
    if len(small) <= MAX_LINE_CHARS:
        return small
    return json.dumps({"type": "almanac-skipped", "reason": "line too long", "chars": len(line)})


def read_chunk(path: str, offset: int, limit: int = MAX_CHUNK_BYTES) -> tuple[list[str], int, int]:
    """(complete lines from byte ``offset``, the byte offset after the last of them, the file's size). A file
    shorter than ``offset`` (rewritten) is read from the start."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if offset > size:
            offset = 0
        fh.seek(offset)
        data = fh.read(limit)
    cut = data.rfind(b"\n")
    if cut < 0:
        if len(data) < limit:
            return [], offset, size  # only a half-written last line so far
        with open(path, "rb") as fh:  # one line longer than the limit: skip it whole
            fh.seek(offset)
            rest = fh.read()
        end = rest.find(b"\n")
        end = len(rest) if end < 0 else end + 1
        return [json.dumps({"type": "almanac-skipped", "reason": "line too long", "bytes": end})], offset + end, size
    lines = []
    for raw in data[: cut + 1].split(b"\n"):
        if not raw.strip():
            continue
        line = raw.decode("utf-8", errors="replace")
        lines.append(line if len(line) <= MAX_LINE_CHARS else _shrink(line))
    return lines, offset + cut + 1, size


def transcript_piece(event: str, payload: dict, offset: int | None = None) -> dict | None:
    """{offset, end, lines, agent_id, file_tag} of the transcript this event carries, or None."""
    field = TRANSCRIPT_FIELDS.get(event)
    path = payload.get(field) if field else None
    if not isinstance(path, str) or not path or not os.path.isfile(path):
        return None
    session_id = str(payload.get("session_id") or "")
    agent_id = str(payload.get("agent_id") or "") if event == "subagent-stop" else ""
    start = read_offset(path, session_id, agent_id) if offset is None else offset
    try:
        lines, end, _size = read_chunk(path, start)
    except OSError:
        return None  # unreadable here (permissions, removed meanwhile): the hook still answers
    # A subagent's transcript is filed under its parent session's tag (the file importer does the same).
    tag_path = payload.get("transcript_path") if agent_id else path
    tag = file_tag(tag_path) if isinstance(tag_path, str) and tag_path else ""
    return {"offset": start, "end": end, "lines": lines, "agent_id": agent_id, "file_tag": tag, "path": path}


# --- One hook call --------------------------------------------------------------------------------------------
def _option(name: str) -> str:
    """ALMANAC_<NAME>, else the Claude Code plugin option <name> (CLAUDE_PLUGIN_OPTION_<NAME>)."""
    for key in (f"ALMANAC_{name.upper()}", f"CLAUDE_PLUGIN_OPTION_{name.upper()}", f"CLAUDE_PLUGIN_OPTION_{name}"):
        value = os.environ.get(key, "").strip()
        if value:
            return value
    return ""


def _fail(message: str) -> int:
    sys.stderr.write(f"almanac hook: {message} (continuing without memory)\n")
    return 0


def prepare(event: str, payload: dict) -> tuple[dict, dict | None]:
    """The payload to send (the project added, local paths removed) and the transcript piece it carries."""
    piece = transcript_piece(event, payload)
    # A prompt or a tool's output can be a whole file: what the server keeps of them is far shorter.
    sent = {k: cut_strings(v, MAX_FIELD_CHARS) for k, v in payload.items()
            if k not in ("transcript_path", "agent_transcript_path")}  # fmt: skip
    project = project_of(str(payload.get("cwd") or ""))
    if project:
        sent["almanac_project"] = project
    if piece is not None:
        sent["almanac_transcript"] = {k: v for k, v in piece.items() if k != "path"}
    return sent, piece


def _acknowledge(answer: dict, piece: dict | None, payload: dict, send) -> None:
    """Keep the server's offset; when it asked for another one (a gap or a lost state file), send that piece
    once more, as far as the time allows."""
    if piece is None or not isinstance(answer.get("transcript_offset"), int):
        return
    session_id, agent_id = str(payload.get("session_id") or ""), piece["agent_id"]
    acked = answer["transcript_offset"]
    write_offset(piece["path"], session_id, agent_id, acked)
    if acked == piece["end"]:
        return
    again = transcript_piece("subagent-stop" if agent_id else "stop", payload, offset=acked)
    if again is None or again["end"] == acked:
        return
    sent = {"session_id": session_id, "cwd": payload.get("cwd") or "", "agent_id": agent_id,
            "almanac_transcript": {k: v for k, v in again.items() if k != "path"}}  # fmt: skip
    retry = send("transcript", sent)
    if isinstance(retry.get("transcript_offset"), int):
        write_offset(piece["path"], session_id, agent_id, retry["transcript_offset"])


def main(argv: list[str] | None = None, stdin=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in EVENTS:
        return _fail(f"unknown event {argv[0] if argv else '(none)'}; expected one of {', '.join(EVENTS)}")
    event = argv[0]
    url, token = _option("url"), _option("token")
    if not url or not token:
        return _fail("ALMANAC_URL and ALMANAC_TOKEN (or the plugin's url and token options) are not set")
    try:
        timeout = float(os.environ.get("ALMANAC_HOOK_TIMEOUT") or DEFAULT_TIMEOUT)
    except ValueError:
        timeout = DEFAULT_TIMEOUT
    started = time.monotonic()

    def send(name: str, body: dict) -> dict:
        left = timeout - (time.monotonic() - started) if name == "transcript" else timeout
        if left <= 0.05:
            return {}
        return post(name, body, url=url, token=token, timeout=left)

    try:
        payload = json.loads((stdin or sys.stdin).read(MAX_STDIN) or "{}")
        if not isinstance(payload, dict):
            raise HookFailure("the hook input is not a JSON object")
        sent, piece = prepare(event, payload)
        answer = send(event, sent)
    except HookFailure as exc:
        return _fail(str(exc))
    except (OSError, ValueError) as exc:  # refused, timed out, reset, not JSON
        return _fail(f"server unreachable or slow: {type(exc).__name__}")
    try:
        _acknowledge(answer, piece, payload, send)
    except (HookFailure, OSError, ValueError) as exc:  # the answer still counts; the rest goes next time
        _fail(f"the rest of the transcript waits for the next event: {type(exc).__name__}")
    if event == "session-end":
        forget_old_state()
    output = answer.get("output")
    if isinstance(output, str) and output:
        sys.stdout.write(output if output.endswith("\n") else output + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
