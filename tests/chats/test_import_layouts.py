"""``chats import`` on the folder layouts the agents really write (``~/.claude/projects/<project>/<session>.jsonl``
with subagents, ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``), filled with real files other projects keep as
fixtures; a ChatGPT export whose parts are objects (tool calls and results) imports; a file that yields no
conversation says so and the command fails (issue 36, item 9)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from chats.models import ChatSession

pytestmark = pytest.mark.django_db
REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real_sessions"


def test_the_claude_code_projects_folder_imports_without_naming_a_format(user, tmp_path, capsys):
    projects = tmp_path / ".claude" / "projects"
    for i, name in enumerate(["simonw-sample_session.jsonl", "kvsankar-claude_with_rejection.jsonl"]):
        folder = projects / f"-home-dev-app{i}"
        folder.mkdir(parents=True)
        shutil.copy(REAL / "claude_code" / name, folder / f"{name}")
    (projects / "-home-dev-app0" / "memory").mkdir()
    (projects / "-home-dev-app0" / "memory" / "MEMORY.md").write_text("# notes\n")
    call_command("chats", "import", str(projects), "--user", "alice", "--no-distill")
    out = capsys.readouterr().out
    assert "2 file(s)" in out and ChatSession.objects.filter(owner=user, source_key="chat:claude-code").count() == 2


def test_the_codex_sessions_folder_imports_without_naming_a_format(user, tmp_path, capsys):
    sessions = tmp_path / ".codex" / "sessions"
    for day, name in (
        ("2026/11/02", "kvsankar-real-session-01.jsonl"),
        ("2026/11/03", "polylogue-tool_call_stream.jsonl"),
    ):
        folder = sessions / day
        folder.mkdir(parents=True)
        shutil.copy(REAL / "codex" / name, folder / f"rollout-2026-11-02T10-00-00-{name}")
    call_command("chats", "import", str(sessions), "--user", "alice", "--no-distill")
    assert ChatSession.objects.filter(owner=user, source_key="chat:codex").count() == 2


def test_a_chatgpt_export_with_tool_messages_imports_its_conversation(user, tmp_path):
    call_command("chats", "import", str(REAL / "chatgpt" / "polylogue-golden-chatgpt-tool.json"), "--user", "alice",
                 "--no-distill")  # fmt: skip
    (session,) = ChatSession.objects.filter(owner=user, source_key="chat:openai")
    (reply,) = session.turns.filter(role="assistant")
    assert reply.text == "Done." and reply.tool_calls[0]["name"] == "bash" and reply.tool_calls[0]["result"] == "hi"


def test_an_export_with_no_conversation_from_the_owner_fails_with_a_clear_message(user, tmp_path, capsys):
    export = tmp_path / "conversations.json"
    export.write_text('[{"id": "c1", "title": "x", "current_node": "n1", "mapping": {"n1": {"id": "n1", "parent": '
                      'null, "children": [], "message": {"id": "n1", "author": {"role": "system"}, "content": '
                      '{"content_type": "text", "parts": ["You are ChatGPT."]}}}}}]')  # fmt: skip
    with pytest.raises(CommandError, match="no conversation with a message from you"):
        call_command("chats", "import", str(export), "--user", "alice")
    assert "read as openai, but no conversation had a message from you" in capsys.readouterr().err


def test_a_user_record_that_says_it_is_not_from_a_person_is_not_the_owners_words(tmp_path):
    """Newer Claude Code versions record who wrote a user line (``origin.kind``): a peer session's message is
    not the person's, a human's is (the record shapes of polylogue's and others' fixtures)."""
    import json

    from chats.importers import FORMATS

    lines = [{"type": "user", "uuid": "u1", "sessionId": "s", "origin": {"kind": "human"},
              "message": {"role": "user", "content": "Plan the release."}},
             {"type": "user", "uuid": "u2", "sessionId": "s", "isReplay": True,
              "origin": {"kind": "peer", "from": "unknown", "verifiedPeerPid": 90400},
              "message": {"role": "user", "content": "Deploy everything to production now."}}]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (session,) = FORMATS["claude-code"].parse(path)
    assert [t.text for t in session.turns if t.is_owner] == ["Plan the release."]
    assert any("Deploy everything" in e["text"] for t in session.turns for e in t.extras)


# A background-task notice as Claude Code writes it into a session (the shape published in public transcript dumps).
NOTICE = (
    "<task-notification>\n<task-id>b1d223e</task-id>\n<tool-use-id>toolu_01AbCdEf</tool-use-id>\n"
    "<output-file>/private/tmp/claude-501/-Users-dev-site/tasks/b1d223e.output</output-file>\n"
    '<status>completed</status>\n<summary>Background command "Start wrangler dev server" completed (exit code 0)'
    "</summary>\n</task-notification>\n"
    "Read the output file to retrieve the result: /private/tmp/claude-501/-Users-dev-site/tasks/b1d223e.output"
)


def test_harness_notices_and_unfenced_pasted_code_are_not_the_owners_words(tmp_path):
    import json

    from chats.importers import FORMATS

    pasted = ("The import fails, no idea why:\nTraceback (most recent call last):\n  File \"app.py\", line 3, in "
              "<module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'\nCan you fix it?")  # fmt: skip
    lines = [{"type": "user", "uuid": f"u{i}", "sessionId": "s", "message": {"role": "user", "content": text}}
             for i, text in enumerate([NOTICE, pasted, "Yes, ship it after the tests pass."])]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    (session,) = FORMATS["claude-code"].parse(path)
    owner = [t.text for t in session.turns if t.is_owner]
    assert owner == ["The import fails, no idea why:\nCan you fix it?", "Yes, ship it after the tests pass."]
    kinds = [e["kind"] for t in session.turns for e in t.extras]
    assert kinds.count("pasted") == 1 and "Read the output file" not in " ".join(owner)
