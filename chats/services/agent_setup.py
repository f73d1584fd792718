"""Registering Almanac with coding agents without the plugin: Claude Code hooks and the MCP server, and the
Codex equivalent (``config.toml``).

No file a project shares or commits gets the token. The hooks and the token go into the settings file Claude
Code keeps out of version control (``.claude/settings.local.json`` for a project, ``~/.claude/settings.json``
for the user), the token in its ``env`` block; ``.mcp.json`` names the token by environment-variable
expansion (``${ALMANAC_TOKEN}``). Each place gets one token (named after it): a rerun reuses the token it wrote
when that still works, else makes a new one and revokes the earlier ones of that place; a token given with
``--token`` is checked before it is written. Writing is idempotent: Almanac's own entries (recognised by the
client's file name) are replaced, everything else in the files is kept, and Almanac's entries left in the
shared ``.claude/settings.json`` by earlier versions (which held the token) are removed.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from accounts.exceptions import DomainError

CLIENT = Path(__file__).resolve().parent.parent / "agent_plugin" / "hook_client.py"
TOOLS_THAT_ACT = "Bash|Edit|Write|MultiEdit|NotebookEdit"
# Claude Code event → (client event, matcher or None, timeout seconds). Timeouts are a ceiling only: the
# client gives up after ALMANAC_HOOK_TIMEOUT (0.5 s) and lets the agent continue.
EVENTS = {
    "SessionStart": ("session-start", "startup|resume|clear|compact", 5),
    "UserPromptSubmit": ("user-prompt-submit", None, 5),
    "PreToolUse": ("pre-tool-use", TOOLS_THAT_ACT, 5),
    "PostToolUse": ("post-tool-use", TOOLS_THAT_ACT, 5),
    "PostToolUseFailure": ("post-tool-use", TOOLS_THAT_ACT, 5),
    "Stop": ("stop", None, 5),
    "SubagentStop": ("subagent-stop", None, 5),
    "PreCompact": ("pre-compact", None, 5),
    "SessionEnd": ("session-end", None, 5),
}
TOKEN_NAME = "coding agents"


class SetupError(DomainError):
    status_code = 422


@dataclass
class SetupResult:
    written: list[str] = field(default_factory=list)  # files changed
    unchanged: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)  # to run by hand (user-scope MCP, Codex)
    notes: list[str] = field(default_factory=list)


def hook_command(event: str, *, python: str | None = None, client: str | None = None) -> str:
    # -S: no site-packages (the client is standard library only), which keeps the start-up near 20 ms.
    return f"{shlex.quote(python or sys.executable)} -S {client or shlex.quote(str(CLIENT))} {event}"


def hooks_block(command=hook_command) -> dict:
    """The ``hooks`` object for every event Almanac listens to; ``command(event)`` builds each command."""
    block: dict = {}
    for name, (event, matcher, timeout) in EVENTS.items():
        entry: dict = {"hooks": [{"type": "command", "command": command(event), "timeout": timeout}]}
        if matcher:
            entry = {"matcher": matcher, **entry}
        block[name] = [entry]
    return block


def plugin_hooks() -> dict:
    """The plugin's ``hooks/hooks.json`` (the client found through ``${CLAUDE_PLUGIN_ROOT}``)."""
    client = '"${CLAUDE_PLUGIN_ROOT}/hook_client.py"'
    return {
        "description": "Almanac: context at session start and per prompt, transcripts and tool calls recorded.",
        "hooks": hooks_block(lambda event: hook_command(event, python="python3", client=client)),
    }


def _ours(entry) -> bool:
    return isinstance(entry, dict) and any(
        isinstance(h, dict) and str(CLIENT.name) in str(h.get("command", "")) for h in entry.get("hooks") or []
    )


def merge_hooks(current: dict, block: dict) -> dict:
    """``current`` settings with Almanac's hook entries replaced by ``block`` (other hooks untouched)."""
    out = dict(current)
    hooks = {name: [e for e in entries or [] if not _ours(e)] for name, entries in (out.get("hooks") or {}).items()}
    for name, entries in block.items():
        hooks[name] = hooks.get(name, []) + entries
    out["hooks"] = {name: entries for name, entries in hooks.items() if entries}
    return out


def without_hooks(current: dict) -> dict:
    """``current`` settings with Almanac's hook entries (and its env variables) removed."""
    out = merge_hooks(current, {})
    if not out["hooks"]:
        out.pop("hooks")
    env = {k: v for k, v in (out.get("env") or {}).items() if not k.startswith("ALMANAC_")}
    if "env" in out:
        out["env"] = env
        if not env:
            out.pop("env")
    return out


# The folder Claude Code was started in (its project), expanded by Claude Code from its environment, in the URL:
# it has no variable for the project in an MCP entry (``CLAUDE_PROJECT_DIR`` is for hooks), and a header could not
# carry a folder name outside Latin-1 (the connection fails). See docs/mcp.md, "Project scope".
PROJECT_QUERY = "?project=${PWD:-}"


def mcp_entry(*, url: str) -> dict:
    """The ``.mcp.json`` server entry: URL and token by environment-variable expansion (no secret in it), the
    working folder as the connection's project."""
    return {"type": "http", "url": f"${{ALMANAC_URL:-{url.rstrip('/')}}}/mcp{PROJECT_QUERY}",
            "headers": {"Authorization": "Bearer ${ALMANAC_TOKEN}"}}  # fmt: skip


def read_json(path: Path) -> dict:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text() or "{}")
    except ValueError as exc:
        raise SetupError(f"{path} is not valid JSON ({exc}); fix or move it first") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path} does not hold a JSON object")
    return data


