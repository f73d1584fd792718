"""Registering Almanac with coding agents: Claude Code hooks (``settings.json``) and the MCP server
(``.mcp.json`` for a project, ``claude mcp add`` for the user), and the Codex equivalent (``config.toml``).

Writing is idempotent: Almanac's own hook entries (recognised by the client's path) are replaced, everything
else in the file is kept. The hook commands call ``chats/hook_client.py`` (standard library only) with the
server URL and a token in the environment, so they need no database settings at all.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from accounts.exceptions import DomainError

CLIENT = Path(__file__).resolve().parent.parent / "hook_client.py"
# Claude Code event → (client event, matcher or None, timeout seconds). Timeouts are a ceiling only: the
# client gives up after ALMANAC_HOOK_TIMEOUT (0.5 s) and lets the agent continue.
EVENTS = {
    "SessionStart": ("session-start", "startup|resume|clear|compact", 5),
    "UserPromptSubmit": ("user-prompt-submit", None, 5),
    "PreToolUse": ("pre-tool-use", "Bash|Write|Edit|MultiEdit", 5),
    "Stop": ("stop", None, 5),
    "PreCompact": ("pre-compact", None, 5),
    "SessionEnd": ("session-end", None, 5),
}


class SetupError(DomainError):
    status_code = 422


@dataclass
class SetupResult:
    written: list[str] = field(default_factory=list)  # files changed
    unchanged: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # to run by hand (user-scope MCP, Codex)


def hook_command(event: str, *, url: str, token: str) -> str:
    env = f"ALMANAC_URL={shlex.quote(url)} ALMANAC_TOKEN={shlex.quote(token)}"
    # -S: no site-packages (the client is standard library only), which keeps the start-up near 20 ms.
    return f"{env} {shlex.quote(sys.executable)} -S {shlex.quote(str(CLIENT))} {event}"


def hooks_block(*, url: str, token: str) -> dict:
    block: dict = {}
    for name, (event, matcher, timeout) in EVENTS.items():
        entry: dict = {"hooks": [{"type": "command", "command": hook_command(event, url=url, token=token),
                                  "timeout": timeout}]}  # fmt: skip
        if matcher:
            entry = {"matcher": matcher, **entry}
        block[name] = [entry]
    return block


def _ours(entry) -> bool:
    return isinstance(entry, dict) and any(
        isinstance(h, dict) and str(CLIENT.name) in str(h.get("command", "")) for h in entry.get("hooks") or []
    )


def merge_hooks(current: dict, block: dict) -> dict:
    """``current`` settings with Almanac's hook entries replaced by ``block`` (other hooks untouched)."""
    out = dict(current)
    hooks = dict(out.get("hooks") or {})
    for name, entries in block.items():
        kept = [e for e in hooks.get(name) or [] if not _ours(e)]
        hooks[name] = kept + entries
    out["hooks"] = hooks
    return out


def mcp_entry(*, url: str, token: str) -> dict:
    return {"type": "http", "url": f"{url.rstrip('/')}/mcp", "headers": {"Authorization": f"Bearer {token}"}}


def _read(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text() or "{}")
    except ValueError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix or move it first") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object")
    return data


def _write(path: Path, data: dict, result: SetupResult) -> None:
    text = json.dumps(data, indent=2) + "\n"
    if path.exists() and path.read_text() == text:
        result.unchanged.append(str(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    result.written.append(str(path))


def stdio_env() -> dict:
    """What a stdio MCP server started by an agent needs to find this installation's database."""
    env = {"ALMANAC_HOME": str(getattr(settings, "ALMANAC_HOME", ""))}
    import os

    if os.environ.get("DATABASE_URL"):
        env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    return {k: v for k, v in env.items() if v}


def codex_toml(*, username: str) -> str:
    """The ``~/.codex/config.toml`` section that starts Almanac's MCP server over stdio for Codex."""
    manage = Path(settings.BASE_DIR) / "manage.py"
    env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in stdio_env().items())
    return (
        "[mcp_servers.almanac]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps([str(manage), 'mcp', '--user', username])}\n"
        f"env = {{ {env} }}\n"
    )


def setup_claude(*, scope: str, url: str, token: str, project_dir: Path, home: Path) -> SetupResult:
    """Write the hooks into Claude Code's settings for ``scope`` (project: ``.claude/settings.json`` in
    ``project_dir``; user: ``~/.claude/settings.json``) and register the MCP server (project: ``.mcp.json``;
    user: the ``claude mcp add`` command to run, since ``~/.claude.json`` is Claude Code's own state file)."""
    if scope not in ("project", "user"):
        raise SetupError("scope must be project or user")
    if not url.startswith(("http://", "https://")):
        raise SetupError("url must start with http:// or https://")
    result = SetupResult()
    base = project_dir if scope == "project" else home
    settings_path = base / ".claude" / "settings.json"
    _write(settings_path, merge_hooks(_read(settings_path), hooks_block(url=url, token=token)), result)
    entry = mcp_entry(url=url, token=token)
    if scope == "project":
        mcp_path = project_dir / ".mcp.json"
        data = _read(mcp_path)
        data["mcpServers"] = {**(data.get("mcpServers") or {}), "almanac": entry}
        _write(mcp_path, data, result)
    else:
        result.commands.append(
            f"claude mcp add --transport http --scope user almanac {shlex.quote(entry['url'])} "
            f"--header {shlex.quote('Authorization: Bearer ' + token)}"
        )
    return result
