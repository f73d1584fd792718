"""Claude Code hooks end to end: the stdlib client (``chats/hook_client.py``) run as Claude Code runs it, with
Claude Code's documented payloads on stdin, against a running server, a stopped one and a hung one. The client
reads the transcript on the agent's side and sends its new lines; the server never opens a path."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from accounts.services import create_token
from chats import tasks
from chats.models import AgentToolEvent, AgentTranscript, ChatSession, TranscriptChunk
from chats.services import agent_setup
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
CLIENT = Path(agent_setup.CLIENT)
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_sessions" / "claude_code"
SESSION = "3f1c9e2a-0000-4000-8000-000000000001"
BASE = {"session_id": SESSION, "cwd": "/home/dev/feed", "permission_mode": "default"}


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


def run_client(
    event: str, payload, url: str, token: str = "x", timeout: float | None = None, state: Path | None = None
):
    """(completed process, seconds) of the client run as Claude Code runs it. A running test server gets a
    generous timeout (its first requests import lazily on a shared machine); failing open uses the default."""
    body = payload if isinstance(payload, str) else json.dumps(payload)
    env = {"PATH": os.environ.get("PATH", ""), "ALMANAC_URL": url, "ALMANAC_TOKEN": token}
    if state is not None:
        env["ALMANAC_HOOK_STATE_DIR"] = str(state)
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
    assert "pip and requirements.txt" not in again.stdout  # already shown in this session
    elsewhere = {**payload, "session_id": "third", "cwd": "/home/dev/other-project"}
    assert (
        "pip and requirements" not in run_client("user-prompt-submit", elsewhere, live_server.url, token, 10)[0].stdout
    )


def test_session_start_is_context_json_and_comes_again_after_compaction(live_server, token):
    start = {**BASE, "hook_event_name": "SessionStart", "source": "startup"}
    out, _ = run_client("session-start", start, live_server.url, token, 10)
    data = json.loads(out.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context = data["hookSpecificOutput"]["additionalContext"]
    assert "pip" in context and "Last session in this project" in context
    resumed, _ = run_client("session-start", {**start, "source": "resume"}, live_server.url, token, 10)
    assert "pip and requirements" not in resumed.stdout  # the transcript still holds it
    compacted, _ = run_client("session-start", {**start, "source": "compact"}, live_server.url, token, 10)
    assert "pip" in json.loads(compacted.stdout)["hookSpecificOutput"]["additionalContext"]


def test_stop_sends_the_new_transcript_lines_and_the_server_never_reads_the_file(live_server, token, tmp_path):
    transcript = tmp_path / "agent-machine" / f"{SESSION}.jsonl"
    transcript.parent.mkdir()
    # A real session file (simonw/claude-code-transcripts' fixture) under this session's id, as Claude Code writes it.
    lines = (REAL / "simonw-sample_session.jsonl").read_text().replace("test-session-id", SESSION)
    lines = lines.splitlines(keepends=True)
    transcript.write_text("".join(lines[:4]))
    state = tmp_path / "state"
    payload = {**BASE, "transcript_path": str(transcript), "hook_event_name": "Stop", "stop_hook_active": False}
    out, _ = run_client("stop", payload, live_server.url, token, 10, state)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    (stored,) = AgentTranscript.objects.filter(agent_session_id=SESSION)
    assert stored.received_bytes == len("".join(lines[:4]).encode())
    transcript.write_text("".join(lines))  # the agent goes on; a half-written last line is not sent
    with transcript.open("a") as fh:
        fh.write('{"type":"user","message":{"role":"user","content":"half')
    run_client("stop", payload, live_server.url, token, 10, state)
    starts = list(TranscriptChunk.objects.filter(transcript=stored).values_list("start", "end"))
    assert starts == [(0, stored.received_bytes), (stored.received_bytes, len("".join(lines).encode()))]
    shutil.rmtree(transcript.parent)  # the server works from what was sent, not from a shared disk
    stored.refresh_from_db()
    assert "stored 1 session(s)" in tasks.import_agent_transcript(stored.pk)
    session = ChatSession.objects.get(source_key="chat:claude-code", external_id__endswith=f":{SESSION}")
    assert session.turns.filter(role="user", text="Create a hello world function").exists()
    assert session.turns.filter(role="assistant").count() >= 2


def test_post_tool_use_and_subagent_stop_record_what_they_carry(live_server, token, tmp_path):
    post = {**BASE, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_9",
            "tool_input": {"command": "pytest -q"}, "tool_response": {"stdout": "3 passed", "stderr": ""}}  # fmt: skip
    assert run_client("post-tool-use", post, live_server.url, token, 10)[0].returncode == 0
    (event,) = AgentToolEvent.objects.filter(agent_session_id=SESSION)
    assert event.tool_name == "Bash" and event.call["response"] == "3 passed"
    parent = tmp_path / f"{SESSION}.jsonl"
    parent.write_text((REAL / "simonw-sample_session.jsonl").read_text().replace("test-session-id", SESSION))
    sub = tmp_path / SESSION / "subagents" / "agent-5e6f.jsonl"
    sub.parent.mkdir(parents=True)
    record = {"type": "user", "isSidechain": True, "sessionId": SESSION, "agentId": "5e6f", "uuid": "s1",
              "message": {"role": "user", "content": "Find where the feed URL is read."}}  # fmt: skip
    reply = {
        "type": "assistant",
        "isSidechain": True,
        "sessionId": SESSION,
        "agentId": "5e6f",
        "uuid": "s2",
        "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "In feed/config.py."}]},
    }
    sub.write_text(json.dumps(record) + "\n" + json.dumps(reply) + "\n")
    stop = {**BASE, "transcript_path": str(parent), "hook_event_name": "SubagentStop", "stop_hook_active": False,
            "agent_id": "5e6f", "agent_type": "Explore", "agent_transcript_path": str(sub)}  # fmt: skip
    assert run_client("subagent-stop", stop, live_server.url, token, 10, tmp_path / "state")[0].returncode == 0
    for t in AgentTranscript.objects.all():
        tasks.import_agent_transcript(t.pk)
    child = ChatSession.objects.get(external_id__endswith=":agent-5e6f")
    assert not child.turns.filter(is_owner=True).exists()  # the parent agent's prompt is not the person's
    run_client("stop", {**stop, "hook_event_name": "Stop"}, live_server.url, token, 10, tmp_path / "state")
    for t in AgentTranscript.objects.filter(agent_id=""):
        tasks.import_agent_transcript(t.pk)
    child.refresh_from_db()
    assert child.parent is not None and child.parent.external_id.endswith(f":{SESSION}")
    assert not AgentToolEvent.objects.filter(agent_session_id=SESSION).exists()  # the transcript holds them now


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


def test_a_hung_server_fails_open_in_under_a_second(tmp_path):
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
    transcript = tmp_path / "t.jsonl"
    transcript.write_text((REAL / "simonw-sample_session.jsonl").read_text())
    try:
        for event in agent_setup.EVENTS.values():
            payload = {**BASE, "prompt": "x", "transcript_path": str(transcript)}
            out, took = run_client(event[0], payload, f"http://127.0.0.1:{listener.getsockname()[1]}",
                                   state=tmp_path / "state")  # fmt: skip
            assert out.returncode == 0 and out.stdout == "" and "slow" in out.stderr
            assert took < 1.0, (event, took)
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def test_a_client_that_lost_its_state_resumes_where_the_server_is(live_server, token, tmp_path):
    transcript = tmp_path / f"{SESSION}.jsonl"
    lines = (REAL / "simonw-sample_session.jsonl").read_text().replace("test-session-id", SESSION)
    lines = lines.splitlines(keepends=True)
    transcript.write_text("".join(lines[:4]))
    payload = {**BASE, "transcript_path": str(transcript), "hook_event_name": "Stop", "stop_hook_active": False}
    run_client("stop", payload, live_server.url, token, 10, tmp_path / "state")
    shutil.rmtree(tmp_path / "state")  # the agent's machine lost the client's state
    transcript.write_text("".join(lines))
    out, _ = run_client("stop", payload, live_server.url, token, 10, tmp_path / "state")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    (stored,) = AgentTranscript.objects.filter(agent_session_id=SESSION)
    spans = list(TranscriptChunk.objects.filter(transcript=stored).values_list("start", "end"))
    head = len("".join(lines[:4]).encode())
    assert spans == [(0, head), (head, len("".join(lines).encode()))]  # resent from the server's offset, once
