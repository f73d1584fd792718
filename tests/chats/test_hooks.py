"""Claude Code hooks end to end as subprocesses: lessons on prompt / tool call / stop, once per session,
the memory folder (one file per lesson + managed MEMORY.md section; deleted files stay deleted), setup."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from tests.memory_site.test_mcp import _database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def lesson(user):
    turns = [
        TurnIn(role="user", text="Install the requests package so the importer can download the feed files."),
        TurnIn(role="assistant", text="Running npm install requests.",
               tool_calls=[{"id": "t1", "name": "Bash", "input": {"command": "npm install requests"}}]),
        TurnIn(role="user", text="No, this project installs Python packages with pip and requirements.txt, never npm."),
    ]  # fmt: skip
    stored = store_session(owner=user, data=SessionIn(source_key="chat:claude-code", external_id="s0",
                                                      project="/home/dev/feed", turns=turns))  # fmt: skip
    stored.session.refresh_from_db()
    assert distill_session(session=stored.session) == "distilled"
    return user


def hook(event: str, payload, *extra: str) -> subprocess.CompletedProcess:
    body = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "manage.py", "chats", "hook", event, "--user", "alice", *extra],
        input=body, capture_output=True, text=True, timeout=60, cwd=settings.BASE_DIR,
        env={**os.environ, "DATABASE_URL": _database_url()},
    )  # fmt: skip


def test_prompt_hook_prints_bearing_lessons_once_per_session(lesson):
    payload = {"session_id": "abc", "cwd": "/home/dev/feed", "hook_event_name": "UserPromptSubmit",
               "prompt": "add the yaml package to the project requirements"}  # fmt: skip
    first = hook("user-prompt-submit", payload)
    assert first.returncode == 0, first.stderr
    assert "pip and requirements.txt" in first.stdout
    assert hook("user-prompt-submit", payload).stdout.strip() == ""  # already shown in this session
    assert "pip" in hook("user-prompt-submit", {**payload, "session_id": "other"}).stdout
    unrelated = {**payload, "session_id": "third", "prompt": "rename the header component"}
    assert hook("user-prompt-submit", unrelated).stdout.strip() == ""


def test_pre_tool_use_answers_with_hook_json(lesson):
    payload = {"session_id": "s", "cwd": "/home/dev/feed", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "npm install pyyaml"}, "tool_use_id": "toolu_1"}  # fmt: skip
    out = hook("pre-tool-use", payload)
    data = json.loads(out.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "pip" in data["hookSpecificOutput"]["additionalContext"]


def test_stop_writes_the_memory_folder_and_respects_deleted_files(lesson, tmp_path):
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# My notes\n\nKeep this line.\n")
    payload = {"session_id": "s", "cwd": "/home/dev/feed", "hook_event_name": "Stop", "stop_hook_active": False}
    assert hook("stop", payload, "--memory-dir", str(folder)).returncode == 0
    files = sorted(p.name for p in folder.glob("lesson-*.md"))
    assert len(files) >= 1
    index = (folder / "MEMORY.md").read_text()
    assert "Keep this line." in index and "<!-- almanac:lessons:start -->" in index and files[0] in index
    (folder / files[0]).unlink()
    hook("stop", {**payload, "session_id": "s2"}, "--memory-dir", str(folder))
    assert not (folder / files[0]).exists()
    assert files[0] not in (folder / "MEMORY.md").read_text()
    assert (folder / "MEMORY.md").read_text().count("almanac:lessons:start") == 1


def test_bad_hook_input_never_breaks_the_agent(lesson):
    out = hook("user-prompt-submit", "this is not json")
    assert out.returncode == 0 and out.stdout.strip() == ""


def test_setup_prints_the_settings_snippet(user):
    out = subprocess.run([sys.executable, "manage.py", "chats", "setup", "--user", "alice"], capture_output=True,
                         text=True, timeout=60, cwd=settings.BASE_DIR,
                         env={**os.environ, "DATABASE_URL": _database_url()})  # fmt: skip
    data = json.loads(out.stdout)
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command.endswith("chats hook user-prompt-submit --user alice")
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Bash|Write|Edit"
    assert data["mcpServers"]["almanac"]["args"][-2:] == ["--user", "alice"]
