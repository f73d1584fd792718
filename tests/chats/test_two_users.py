"""Two users (issue 36): nothing user B sends through any chats entry point (hooks, the memory proxy, ingest, the
conversation endpoints, file imports) reads or writes anything of user A's, including by naming A's files or
A's ids. A's rows are compared before and after; B's answers never hold A's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.test import Client, override_settings

from accounts.services import create_token
from chats.models import AgentProject, AgentToolEvent, AgentTranscript, ChatSession, ChatTurn, Lesson
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from tests.support.openai_server import OpenAIImitation

pytestmark = pytest.mark.django_db
MARKER = "zqxalicesecret"
CWD = "/home/alice/shop"


def _alice_memory(user, tmp_path: Path) -> Path:
    """A's session with a lesson, in project /home/alice/shop, and A's transcript file on disk."""
    turns = [
        TurnIn(role="user", text=f"Install the {MARKER} package for the shop importer."),
        TurnIn(role="assistant", text="Running npm install.",
               tool_calls=[{"id": "t1", "name": "Bash", "input": {"command": "npm install x"}}]),
        TurnIn(role="user", text=f"No, this shop installs Python packages with pip, never npm ({MARKER})."),
    ]  # fmt: skip
    stored = store_session(owner=user, data=SessionIn(source_key="chat:claude-code", external_id="tag:a-sess",
                                                      project=CWD, turns=turns))  # fmt: skip
    stored.session.refresh_from_db()
    assert distill_session(session=stored.session) == "distilled"
    assert Lesson.objects.filter(owner=user, status="active").exists()
    transcript = tmp_path / "alice" / ".claude" / "projects" / "-home-alice-shop" / "a-sess.jsonl"
    transcript.parent.mkdir(parents=True)
    record = {"type": "user", "uuid": "u1", "sessionId": "a-sess", "cwd": CWD,
              "message": {"role": "user", "content": f"My {MARKER} bank PIN is in the notes."}}  # fmt: skip
    transcript.write_text(json.dumps(record) + "\n")
    return transcript


def _snapshot(user) -> dict:
    sessions = ChatSession.objects.filter(owner=user)
    return {
        "sessions": sorted((s.external_id, s.turn_count, s.content_hash) for s in sessions),
        "turns": sorted((t.session_id, t.index, t.text) for t in ChatTurn.objects.filter(owner=user)),
        "lessons": sorted((x.key, x.text, x.status) for x in Lesson.objects.filter(owner=user)),
        "projects": sorted(AgentProject.objects.filter(owner=user).values_list("key", flat=True)),
        "transcripts": AgentTranscript.objects.filter(owner=user).count(),
    }


def test_user_b_never_reaches_user_a_through_any_chats_entry_point(user, other_user, tmp_path):
    transcript = _alice_memory(user, tmp_path)
    before = _snapshot(user)
    b = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(owner=other_user, name='b')[1]}")
    answers: list[str] = []

    def post(path: str, body) -> dict:
        r = b.post(path, json.dumps(body) if not isinstance(body, str) else body, content_type="application/json")
        answers.append(r.content.decode())
        assert r.status_code < 500, r.content
        return r.json() if r.headers["Content-Type"].startswith("application/json") else {}

    # Hooks: A's session id, A's project folder, A's transcript path (the old server read it; a path is not data).
    hook = {"session_id": "a-sess", "cwd": CWD, "transcript_path": str(transcript), "agent_transcript_path":
            str(transcript), "hook_event_name": "Stop", "stop_hook_active": False,
            "almanac_project": {"root": CWD, "repository": ""}}  # fmt: skip
    for event in ("session-start", "user-prompt-submit", "pre-tool-use", "stop", "subagent-stop", "pre-compact",
                  "session-end", "post-tool-use"):  # fmt: skip
        post(f"/api/v1/chats/hooks/{event}", {**hook, "prompt": f"install the {MARKER} package with npm",
                                              "tool_name": "Bash", "tool_input": {"command": "npm install"},
                                              "source": "compact"})  # fmt: skip
    post("/api/v1/chats/hooks/stop", {**hook, "almanac_transcript": {"offset": 0, "end": 10, "lines": [
        json.dumps({"type": "user", "sessionId": "a-sess", "message": {"role": "user", "content": "B's own words"}})
    ]}})  # fmt: skip
    assert not (transcript.parent / "memory").exists()  # no folder made beside A's file
    # Ingest and status: A's conversation ids.
    post("/api/v1/memory/ingest", {"conversation_id": "tag:a-sess", "turns": [{"user": "B writes here"}]})
    answers.append(b.get("/api/v1/memory/ingest/tag:a-sess").content.decode())
    # Conversation endpoints.
    conv = {
        "external_id": "tag:a-sess",
        "started_at": "2026-11-02T10:00:00Z",
        "participants": [{"name": "Bo", "is_owner": True}],
        "turns": [{"speaker": "Bo", "text": "hello"}],
    }
    post("/api/v1/chats/conversations", conv)
    answers += [b.get(p).content.decode() for p in ("/api/v1/chats/sessions", "/api/v1/chats/lessons")]
    # The memory proxy: A's exact history (an identity match would have appended to A's conversation).
    upstream = OpenAIImitation().start()
    upstream.chat_handler = lambda messages: "ok"
    try:
        with override_settings(ALMANAC_PROXY_UPSTREAM_URL=upstream.base_url):
            history = {"model": "m", "messages": [{"role": "user", "content": f"Install the {MARKER} package."}]}
            post("/v1/chat/completions", history)
            r = b.post("/v1/chat/completions", json.dumps(history), content_type="application/json",
                       HTTP_X_ALMANAC_CONVERSATION="tag:a-sess")  # fmt: skip
            answers.append(r.content.decode())
        sent = upstream.chat_requests()
        assert len(sent) == 2 and all(r["messages"] == history["messages"] for r in sent)  # nothing of A's injected
    finally:
        upstream.stop()
    # An upload by B of a file that reuses A's session id is B's own session.
    upload = tmp_path / "b-upload.jsonl"
    upload.write_text(transcript.read_text().replace(MARKER, "bees"))
    browser = Client()
    browser.force_login(other_user)
    with upload.open("rb") as fh:
        assert browser.post("/chats/upload/", {"file": fh, "format": "claude-code"}).status_code == 200
    assert _snapshot(user) == before
    assert all(MARKER not in a for a in answers), [a[:200] for a in answers if MARKER in a]
    b_sessions = ChatSession.objects.filter(owner=other_user)
    assert b_sessions.exists() and not ChatSession.objects.filter(owner=user, external_id__startswith="proxy-")
    assert not AgentToolEvent.objects.filter(owner=user).exists()
    assert AgentTranscript.objects.get(owner=other_user, agent_session_id="a-sess").received_bytes == 10
