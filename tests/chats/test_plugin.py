"""The Claude Code plugin in the repository (``chats/agent_plugin/``: ``.claude-plugin/plugin.json``,
``hooks/hooks.json``, the hook client; ``.claude-plugin/marketplace.json`` at the root installs it from a
checkout): validated against Claude
Code's published schemas (SchemaStore's, generated from Claude Code's own; tests/fixtures/claude_code_schemas/
README.md), and the commands it registers run as Claude Code runs them. ``chats setup`` writes settings that
validate against the settings schema and hold no token in shared files."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from jsonschema import Draft7Validator

from chats.services import agent_setup

ROOT = Path(settings.BASE_DIR)
PLUGIN = ROOT / "chats" / "agent_plugin"
SCHEMAS = ROOT / "tests" / "fixtures" / "claude_code_schemas"


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text())


def _errors(schema: dict, document) -> list[str]:
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in Draft7Validator(schema).iter_errors(document)]


def test_the_manifest_validates_against_claude_codes_schema():
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert _errors(_schema("claude-code-plugin-manifest"), manifest) == []
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", manifest["name"])  # kebab-case, as the validator warns
    options = manifest["userConfig"]
    assert options["token"]["sensitive"] is True  # kept in the keychain / credentials file, not settings.json
    server = manifest["mcpServers"]["almanac"]
    assert server["url"] == "${user_config.url}/mcp?project=${PWD:-}" and "${user_config.token}" in server["headers"]["Authorization"]


def test_the_marketplace_installs_the_plugin_from_this_repository():
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert _errors(_schema("claude-code-marketplace"), market) == []
    (entry,) = market["plugins"]
    assert entry["name"] == "almanac" and (ROOT / entry["source"] / ".claude-plugin" / "plugin.json").is_file()
    # Installing copies the plugin's folder into Claude Code's cache: it must hold the plugin and nothing else
    # (the repository root would carry var/, the owner's database and secret key, along).
    assert (ROOT / entry["source"]).resolve() == PLUGIN
    assert sorted(p.name for p in PLUGIN.iterdir() if p.name != "__pycache__") == [
        ".claude-plugin", "__init__.py", "hook_client.py", "hooks"]  # fmt: skip


def test_the_hooks_file_validates_and_is_what_setup_registers():
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())
    hooks_schema = _schema("claude-code-plugin-manifest")["properties"]["hooks"]["anyOf"][1]
    assert _errors(hooks_schema, hooks["hooks"]) == []
    assert hooks == agent_setup.plugin_hooks()  # regenerate with the test's expectation if the events change
    assert set(hooks["hooks"]) == set(agent_setup.EVENTS)


def _commands() -> list[tuple[str, str]]:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    return [(name, h["command"]) for name, entries in hooks.items() for e in entries for h in e["hooks"]]


@pytest.mark.slow
def test_every_registered_command_runs_and_fails_open_without_a_server(tmp_path):
    """Each command as Claude Code runs it (a shell, ${CLAUDE_PLUGIN_ROOT} set, the plugin's options in the
    environment) exits 0 and prints nothing when no server answers."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ["PATH"], "CLAUDE_PLUGIN_ROOT": str(PLUGIN), "HOME": str(tmp_path),
           "CLAUDE_PLUGIN_OPTION_URL": f"http://127.0.0.1:{port}", "CLAUDE_PLUGIN_OPTION_TOKEN": "alm_x"}  # fmt: skip
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "prompt": "hello"})
    for name, command in _commands():
        out = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True, env=env,
                             timeout=20)  # fmt: skip
        assert out.returncode == 0 and out.stdout == "", (name, out.stderr)
        assert "server unreachable" in out.stderr, (name, out.stderr)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_registered_command_reaches_the_server_with_the_plugins_options(live_server, user, tmp_path):
    from accounts.services import create_token

    token = create_token(owner=user, name="plugin")[1]
    env = {"PATH": os.environ["PATH"], "CLAUDE_PLUGIN_ROOT": str(PLUGIN), "HOME": str(tmp_path),
           "CLAUDE_PLUGIN_OPTION_URL": live_server.url, "CLAUDE_PLUGIN_OPTION_TOKEN": token,
           "ALMANAC_HOOK_TIMEOUT": "10"}  # fmt: skip
    command = dict(_commands())["PostToolUse"]
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_use_id": "toolu_1", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}}  # fmt: skip
    out = subprocess.run(["sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True, env=env,
                         timeout=30)  # fmt: skip
    assert out.returncode == 0 and out.stderr == "", out.stderr
    from chats.models import AgentToolEvent

    assert AgentToolEvent.objects.filter(owner=user, tool_name="Bash").count() == 1
