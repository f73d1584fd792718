"""A fact learned only in one project's sessions, and not about the person, is that project's knowledge: it stays
out of another project's context (the prompt hook, MCP recall and search), while facts about the person and facts
with evidence from anywhere else are shown everywhere (``chats.origins``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chats.models import ChatSession
from chats.origins import origins
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.services import ensure_entity
from memory_site import mcp
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db
SHOP, BLOG = "/home/dev/shop", "/home/dev/blog"
DAY = datetime(2026, 11, 24, 10, tzinfo=UTC)


def _session(user, folder: str, external_id: str) -> ChatSession:
    turns = [TurnIn(role="user", text="Let us look at the deploy settings together.", is_owner=True, at=DAY)]
    data = SessionIn(source_key="chat:claude-code", external_id=external_id, project=folder, turns=turns)
    return store_session(owner=user, data=data).session


def _from_chat(session: ChatSession, turn: int = 0):
    return EvidenceInFactory(source_type="chat", source_ref={"session": str(session.public_id), "turn": turn},
                             source_label=session.source_key)  # fmt: skip


@pytest.fixture
def learned(user):
    """Facts about Oskar (a colleague) learned in the blog's session, in the shop's, in both a blog session and a
    wearable day, and one about the person learned in the blog's session."""
    ensure_entity(owner=user, name="Oskar", kind="person")
    blog, shop = _session(user, BLOG, "blog-1"), _session(user, SHOP, "shop-1")
    about_oskar = {"subject": "third_party", "person": "Oskar"}
    return {
        "blog": FactFactory(owner=user, content="Oskar approves every blog deploy by hand", evidence=[_from_chat(blog)],
                            **about_oskar),
        "shop": FactFactory(owner=user, content="Oskar approves every shop deploy after the smoke tests",
                            evidence=[_from_chat(shop)], **about_oskar),
        "heard": FactFactory(owner=user, content="Oskar approves deploys only before noon",
                             evidence=[_from_chat(blog, 1), EvidenceInFactory()], **about_oskar),
        "mine": FactFactory(owner=user, content="I approve deploys together with Oskar on Fridays",
                            evidence=[_from_chat(blog, 2)]),
    }  # fmt: skip


def _prompt(api, cwd: str) -> str:
    r = api.post("/chats/hooks/user-prompt-submit", {"session_id": "now", "cwd": cwd,
                                                     "prompt": "Who approves the deploys, Oskar?"})  # fmt: skip
    assert r.status_code == 200, r.content
    return r.json()["output"]


def test_a_prompt_in_one_project_never_gets_facts_learned_only_in_another(user, api, learned):
    shop = _prompt(api, SHOP)
    assert "shop deploy" in shop and "before noon" in shop
    assert "blog deploy" not in shop
    blog = _prompt(api, BLOG)
    assert "blog deploy" in blog and "shop deploy" not in blog


def test_a_fact_about_the_person_belongs_to_no_project_wherever_it_was_learned(user, learned):
    cites = [f"fact:{learned[k].public_id}" for k in ("mine", "heard", "blog")]
    found = origins(user, cites)
    assert cites[0] not in found and cites[1] not in found  # about the person / evidence from a wearable too
    assert not found[cites[2]].visible_in(None)


def test_mcp_recall_and_search_leave_out_another_projects_facts(user, learned):
    recall = mcp.call_tool(user, "recall", {"query": "Who approves the deploys, Oskar?", "project": SHOP,
                                            "scope": "facts", "budget_tokens": 2000})  # fmt: skip
    assert "shop deploy" in recall["block"] and "before noon" in recall["block"]
    assert "blog deploy" not in recall["block"]
    found = mcp.call_tool(user, "search_hits", {"query": "Oskar approves deploy", "project": SHOP, "limit": 20})
    lines = " ".join(h["line"] for h in found["hits"])
    assert "shop deploy" in lines and "on Fridays" in lines and "blog deploy" not in lines
    opened = mcp.call_tool(user, "expand_hits", {"ids": [f"fact:{learned['blog'].public_id}"], "project": SHOP})
    assert opened["items"] == [] and opened["not_found"] == [f"fact:{learned['blog'].public_id}"]
    outside = mcp.call_tool(user, "search_hits", {"query": "Oskar approves deploy", "limit": 20})
    lines = " ".join(h["line"] for h in outside["hits"])
    assert "on Fridays" in lines and "before noon" in lines
    assert "shop deploy" not in lines and "blog deploy" not in lines


def test_a_fact_learned_in_a_session_of_no_project_is_shown_everywhere(user):
    general = _session(user, "", "general-1")
    fact = FactFactory(owner=user, content="Oskar prefers written deploy notes", subject="third_party",
                       person="Oskar", evidence=[_from_chat(general)])  # fmt: skip
    origin = origins(user, [f"fact:{fact.public_id}"])[f"fact:{fact.public_id}"]
    assert origin.projects == frozenset([None]) and origin.visible_in(None)


def test_mcp_recall_fills_a_small_budget_with_what_the_project_may_show(user, learned):
    """Another project's facts are left out before the block is cut to its budget, not after: they used to take
    the budget and leave the project's own fact out."""
    blog = _session(user, BLOG, "blog-2")
    for n in range(12):
        FactFactory(owner=user, content=f"Oskar approves the blog deploy of release {n} by hand, every time",
                    subject="third_party", person="Oskar", evidence=[_from_chat(blog, n)])  # fmt: skip
    recall = mcp.call_tool(user, "recall", {"query": "Who approves the deploys, Oskar?", "project": SHOP,
                                            "scope": "facts", "budget_tokens": 100})  # fmt: skip
    assert "blog deploy" not in recall["block"]
    assert "shop deploy" in recall["block"]
    assert recall["tokens"] <= 100
