"""Importers on realistic fixtures: Claude Code, Codex CLI, OpenAI / Anthropic / Gemini exports."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from chats.importers import FORMATS
from chats.models import ChatSession, ChatTurn, Lesson
from chats.services.imports import import_path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "chats"


def test_claude_code_keeps_subagents_apart_skips_meta_commands_and_merges_streamed_records():
    files = FORMATS["claude-code"].files(FIXTURES / "claude-code")
    # The session first, then its subagent's transcripts (the new layout under it, the old one beside it).
    assert [f.name for f in files] == ["3f1c9e2a-5b7d-4e21-9a0c-1d2e3f4a5b6c.jsonl", "agent-ab12cd34.jsonl",
                                       "agent-1a2b3c4d.jsonl"]  # fmt: skip
    (subagent,) = FORMATS["claude-code"].parse(files[1])
    assert subagent.parent_external_id == "3f1c9e2a-5b7d-4e21-9a0c-1d2e3f4a5b6c"
    assert subagent.turns[0].role == "system" and not subagent.turns[0].is_owner
    (session,) = FORMATS["claude-code"].parse(files[0])
    assert session.project == "/home/dev/shop"
    assert session.title == "Add healthcheck endpoint"
    users = [t.text for t in session.turns if t.role == "user"]
    assert users == [
        "Add a /health endpoint to the Flask app that returns the database status and the git commit.",
        "No, this project uses pip with requirements.txt, never npm for Python packages.",
    ]
    first_agent = next(t for t in session.turns if t.role == "assistant")
    assert first_agent.text == "I'll add the route and install the dependencies first."
    (call,) = first_agent.tool_calls
    assert call["name"] == "Bash" and call["is_error"] and "rejected" in call["result"]
    assert not any("sidechain" in t.text for t in session.turns)
    agent_turns = [t for t in session.turns if t.role == "assistant"]
    assert len(agent_turns) == 4  # msg_01A, msg_01C, msg_01E, msg_01G (one turn per API message)
    assert "ModuleNotFoundError" in agent_turns[1].tool_calls[0]["result"]


def test_codex_takes_what_the_person_typed_and_attaches_tool_output():
    (session,) = FORMATS["codex"].parse(next((FIXTURES / "codex").rglob("*.jsonl")))
    assert session.external_id == "0193a7c4-1111-7222-8333-444455556666"
    assert session.project == "/home/dev/api"
    users = [t.text for t in session.turns if t.role == "user"]
    assert users[0].startswith("Run the migrations") and len(users) == 2
    assert not any("environment_context" in t.text for t in session.turns)
    call = session.turns[1].tool_calls[0]
    assert call["input"] == {"command": ["alembic", "current"]} and call["is_error"]
    assert "command not found" in call["result"]


def test_chatgpt_export_follows_the_visible_branch():
    (session,) = FORMATS["openai"].parse(FIXTURES / "chatgpt-conversations.json")
    texts = [t.text for t in session.turns]
    assert len(texts) == 3 and "edited branch" not in " ".join(texts)
    assert session.title == "Sourdough starter"
    assert session.turns[1].speaker == "gpt-4o"


def test_claude_ai_export_sorts_messages_and_reads_content_blocks():
    (session,) = FORMATS["anthropic"].parse(FIXTURES / "claude-conversations.json")
    assert session.turns[0].role == "user" and "Lisbon" in session.turns[0].text
    assert session.turns[1].role == "assistant"


def test_gemini_takeout_groups_by_app_url_and_skips_non_prompts():
    (session,) = FORMATS["gemini"].parse(FIXTURES / "gemini-myactivity.json")
    assert [t.role for t in session.turns] == ["user", "assistant", "user", "assistant"]
    assert session.turns[0].text == "My machine is a Gaggia Classic from 2019."
    assert "—" in session.turns[1].text and "<p>" not in session.turns[1].text


@pytest.mark.parametrize(
    ("fmt", "name", "temp"),
    [
        ("openai", "openai-messages.json", "4"),
        ("anthropic", "anthropic-messages.json", "-4"),
        ("gemini", "gemini-contents.json", "4"),
    ],
)
def test_plain_api_message_bodies_pair_tool_results_with_calls(fmt, name, temp):
    (session,) = FORMATS[fmt].parse(FIXTURES / name)
    calls = [c for t in session.turns for c in t.tool_calls]
    assert calls[0]["name"] == "get_weather" and calls[0]["input"] == {"city": "Oslo"}
    assert f'"temp_c": {temp}' in calls[0]["result"].replace('":', '": ').replace(":  ", ": ")
    assert not any(t.text == "Be brief." for t in session.turns)


@pytest.mark.django_db
def test_import_is_idempotent_by_file_and_modification_time(user, tmp_path):
    root = tmp_path / "projects"
    shutil.copytree(FIXTURES / "claude-code", root)
    first = import_path(owner=user, path=root, fmt="claude-code")
    # The session and its subagent's transcript, kept in both layouts (beside it and under subagents/).
    assert (first.files_seen, first.sessions, first.files_skipped) == (3, 3, 0)
    turns = ChatTurn.objects.filter(owner=user).count()
    again = import_path(owner=user, path=root, fmt="claude-code")
    assert again.files_skipped == 3 and again.sessions == 0
    file = next(root.rglob("3f1c*.jsonl"))
    os.utime(file, (file.stat().st_atime, file.stat().st_mtime + 10))
    touched = import_path(owner=user, path=root, fmt="claude-code")
    assert touched.sessions == 1 and touched.turns_added == 0
    assert ChatTurn.objects.filter(owner=user).count() == turns
    parent = ChatSession.objects.get(owner=user, parent__isnull=True)
    (subagent,) = ChatSession.objects.filter(owner=user, parent=parent)
    assert subagent.external_id == f"{parent.external_id}:agent-ab12cd34"
    assert not subagent.turns.filter(is_owner=True).exists()  # the parent agent's prompt is not the person's


@pytest.mark.django_db
def test_imported_correction_becomes_a_lesson(user):
    import_path(owner=user, path=FIXTURES / "claude-code", fmt="claude-code")
    session = ChatSession.objects.get(owner=user, parent__isnull=True)
    assert session.outcome == "distilled"
    texts = list(Lesson.objects.filter(owner=user, status="active").values_list("text", flat=True))
    assert any("pip with requirements.txt" in t for t in texts), texts
    # A bare refusal ("STOP what you are doing") carries no reason: it teaches nothing by itself.
    assert not any("refused" in t for t in texts), texts


@pytest.mark.django_db
def test_manage_py_chats_import_every_format(user, capsys):
    for fmt, path in [
        ("codex", "codex"),
        ("openai", "chatgpt-conversations.json"),
        ("anthropic", "claude-conversations.json"),
        ("gemini", "gemini-myactivity.json"),
    ]:
        call_command("chats", "import", str(FIXTURES / path), "--format", fmt, "--user", "alice")
    out = capsys.readouterr().out
    assert out.count("1 session") >= 4
    assert set(ChatSession.objects.filter(owner=user).values_list("source_key", flat=True)) == {
        "chat:codex",
        "chat:openai",
        "chat:anthropic",
        "chat:gemini",
    }
