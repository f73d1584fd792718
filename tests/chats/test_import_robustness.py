"""Importers on the inputs that broke them: bad lines, wrong formats, id collisions, roles, parsed outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from chats.episodes import command_shape, digest, find_moments
from chats.importers import FORMATS, FileReport, UnreadableFile
from chats.importers.base import split_ide_context, split_typed
from chats.models import ChatSession, ChatTurn, Lesson
from chats.services import distilling
from chats.services.imports import import_path
from chats.text import TurnIn


def _jsonl(path: Path, rows) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def _cc(uuid, kind, content, sid="s-1", **extra):
    role = "user" if kind == "user" else "assistant"
    message = {"role": role, "content": content} if role == "user" else {"id": f"m-{uuid}", "role": role,
                                                                         "content": content}  # fmt: skip
    return {"type": kind, "uuid": uuid, "sessionId": sid, "timestamp": f"2026-03-04T10:00:{len(uuid):02d}Z",
            "cwd": "/srv/orchard", "message": message, **extra}  # fmt: skip


def test_a_string_message_is_skipped_and_counted_not_a_crash(tmp_path):
    path = _jsonl(tmp_path / "a.jsonl", [
        {"type": "user", "uuid": "u0", "sessionId": "s-1", "message": "error"},
        _cc("u1", "user", "Rename the greenhouse sensor module"),
        "{not json",
        "[1, 2]",
    ])  # fmt: skip
    report = FileReport()
    sessions = FORMATS["claude-code"].parse(path, report)
    assert [t.text for t in sessions[0].turns] == ["Rename the greenhouse sensor module"]
    assert report.skipped == {"user record whose message is not an object": 1, "not JSON": 1,
                              "a JSON list, not an object": 1}  # fmt: skip


@pytest.mark.django_db
def test_unreadable_file_names_line_and_column_and_exits_non_zero(user, tmp_path):
    bad = tmp_path / "conversations.json"
    bad.write_text('[{"uuid": "c1",\n  "chat_messages": [}]')
    with pytest.raises(UnreadableFile) as exc:
        FORMATS["anthropic"].parse(bad)
    assert (exc.value.line, exc.value.column) == (2, 21)
    with pytest.raises(CommandError):
        call_command("chats", "import", str(bad), "--format", "anthropic")


@pytest.mark.django_db
def test_wrong_format_gets_a_hint_and_a_non_zero_exit(user, tmp_path, capsys):
    path = _jsonl(tmp_path / "rollout-x.jsonl", [
        {"timestamp": "2026-03-04T10:00:00Z", "type": "session_meta", "payload": {"id": "t1", "cwd": "/srv"}},
        {"timestamp": "2026-03-04T10:00:01Z", "type": "event_msg", "payload": {"type": "user_message",
                                                                             "message": "Trim the hedge script"}},
    ])  # fmt: skip
    with pytest.raises(CommandError):
        call_command("chats", "import", str(path), "--format", "claude-code")
    assert "looks like a codex file (try --format codex)" in capsys.readouterr().err
    call_command("chats", "import", str(path))  # detected without --format
    assert ChatSession.objects.get(owner=user).source_key == "chat:codex"


@pytest.mark.django_db
def test_two_files_with_the_same_conversation_id_keep_their_own_turns(user, tmp_path):
    for name, words in (("one", "Draft the quarterly seed order"), ("two", "Book the tractor service")):
        (tmp_path / name).mkdir()
        conv = [{"uuid": "same-id", "name": name, "chat_messages": [
            {"uuid": "m1", "sender": "human", "text": words, "created_at": "2026-03-04T10:00:00Z"}]}]  # fmt: skip
        (tmp_path / name / "conversations.json").write_text(json.dumps(conv))
    import_path(owner=user, path=tmp_path, fmt="anthropic", distill_now=False)
    texts = sorted(ChatTurn.objects.filter(owner=user).values_list("text", flat=True))
    assert texts == ["Book the tractor service", "Draft the quarterly seed order"]
    assert ChatSession.objects.filter(owner=user).count() == 2


def test_queued_prompts_typed_while_the_agent_worked_are_kept(tmp_path):
    path = _jsonl(tmp_path / "s.jsonl", [
        _cc("u1", "user", "Index the orchard photos"),
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s-1", "timestamp": "2026-03-04T10:00:03Z",
         "content": "also skip the blurry ones"},
        _cc("a1", "assistant", [{"type": "text", "text": "Indexing now."}]),
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s-1", "timestamp": "2026-03-04T10:00:05Z",
         "content": "<task-notification>done</task-notification>"},
    ])  # fmt: skip
    turns = FORMATS["claude-code"].parse(path)[0].turns
    assert [t.text for t in turns if t.role == "user"] == ["Index the orchard photos", "also skip the blurry ones"]


def test_typed_words_are_split_from_pasted_code_quotes_and_harness_blocks():
    typed, extras = split_typed(
        "<system-reminder>be brief</system-reminder>Why does this loop never end?\n"
        "```js\nwhile (true) { tick() }\n```\n> Acme Pumps offers a variety of irrigation solutions."
    )
    assert typed == "Why does this loop never end?"
    assert [e["kind"] for e in extras] == ["system_reminder", "pasted", "quoted"]
    request, context = split_ide_context("# Context from my IDE setup:\n## Open tabs:\n- a.rs\n\n## My request for "
                                         "Codex:\nMake the parser faster")  # fmt: skip
    assert request == "Make the parser faster" and context[0]["kind"] == "ide_context"


def test_codex_exit_codes_are_read_from_the_structured_output(tmp_path):
    out_ok = json.dumps({"output": "error: none found\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}})
    rows = [
        {"timestamp": "2026-03-04T10:00:00Z", "type": "event_msg", "payload": {"type": "user_message",
         "message": "# Context from my IDE setup:\n## Open tabs:\n- x.py\n## My request for Codex:\nCount the rows"}},
        {"timestamp": "2026-03-04T10:00:01Z", "type": "response_item", "payload": {"type": "function_call",
         "name": "shell", "arguments": json.dumps({"command": ["grep", "-c", "error", "log.txt"]}), "call_id": "c1"}},
        {"timestamp": "2026-03-04T10:00:02Z", "type": "response_item", "payload": {"type": "function_call_output",
         "call_id": "c1", "output": out_ok}},
        {"timestamp": "2026-03-04T10:00:03Z", "type": "response_item", "payload": {"type": "function_call",
         "name": "shell", "arguments": json.dumps({"command": ["cargo", "build"]}), "call_id": "c2"}},
        {"timestamp": "2026-03-04T10:00:04Z", "type": "response_item", "payload": {"type": "function_call_output",
         "call_id": "c2", "output": "Exit code: 101\nWall time: 2 seconds\nOutput:\nerror[E0308]: mismatched"}},
        {"timestamp": "2026-03-04T10:00:05Z", "type": "event_msg", "payload": {"type": "agent_message",
                                                                             "message": "Build fails."}},
    ]  # fmt: skip
    turns = FORMATS["codex"].parse(_jsonl(tmp_path / "rollout-1.jsonl", rows))[0].turns
    assert turns[0].text == "Count the rows" and turns[0].extras[0]["kind"] == "ide_context"
    calls = turns[1].tool_calls
    assert [(c.get("exit_code"), c["is_error"]) for c in calls] == [(0, False), (101, True)]


def test_claude_ai_thinking_is_not_the_reply_and_chatgpt_tool_messages_are_calls(tmp_path):
    claude = [{"uuid": "c", "chat_messages": [
        {"uuid": "1", "sender": "human", "text": "Which crop rotates best after beans?", "created_at": "2026-03-04"},
        {"uuid": "2", "sender": "assistant", "text": "Let me weigh nitrogen first. Brassicas do well.",
         "content": [{"type": "thinking", "thinking": "Let me weigh nitrogen first."},
                     {"type": "text", "text": "Brassicas do well."}], "created_at": "2026-03-04"}]}]  # fmt: skip
    turns = FORMATS["anthropic"].parse(_write(tmp_path / "c.json", claude))[0].turns
    assert turns[1].text == "Brassicas do well." and turns[1].extras[0]["kind"] == "thinking"
    mapping = {
        "r": {"id": "r", "parent": None, "children": ["u"], "message": None},
        "u": {"id": "u", "parent": "r", "children": ["t"], "message": {"author": {"role": "user"},
              "content": {"content_type": "text", "parts": ["Chart the rainfall"]}, "create_time": 1.0}},
        "t": {"id": "t", "parent": "u", "children": ["o"], "message": {"author": {"role": "assistant"},
              "recipient": "python", "content": {"content_type": "code", "text": "plot(rain)"}, "create_time": 2.0}},
        "o": {"id": "o", "parent": "t", "children": ["a"], "message": {"author": {"role": "tool", "name": "python"},
              "content": {"content_type": "execution_output", "text": "<chart>"}, "create_time": 3.0}},
        "a": {"id": "a", "parent": "o", "children": [], "message": {"author": {"role": "assistant"},
              "content": {"content_type": "text", "parts": ["Here is the chart."]}, "create_time": 4.0}},
    }  # fmt: skip
    turns = FORMATS["openai"].parse(_write(tmp_path / "o.json", [{"id": "x", "mapping": mapping}]))[0].turns
    assert [(t.role, t.text) for t in turns] == [("user", "Chart the rainfall"), ("assistant", "Here is the chart.")]
    assert turns[1].tool_calls[0]["name"] == "python" and turns[1].tool_calls[0]["result"] == "<chart>"


def _write(path: Path, data) -> Path:
    path.write_text(json.dumps(data))
    return path


def _turn(i, role, text="", calls=None):
    t = TurnIn(role=role, text=text, tool_calls=calls or [])
    t.index = i
    return t


def test_a_question_with_instead_of_is_not_a_correction():
    turns = [_turn(0, "user", "Load the CSV"), _turn(1, "assistant", "Loaded it with csv.reader."),
             _turn(2, "user", "What's the benefit of using pandas instead of csv.reader?")]  # fmt: skip
    assert [m for m in find_moments(turns) if m.kind == "correction"] == []
    turns[2].text = "No, use the standard library only here."
    assert [m.lesson for m in find_moments(turns) if m.kind == "correction"] == ["Use the standard library only here."]


def test_failures_are_keyed_by_project_and_cause_and_only_when_the_agent_got_past_them():
    def fail(cmd, result, code=1):
        return {"name": "Bash", "input": {"command": cmd}, "result": result, "is_error": True, "exit_code": code}

    def ok(cmd):
        return {"name": "Bash", "input": {"command": cmd}, "result": "ok", "is_error": False}

    turns = [_turn(0, "assistant", "", [fail("cd /x && npm run lint", "Exit code 2"),
                                        fail("pytest -q", "ModuleNotFoundError: No module named 'yaml'"),
                                        ok("pytest -q -p no:cacheprovider"),
                                        {"name": "TaskOutput", "input": {}, "result": "", "is_error": True,
                                         "interrupted": True}])]  # fmt: skip
    errors = [m for m in find_moments(turns, project="/srv/orchard") if m.kind == "error"]
    # npm's failure states no cause and nothing got past it; pytest's was got past with other arguments.
    assert [m.signature for m in errors] == ["orchard|modulenotfounderror: no module named Q"]
    assert command_shape({"input": {"command": ["bash", "-lc", "git push origin main"]}}) == "git push"


def test_gist_says_what_was_done_not_just_perfect():
    turns = [_turn(0, "user", "Fix the flaky irrigation timer test"),
             _turn(1, "assistant", "", [{"name": "Edit", "input": {"file_path": "/srv/timer.py"}, "result": "ok"},
                                        {"name": "Bash", "input": {"command": "pytest tests/test_timer.py"},
                                         "result": "1 passed"}]),
             _turn(2, "assistant", "The timer now uses a monotonic clock so the test is stable. Perfect!")]  # fmt: skip
    gist = digest(turns).gist
    assert "edited timer.py" in gist and "ran `pytest`" in gist and "monotonic clock" in gist


@pytest.mark.django_db
def test_no_distill_sessions_are_distilled_later_by_the_sweeper(user, tmp_path):
    path = _jsonl(tmp_path / "s.jsonl", [_cc("u1", "user", "Sort the seed catalogue by germination time please"),
                                         _cc("a1", "assistant", [{"type": "text", "text": "Sorted the catalogue "
                                             "by germination days, shortest first."}])])  # fmt: skip
    report = import_path(owner=user, path=path, fmt="claude-code", distill_now=False)
    assert report.outcomes == {"queued": 1}
    done = distilling.drain_due()
    assert [outcome for _, outcome in done] == ["distilled"]
    assert ChatSession.objects.get(owner=user).status == ChatSession.Status.DISTILLED
    assert Lesson.objects.filter(owner=user).count() == 0


@pytest.mark.django_db
def test_the_in_process_hook_ignores_a_json_list_on_stdin(user, monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("[]"))
    call_command("chats", "hook", "user-prompt-submit", "--user", "alice")
    assert capsys.readouterr().out == ""


@pytest.mark.django_db
def test_upload_of_an_unreadable_file_shows_the_line_and_column(client, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(user)
    bad = SimpleUploadedFile("conversations.json", b'[{"uuid": "c1",\n "chat_messages": [}]')
    r = client.post("/chats/upload/", {"format": "anthropic", "file": bad}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and b":2:20:" in r.content
