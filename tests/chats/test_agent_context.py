"""Context where the agent needs it, scoped to its project: the session-start block (pinned facts, this
project's lessons, the last session here), recalled memories for a prompt only when recall selects something,
and times in the owner's zone, labelled (issue 36, items 8 and 12 and "project scope")."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from accounts import services as account_services
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.recall import services as recall_services

pytestmark = pytest.mark.django_db
SHOP, BLOG = "/home/dev/shop", "/home/dev/blog"


def _learn(user, project: str, external_id: str, correction: str, *, at=None) -> None:
    turns = [
        TurnIn(role="user", text="Add the export button to the settings page and wire it to the API.", at=at),
        TurnIn(role="assistant", text="Added the button with an inline fetch call.", at=at,
               tool_calls=[{"id": "e1", "name": "Edit", "input": {"file_path": "settings.js"}}]),
        TurnIn(role="user", text=correction, at=at),
    ]  # fmt: skip
    stored = store_session(
        owner=user,
        data=SessionIn(
            source_key="chat:claude-code",
            external_id=external_id,
            project=project,
            turns=turns,
            title=f"work in {project}",
        ),
    )
    stored.session.refresh_from_db()
    assert distill_session(session=stored.session) == "distilled"


def _hook(api, event: str, **payload) -> str:
    r = api.post(f"/chats/hooks/{event}", {"session_id": "now", **payload})
    assert r.status_code == 200, r.content
    return r.json()["output"]


def test_session_start_shows_this_projects_lessons_and_last_session_and_never_anothers(user, api):
    _learn(user, SHOP, "t:s1", "No, the shop's buttons always go through the shared apiClient module.")
    _learn(user, BLOG, "t:s2", "No, blog posts are never edited by scripts; only the editor touches them.")
    shop = json.loads(_hook(api, "session-start", cwd=f"{SHOP}/web", source="startup"))
    context = shop["hookSpecificOutput"]["additionalContext"]
    assert "apiClient" in context and "work in /home/dev/shop" in context
    assert "blog posts" not in context and "work in /home/dev/blog" not in context
    blog = json.loads(_hook(api, "session-start", cwd=BLOG, source="startup", session_id="other"))
    assert "apiClient" not in blog["hookSpecificOutput"]["additionalContext"]


def test_lessons_come_again_after_compaction_but_not_on_resume(user, api):
    _learn(user, SHOP, "t:s1", "No, the shop's buttons always go through the shared apiClient module.")
    assert "apiClient" in _hook(api, "session-start", cwd=SHOP, source="startup")
    assert "apiClient" not in _hook(api, "session-start", cwd=SHOP, source="resume")
    assert "apiClient" in _hook(api, "session-start", cwd=SHOP, source="compact")
    assert "apiClient" in _hook(api, "session-start", cwd=SHOP, source="clear")


def test_a_prompt_gets_memories_only_when_recall_selects_them_and_never_another_projects_turns(user, api):
    from ledger.services import ensure_entity
    from tests.factories import FactFactory

    ensure_entity(owner=user, name="Oskar", kind="person")
    FactFactory(owner=user, content="Oskar reviews every payment change in the shop", status="accepted")
    _learn(user, BLOG, "t:s2", "No, Oskar never sees blog drafts before they are published.")
    out = _hook(api, "user-prompt-submit", cwd=SHOP, prompt="Who should review what Oskar asked for?")
    assert "payment change" in out and "blog drafts" not in out
    assert _hook(api, "user-prompt-submit", cwd=SHOP, prompt="Rename the header component, please.") == ""


def test_recall_block_times_are_in_the_owners_zone_and_labelled(user):
    account_services.update_settings(user=user, timezone_name="Europe/Berlin")
    at = datetime(2026, 12, 6, 22, 51, tzinfo=UTC)
    turns = [TurnIn(role="user", text="I booked the ferry to Helsinki for the conference.", at=at),
             TurnIn(role="assistant", text="Noted, the ferry to Helsinki.", at=at)]  # fmt: skip
    store_session(owner=user, data=SessionIn(source_key="chat:ingest", external_id="c1", turns=turns))
    block = recall_services.recall_context(owner=user, query="What did I say about the ferry to Helsinki?",
                                           scope="transcript", feedback=False).block  # fmt: skip
    assert "[2026-12-06 23:51 CET]" in block and "22:51" not in block
