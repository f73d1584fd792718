"""``chats setup``: the hooks and the token go into Claude Code's local (untracked) settings file, the MCP entry
names the token by environment-variable expansion, reruns reuse one token per place, a wrong token is refused,
and the settings written validate against Claude Code's settings schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from jsonschema import Draft7Validator

from accounts.models import ApiToken
from accounts.services import authenticate_token, create_token

pytestmark = pytest.mark.django_db
SETTINGS_SCHEMA = json.loads(
    (Path(settings.BASE_DIR) / "tests" / "fixtures" / "claude_code_schemas" / "claude-code-settings.json").read_text()
)


def _setup(project: Path, *extra: str) -> None:
    call_command("chats", "setup", "--user", "alice", "--project-dir", str(project), "--url",
                 "http://127.0.0.1:8765", "--no-check", *extra)  # fmt: skip


def _token_of(project: Path) -> str:
    return json.loads((project / ".claude" / "settings.local.json").read_text())["env"]["ALMANAC_TOKEN"]


def test_no_shared_file_holds_the_token_and_the_local_file_is_private(user, tmp_path):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"model": "x", "hooks": {"PreToolUse": [mine]}}))
    _setup(project)
    token = _token_of(project)
    assert authenticate_token(token) == user
    shared = (project / ".claude" / "settings.json").read_text() + (project / ".mcp.json").read_text()
    assert token not in shared and "alm_" not in shared
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {
        "model": "x",
        "hooks": {"PreToolUse": [mine]},
    }
    mcp = json.loads((project / ".mcp.json").read_text())["mcpServers"]["almanac"]
    assert mcp["headers"]["Authorization"] == "Bearer ${ALMANAC_TOKEN}"
    assert mcp["url"] == "${ALMANAC_URL:-http://127.0.0.1:8765}/mcp?project=${PWD:-}"
    local = project / ".claude" / "settings.local.json"
    assert local.stat().st_mode & 0o077 == 0
    data = json.loads(local.read_text())
    assert list(Draft7Validator(SETTINGS_SCHEMA).iter_errors(data)) == []
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command.endswith("hook_client.py user-prompt-submit") and "ALMANAC_TOKEN" not in command


def test_a_rerun_reuses_the_token_and_rotate_replaces_it(user, tmp_path, capsys):
    project = tmp_path / "proj"
    project.mkdir()
    _setup(project)
    first = _token_of(project)
    _setup(project)
    assert _token_of(project) == first and "reusing" in capsys.readouterr().out
    assert ApiToken.objects.filter(owner=user, revoked_at__isnull=True).count() == 1
    _setup(project, "--rotate")
    second = _token_of(project)
    assert second != first and authenticate_token(first) is None and authenticate_token(second) == user
    assert ApiToken.objects.filter(owner=user, revoked_at__isnull=True).count() == 1


def test_a_wrong_token_is_refused_and_nothing_is_written(user, other_user, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    for wrong in ("alm_not-a-token", create_token(owner=other_user, name="b")[1]):
        with pytest.raises(CommandError, match="not an active token"):
            _setup(project, "--token", wrong)
    assert not (project / ".claude").exists() and not (project / ".mcp.json").exists()


def test_earlier_versions_hooks_and_token_are_removed_from_the_shared_file(user, tmp_path, capsys):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    old = {"hooks": [{"type": "command", "command": "ALMANAC_URL=http://x ALMANAC_TOKEN=alm_old python -S "
                      "/srv/almanac/chats/hook_client.py stop"}]}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [old]}}))
    _setup(project)
    assert "alm_old" not in (project / ".claude" / "settings.json").read_text()
    assert "removed Almanac's hooks" in capsys.readouterr().out


@pytest.mark.django_db(transaction=True)
def test_the_token_is_checked_against_the_running_server(user, tmp_path, live_server):
    project = tmp_path / "proj"
    project.mkdir()
    call_command("chats", "setup", "--user", "alice", "--project-dir", str(project), "--url", live_server.url)
    assert authenticate_token(_token_of(project)) == user


def test_the_plugin_route_prints_one_token_and_the_install_commands(user, capsys):
    call_command("chats", "setup", "--user", "alice", "--plugin", "--no-check")
    out = capsys.readouterr().out
    token = next(w for w in out.split() if w.startswith("alm_"))
    assert authenticate_token(token) == user
    assert "claude plugin marketplace add" in out and "claude plugin install almanac@almanac-local" in out
    call_command("chats", "setup", "--user", "alice", "--plugin", "--no-check")
    assert authenticate_token(token) is None  # the plugin's earlier token is revoked: one token for the plugin
    assert ApiToken.objects.filter(owner=user, revoked_at__isnull=True).count() == 1
