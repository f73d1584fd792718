"""``<private>`` spans sent through every chats entry point are found nowhere afterwards (issue 36, item 2): not
in any table (read through the models, so encrypted columns are decrypted, and raw, cache included), not in
the search index or embeddings, not in the logs, not in what the memory proxy sends upstream, not in what
recall returns. Through the real clients: the hook client with Claude Code's payloads on its stdin, the
``openai`` package against the proxy, HTTP for the ingest and conversation endpoints, the file importers on
files in the formats they read."""

from __future__ import annotations

import base64
import io
import json
import logging
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.apps import apps
from django.db import connection
from django.test import Client, override_settings

from accounts.services import create_token
from chats import tasks
from chats.agent_plugin import hook_client
from chats.models import AgentTranscript, ChatSession, PrivateSpanCount
from chats.services import distilling
from chats.services.imports import import_path
from ledger.recall import services as recall_services
from ledger.recall.providers import providers_for
from tests.support.openai_server import OpenAIImitation

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SECRET = "quokkazebra4417"  # one word, so a search index would hold it whole
SPAN = f"<private>the door code is {SECRET}</private>"
UNCLOSED = f"<PRIVATE>my {SECRET}plus home address follows"


def _claude_code_file(path: Path, session_id: str) -> None:
    records = [
        {"type": "user", "uuid": "u1", "sessionId": session_id, "cwd": "/home/dev/feed", "timestamp":
         "2026-11-02T09:00:00Z", "message": {"role": "user", "content": f"Fix the feed parser. {SPAN} Thanks."}},
        {"type": "assistant", "uuid": "a1", "sessionId": session_id, "timestamp": "2026-11-02T09:00:05Z",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "thinking", "thinking": f"They said {SPAN}"},
             {"type": "text", "text": "Running the tests now."},
             {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"echo '{SPAN}'"}}]}},
        {"type": "user", "uuid": "u2", "sessionId": session_id, "timestamp": "2026-11-02T09:00:09Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                  "content": f"printed {SPAN}"}]}},
        {"type": "user", "uuid": "u3", "sessionId": session_id, "timestamp": "2026-11-02T09:00:20Z",
         "message": {"role": "user", "content": f"{SPAN}"}},
        {"type": "user", "uuid": "u4", "sessionId": session_id, "timestamp": "2026-11-02T09:00:30Z",
         "message": {"role": "user", "content": f"Also keep the retry logic. {UNCLOSED}"}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _chatgpt_export(path: Path) -> None:
    node = lambda i, parent, role, text, children: {"id": i, "parent": parent, "children": children,  # noqa: E731
        "message": {"id": i, "author": {"role": role}, "create_time": 1760000000 + len(i),
                    "content": {"content_type": "text", "parts": [text]}}}  # fmt: skip
    conv = {"id": "c1", "title": f"Trip {SPAN}", "create_time": 1760000000, "current_node": "n2", "mapping": {
        "n1": node("n1", None, "user", f"Plan a trip to Porto. {SPAN}", ["n2"]),
        "n2": node("n2", "n1", "assistant", "Porto in May is lovely.", [])}}  # fmt: skip
    path.write_text(json.dumps([conv]))


def _hook(event: str, payload: dict, monkeypatch, capsys) -> str:
    hook_client.main([event], stdin=io.StringIO(json.dumps(payload)))
    out = capsys.readouterr()
    assert "almanac hook:" not in out.err, out.err
    return out.out


def _rows_holding(secret: str) -> list[str]:
    """Every model row (read through the model: encrypted fields decrypted) and every raw table value holding
    ``secret``; the database cache's pickled values are decoded first."""
    found = []
    for model in apps.get_models():
        fields = [f.attname for f in model._meta.concrete_fields]
        for row in model._base_manager.all():
            for name in fields:
                if secret in str(getattr(row, name)):
                    found.append(f"{model._meta.label}.{name}")
    with connection.cursor() as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        for (table,) in cur.fetchall():
            cur.execute(f'SELECT t::text FROM "{table}" t')
            found += [f"raw {table}" for (text,) in cur.fetchall() if secret in text]
        cur.execute("SELECT value FROM almanac_cache")
        found += ["cache" for (value,) in cur.fetchall() if secret.encode() in base64.b64decode(value)]
    return found


def test_a_private_span_is_found_nowhere_after_every_entry_point(user, live_server, tmp_path, monkeypatch, capsys,
                                                                  caplog, settings):  # fmt: skip
    import openai

    settings.ALMANAC_ENCRYPTION_KEY = [Fernet.generate_key().decode()]
    caplog.set_level(logging.DEBUG)
    token = create_token(owner=user, name="agents")[1]
    upstream = OpenAIImitation().start()
    upstream.chat_handler = lambda messages: f"Noted. {SPAN}"  # a model that repeats it back
    monkeypatch.setenv("ALMANAC_URL", live_server.url)
    monkeypatch.setenv("ALMANAC_TOKEN", token)
    monkeypatch.setenv("ALMANAC_HOOK_TIMEOUT", "20")
    monkeypatch.setenv("ALMANAC_HOOK_STATE_DIR", str(tmp_path / "state"))
    try:
        with override_settings(ALMANAC_PROXY_UPSTREAM_URL=upstream.base_url):
            # Hooks: the prompt, a tool call's input and output, the transcript (text, thinking, tool I/O).
            base = {"session_id": "s-priv", "cwd": "/home/dev/feed"}
            _hook("user-prompt-submit", {**base, "hook_event_name": "UserPromptSubmit",
                                         "prompt": f"Deploy it. {SPAN}"}, monkeypatch, capsys)  # fmt: skip
            _hook("post-tool-use", {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "x",
                                    "tool_input": {"command": f"echo {SPAN}"},
                                    "tool_response": {"stdout": SPAN}}, monkeypatch, capsys)  # fmt: skip
            transcript = tmp_path / "s-priv.jsonl"
            _claude_code_file(transcript, "s-priv")
            _hook("stop", {**base, "hook_event_name": "Stop", "transcript_path": str(transcript),
                           "stop_hook_active": False}, monkeypatch, capsys)  # fmt: skip
            for t in AgentTranscript.objects.all():
                tasks.import_agent_transcript(t.pk)
            # The memory proxy, through the official client.
            ai = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0, timeout=30)
            ai.chat.completions.create(model="m", messages=[
                {"role": "system", "content": f"Be brief. {SPAN}"},
                {"role": "user", "content": f"Where is the spare key? {SPAN}"}])  # fmt: skip
            # The ingest API and the conversation import endpoints.
            http = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
            r = http.post("/api/v1/memory/ingest", {"conversation_id": "i1", "flush": True, "turns": [
                {"user": f"I moved to Leeds last spring. {SPAN}", "assistant": f"Noted. {SPAN}"}]},
                content_type="application/json")  # fmt: skip
            assert r.status_code == 200 and r.json()["private_removed"] == 2
            conversation = {"external_id": "conv-1", "title": f"Call {SPAN}", "started_at": "2026-11-02T10:00:00Z",
                            "participants": [{"name": "Ana", "is_owner": True}, {"name": "Bo"}],
                            "turns": [{"speaker": "Ana", "text": f"I started running on Mondays. {SPAN}"},
                                      {"speaker": "Bo", "text": f"Nice! {UNCLOSED}"}]}  # fmt: skip
            assert http.post("/api/v1/chats/conversations", conversation,
                             content_type="application/json").status_code == 200  # fmt: skip
            line = json.dumps({**conversation, "external_id": "conv-2"})
            assert http.post("/api/v1/chats/conversations/jsonl", line,
                             content_type="application/x-ndjson").status_code == 200  # fmt: skip
            # The file importers: a Claude Code project folder and a ChatGPT export (CLI and upload).
            folder = tmp_path / "projects" / "-home-dev-feed"
            folder.mkdir(parents=True)
            _claude_code_file(folder / "s-file.jsonl", "s-file")
            assert import_path(owner=user, path=tmp_path / "projects").private_removed >= 5
            export = tmp_path / "conversations.json"
            _chatgpt_export(export)
            assert import_path(owner=user, path=export).private_removed == 2
            http.force_login(user)
            with export.open("rb") as fh:
                assert http.post("/chats/upload/", {"file": fh, "format": "openai"}).status_code == 200
        # Everything distilled, indexed and embedded as the workers would.
        for session in ChatSession.objects.filter(owner=user):
            distilling.distill_session(session=session)
        for provider in providers_for("all"):
            recall_services.embed_pending(owner=user, provider=provider)
        recall_services.index_anchors(owner=user)
    finally:
        upstream.stop()
    assert _rows_holding(SECRET) == []
    assert _rows_holding("door code is") == []  # nothing of the span's words, not only the marker
    assert SECRET not in caplog.text
    sent = json.dumps(upstream.chat_requests())
    assert sent.count("Where is the spare key?") == 1 and SECRET not in sent and "door code" not in sent
    block = recall_services.recall_context(owner=user, query=f"door code {SECRET}", feedback=False).block
    assert SECRET not in block and "door code" not in block
    counts = dict(PrivateSpanCount.objects.filter(owner=user).values_list("entry_point", "removed"))
    assert {"hooks", "proxy", "ingest", "conversations", "import"} <= {k for k, v in counts.items() if v > 0}
    kept = ChatSession.objects.get(owner=user, external_id__endswith=":s-priv")
    assert "Fix the feed parser. Thanks." in [t.text for t in kept.turns.all()]  # the rest of the message stays
