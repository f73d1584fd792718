"""Claude Code hooks end to end: the stdlib client (``chats/hook_client.py``) run as Claude Code runs it, with
Claude Code's documented payloads on stdin, against a running server, a stopped one and a hung one; the memory
folder; ``chats setup`` writing the settings and ``.mcp.json`` idempotently."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.services import create_token
from chats.services import agent_hooks, agent_setup
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
CLIENT = Path(agent_setup.CLIENT)
BASE = {"session_id": "3f1c9e2a-0000-4000-8000-000000000001", "cwd": "/home/dev/feed", "permission_mode": "default"}


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


def run_client(event: str, payload, url: str, token: str = "x", timeout: float | None = None):
    """(completed process, seconds) of the client run as Claude Code runs it. A running test server gets a
    generous timeout (its first requests import lazily on a shared machine); failing open uses the default."""
    body = payload if isinstance(payload, str) else json.dumps(payload)
    env = {"PATH": os.environ.get("PATH", ""), "ALMANAC_URL": url, "ALMANAC_TOKEN": token}
    if timeout is not None:
        env["ALMANAC_HOOK_TIMEOUT"] = str(timeout)
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-S", str(CLIENT), event], input=body, capture_output=True, text=True,
                         timeout=30, env=env)  # fmt: skip
    return out, time.monotonic() - start


@pytest.fixture
def token(lesson):
    return create_token(owner=lesson, name="hooks")[1]


def test_prompt_hook_prints_bearing_lessons_once_per_session(live_server, token):
    payload = {**BASE, "transcript_path": "/nowhere/x.jsonl", "hook_event_name": "UserPromptSubmit",
               "prompt": "add the yaml package to the project requirements"}  # fmt: skip
    first, _ = run_client("user-prompt-submit", payload, live_server.url, token, 10)
    assert first.returncode == 0, first.stderr
    assert "pip and requirements.txt" in first.stdout
    again, _ = run_client("user-prompt-submit", payload, live_server.url, token, 10)
    assert again.stdout.strip() == ""  # already shown in this session
    unrelated = {**payload, "session_id": "third", "prompt": "rename the header component"}
    assert run_client("user-prompt-submit", unrelated, live_server.url, token, 10)[0].stdout.strip() == ""


def test_session_start_and_pre_tool_use_answer_with_hook_json(live_server, token):
    start, _ = run_client("session-start", {**BASE, "hook_event_name": "SessionStart", "source": "startup"},
                          live_server.url, token, 10)  # fmt: skip
    data = json.loads(start.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "pip" in data["hookSpecificOutput"]["additionalContext"]
    payload = {**BASE, "session_id": "other", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "npm install pyyaml"}, "tool_use_id": "toolu_1"}  # fmt: skip
    tool, _ = run_client("pre-tool-use", payload, live_server.url, token, 10)
    assert json.loads(tool.stdout)["hookSpecificOutput"]["additionalContext"].count("pip") >= 1


def test_stop_pre_compact_and_session_end_queue_the_transcript(live_server, token, tmp_path, monkeypatch):
    transcript = tmp_path / "3f1c9e2a.jsonl"
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": "3f1c9e2a",
                "cwd": "/home/dev/feed",
                "message": {"role": "user", "content": "Tidy the feed parser"},
            }
        )
        + "\n"
    )
    queued: list[str] = []
    monkeypatch.setattr("chats.tasks.enqueue_transcript_import", lambda owner_id, path: queued.append(path))
    for event, name, extra in (("stop", "Stop", {"stop_hook_active": False}),
                               ("pre-compact", "PreCompact", {"trigger": "auto", "custom_instructions": ""}),
                               ("session-end", "SessionEnd", {"reason": "prompt_input_exit"})):  # fmt: skip
        out, _ = run_client(event, {**BASE, "transcript_path": str(transcript), "hook_event_name": name, **extra},
                            live_server.url, token, 10)  # fmt: skip
        assert out.returncode == 0, out.stderr
    assert queued == [str(transcript)] * 3


def test_bad_input_fails_open_with_one_line_on_stderr(live_server, token):
    for body in ("[]", "this is not json", json.dumps({**BASE, "transcript_path": None})):
        out, _ = run_client("user-prompt-submit", body, live_server.url, token, 10)
        assert out.returncode == 0 and out.stdout == ""
        assert len(out.stderr.strip().splitlines()) <= 1
    out, _ = run_client("user-prompt-submit", {**BASE, "prompt": "hi"}, live_server.url, "wrong-token", 10)
    assert out.returncode == 0 and out.stdout == "" and "401" in out.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_stopped_server_fails_open_in_well_under_a_second():
    out, took = run_client("user-prompt-submit", {**BASE, "prompt": "hello"}, f"http://127.0.0.1:{_free_port()}")
    assert out.returncode == 0 and out.stdout == "" and out.stderr.count("\n") == 1
    assert took < 1.0


def test_a_hung_server_fails_open_in_under_a_second():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():  # accepts and never answers, like a server whose database hangs
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        for event in agent_setup.EVENTS.values():
            out, took = run_client(event[0], {**BASE, "prompt": "x"}, f"http://127.0.0.1:{listener.getsockname()[1]}")
            assert out.returncode == 0 and out.stdout == "" and "slow" in out.stderr
            assert took < 1.0, (event, took)
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_stop_writes_the_memory_folder_and_respects_deleted_files(lesson, tmp_path):
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# My notes\n\nKeep this line.\n")
    payload = {**BASE, "hook_event_name": "Stop", "stop_hook_active": False}
    agent_hooks.run_hook(owner=lesson, event="stop", payload=payload, memory_dir=str(folder))
    files = sorted(p.name for p in folder.glob("lesson-*.md"))
    assert len(files) >= 1
    index = (folder / "MEMORY.md").read_text()
    assert "Keep this line." in index and "<!-- almanac:lessons:start -->" in index and files[0] in index
    (folder / files[0]).unlink()
    agent_hooks.run_hook(owner=lesson, event="stop", payload={**payload, "session_id": "s2"}, memory_dir=str(folder))
    assert not (folder / files[0]).exists()
    assert files[0] not in (folder / "MEMORY.md").read_text()
    assert (folder / "MEMORY.md").read_text().count("almanac:lessons:start") == 1


def test_setup_writes_hooks_and_mcp_json_idempotently_keeping_other_entries(user, tmp_path, capsys):
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"model": "x", "hooks": {"PreToolUse": [mine]}}))
    args = ["chats", "setup", "--user", "alice", "--project-dir", str(project), "--url", "http://127.0.0.1:8765",
            "--token", "alm_test"]  # fmt: skip
    call_command(*args)
    first = (project / ".claude" / "settings.json").read_text()
    call_command(*args)
    assert "unchanged" in capsys.readouterr().out
    assert (project / ".claude" / "settings.json").read_text() == first
    data = json.loads(first)
    assert data["model"] == "x" and data["hooks"]["PreToolUse"][0] == mine
    assert set(data["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact", "SessionEnd"}
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert "ALMANAC_URL=http://127.0.0.1:8765" in command and "ALMANAC_TOKEN=alm_test" in command
    assert command.endswith("hook_client.py user-prompt-submit")
    mcp = json.loads((project / ".mcp.json").read_text())["mcpServers"]["almanac"]
    assert mcp == {"type": "http", "url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": "Bearer alm_test"}}
    assert "mcpServers" not in data


def test_setup_for_the_user_prints_claude_mcp_add_and_the_codex_section(user, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    call_command("chats", "setup", "--user", "alice", "--scope", "user", "--token", "alm_u", "--codex")
    out = capsys.readouterr().out
    assert "claude mcp add --transport http --scope user almanac http://127.0.0.1:8000/mcp" in out
    assert "'Authorization: Bearer alm_u'" in out
    assert "[mcp_servers.almanac]" in out and "ALMANAC_HOME" in out
    assert (tmp_path / ".claude" / "settings.json").exists()
