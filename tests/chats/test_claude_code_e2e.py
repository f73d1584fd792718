"""The plugin in the real Claude Code CLI, end to end: installed from this checkout with Claude Code's plugin
commands into a scratch config, a headless session (``claude -p``) run against a local imitation of the
Anthropic Messages API, the hooks firing against a live Almanac. Runs when ALMANAC_CLAUDE_BIN names the
``claude`` binary (npm ``@anthropic-ai/claude-code``); CI has none, so there it is skipped and
tests/chats/test_plugin.py checks the files and commands instead."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from accounts.services import create_token
from chats import tasks
from chats.models import AgentProject, AgentTranscript, ChatSession, PrivateSpanCount
from tests.support.anthropic_server import AnthropicImitation

CLAUDE = os.environ.get("ALMANAC_CLAUDE_BIN", "")
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(not CLAUDE or not Path(CLAUDE).is_file(), reason="set ALMANAC_CLAUDE_BIN to the claude binary"),
]


def _claude(args: list[str], env: dict, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CLAUDE, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def test_a_real_claude_code_session_reaches_almanac_through_the_plugin(user, live_server, tmp_path):
    token = create_token(owner=user, name="plugin")[1]
    model = AnthropicImitation().start()
    project = tmp_path / "shop"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(
        ["git", "-C", str(project), "remote", "add", "origin", "git@github.com:example/shop.git"], check=True
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"),
           "ANTHROPIC_BASE_URL": model.base_url, "ANTHROPIC_API_KEY": "sk-ant-local", "DISABLE_TELEMETRY": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "ALMANAC_HOOK_TIMEOUT": "10"}  # fmt: skip
    try:
        assert _claude(["plugin", "validate", "--strict", str(settings.BASE_DIR)], env, project).returncode == 0
        assert _claude(["plugin", "marketplace", "add", str(settings.BASE_DIR)], env, project).returncode == 0
        installed = _claude(["plugin", "install", "almanac@almanac-local", "--config", f"url={live_server.url}",
                             "--config", f"token={token}"], env, project)  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        assert token not in (tmp_path / "cfg" / "settings.json").read_text()  # a sensitive option: secure storage
        run = _claude(["-p", "What does this project do? <private>my locker code is 8814</private>",
                       "--output-format", "json"], env, project)  # fmt: skip
        assert run.returncode == 0, run.stderr
        session_id = json.loads(run.stdout)["session_id"]
    finally:
        model.stop()
    (transcript,) = AgentTranscript.objects.filter(owner=user, agent_session_id=session_id)
    assert transcript.received_bytes > 0 and transcript.agent_project.key == "repo:github.com/example/shop"
    tasks.import_agent_transcript(transcript.pk)
    session = ChatSession.objects.get(owner=user, external_id__endswith=f":{session_id}")
    texts = [t.text for t in session.turns.all()]
    assert "What does this project do?" in texts and not any("8814" in t for t in texts)
    assert PrivateSpanCount.objects.get(owner=user, entry_point="hooks").removed >= 1
    assert AgentProject.objects.filter(owner=user).count() == 1