def _write(path: Path, data: dict, result: SetupResult, *, private: bool = False) -> None:
    text = json.dumps(data, indent=2) + "\n"
    if path.exists() and path.read_text() == text:
        result.unchanged.append(str(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if private:
        path.chmod(0o600)  # it holds the token
    result.written.append(str(path))


def stdio_env() -> dict:
    """What a stdio MCP server started by an agent needs to find this installation's database."""
    import os

    env = {"ALMANAC_HOME": str(getattr(settings, "ALMANAC_HOME", ""))}
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


@dataclass(frozen=True)
class Place:
    """Where ``setup_claude`` writes: the private settings file (hooks and token), the shared one it cleans, and
    the MCP file (None for the user scope: ``claude mcp add`` is printed instead)."""

    settings: Path
    shared: Path | None
    mcp: Path | None
    token_name: str


def place_for(*, scope: str, project_dir: Path, home: Path) -> Place:
    if scope == "project":
        claude = project_dir / ".claude"
        return Place(claude / "settings.local.json", claude / "settings.json", project_dir / ".mcp.json",
                     f"{TOKEN_NAME}: {project_dir.name}"[:100])  # fmt: skip
    if scope == "user":
        return Place(home / ".claude" / "settings.json", None, None, f"{TOKEN_NAME}: user settings")
    raise SetupError("scope must be project or user")


def plugin_place() -> Place:
    """The plugin keeps its token in Claude Code's secure storage, where setup cannot read it: each run makes a
    new one and revokes the plugin's earlier ones."""
    return Place(Path("/nonexistent"), None, None, f"{TOKEN_NAME}: plugin")


def plugin_instructions(*, url: str, token: str) -> str:
    root = shlex.quote(str(Path(settings.BASE_DIR)))
    return (
        f"Token for the Almanac plugin (shown once; Claude Code keeps it in secure storage):\n  {token}\n"
        f"Install the plugin from this checkout, then answer its two questions (URL: {url}, token: above):\n"
        f"  claude plugin marketplace add {root}\n"
        "  claude plugin install almanac@almanac-local\n"
    )


def token_in(place: Place) -> str:
    """The token an earlier setup wrote into this place ("" when none)."""
    if not place.settings.is_file():
        return ""
    value = (read_json(place.settings).get("env") or {}).get("ALMANAC_TOKEN")
    return value if isinstance(value, str) else ""


def setup_claude(*, place: Place, url: str, token: str) -> SetupResult:
    """Write the hooks with the URL and token into ``place.settings`` (kept out of version control), remove
    Almanac's entries from the shared settings file, and register the MCP server without a secret."""
    if not url.startswith(("http://", "https://")):
        raise SetupError("url must start with http:// or https://")
    result = SetupResult()
    data = merge_hooks(read_json(place.settings), hooks_block())
    data["env"] = {**(data.get("env") or {}), "ALMANAC_URL": url.rstrip("/"), "ALMANAC_TOKEN": token}
    _write(place.settings, data, result, private=True)
    if place.shared is not None and place.shared.exists():
        shared = read_json(place.shared)
        cleaned = without_hooks(shared)
        if cleaned != shared:
            _write(place.shared, cleaned, result)
            result.notes.append(f"removed Almanac's hooks (and the token they held) from {place.shared}")
    if place.mcp is not None:
        mcp = read_json(place.mcp)
        mcp["mcpServers"] = {**(mcp.get("mcpServers") or {}), "almanac": mcp_entry(url=url)}
        _write(place.mcp, mcp, result)
    else:
        result.commands.append(
            f"claude mcp add --transport http --scope user almanac {shlex.quote(url.rstrip('/') + '/mcp' + PROJECT_QUERY)} "
            '--header "Authorization: Bearer $ALMANAC_TOKEN"'
        )
    return result


def choose_token(*, owner, place: Place, given: str | None = None, rotate: bool = False) -> tuple[str, str]:
    """(the token to write, what was done). A given token must be one of the owner's active tokens. Otherwise
    the token this place already holds is reused while it works; a new one (``rotate``, or none that works)
    revokes the place's earlier tokens, so each place has one."""
    from accounts.models import ApiToken
    from accounts.services import authenticate_token, create_token, revoke_token

    if given:
        if authenticate_token(given) != owner:
            raise SetupError("that token is not an active token of this user (create one in Settings → Tokens)")
        return given, "using the given token"
    current = token_in(place)
    if current and not rotate and authenticate_token(current) == owner:
        return current, f"reusing the token already in {place.settings}"
    row, plain = create_token(owner=owner, name=place.token_name)
    earlier = ApiToken.objects.owned_by(owner).active().filter(name=place.token_name).exclude(pk=row.pk)
    for old in earlier:
        revoke_token(token=old)
    return plain, f"created token '{place.token_name}'" + (f", revoked {len(earlier)} earlier" if earlier else "")


def check_server(url: str, token: str, timeout: float = 3.0) -> str:
    """ "" when the server at ``url`` accepts ``token``; else why not. Raises SetupError when the server answers
    that the token is wrong (it serves another database)."""
    import httpx

    try:
        r = httpx.get(f"{url.rstrip('/')}/api/v1/chats/sessions", params={"limit": 1},
                      headers={"Authorization": f"Bearer {token}"}, timeout=timeout)  # fmt: skip
    except httpx.HTTPError as exc:
        return f"the server at {url} did not answer ({type(exc).__name__}); hooks fail open until it runs"
    if r.status_code == 401:
        raise SetupError(f"the server at {url} refused the token (is it serving this installation's database?)")
    return "" if r.status_code == 200 else f"the server at {url} answered {r.status_code}"
