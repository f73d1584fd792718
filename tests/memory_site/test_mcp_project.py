"""Project scope in MCP, through the official SDK client (stdio with ``--project``, Streamable HTTP with the
``X-Almanac-Project`` header, and the tools' own ``project`` argument): one project's lessons, session turns and
session summaries never reach another project's context; what belongs to no project is seen everywhere; a call
that names no project sees only that."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from chats.models import Lesson
from chats.projects import ProjectRef, resolve_project
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.services import layers
from tests.factories import EpisodeFactory, FactFactory
from tests.memory_site.mcp_clients import data, over_http, over_stdio

pytestmark = pytest.mark.django_db(transaction=True)

DAY = datetime(2026, 11, 24, 10, tzinfo=UTC)
SHOP, BLOG = "/home/dev/shop", "/home/dev/blog"
WORDS = {  # what each scope's session, summary and lesson say; every one mentions the webhook
    "shop": ("retry the payment webhook with backoff", "Shop: payment webhook retries fixed", "Shop webhook tests need the stripe fixture"),
    "blog": ("the comment webhook posts to the moderation queue", "Blog: comment webhook moderation", "Blog webhook secrets live in the vault file"),
    "none": ("which webhook service do you recommend", "General: comparing webhook services", "Webhook payloads are logged without bodies"),
}  # fmt: skip


def _scope(user, name: str, folder: str | None) -> None:
    turn, summary, lesson = WORDS[name]
    data_in = SessionIn(source_key="chat:claude-code", external_id=f"{name}-1", project=folder or "", started_at=DAY,
                        turns=[TurnIn(role="user", text=f"Please {turn}", is_owner=True, at=DAY)])  # fmt: skip
    session = store_session(owner=user, data=data_in).session
    EpisodeFactory(owner=user, key=f"chat:{session.public_id}", title=summary, summary=summary, started_at=DAY)
    EpisodeFactory(owner=user, key=f"chat:{session.public_id}:moment-1", title=summary, summary=summary,
                   started_at=timezone.now())  # today's digest  # fmt: skip
    fact = FactFactory(owner=user, content=lesson, tags=["lesson", "correction"], predicate="lesson")
    layers.pin_fact(owner=user, fact=fact, salience=0.8, pinned_by="test")
    Lesson.objects.create(owner=user, key=name, kind="correction", text=lesson, fact_public_id=fact.public_id,
                          agent_project=session.agent_project, last_seen_at=timezone.now())  # fmt: skip


@pytest.fixture
def projects(user):
    resolve_project(owner=user, ref=ProjectRef(cwd=SHOP, root=SHOP, repository="git@github.com:acme/shop.git"))
    for name, folder in (("shop", SHOP), ("blog", BLOG), ("none", None)):
        _scope(user, name, folder)
    return user


def _said(payload) -> set[str]:
    """Which scopes' words appear in a tool's answer."""
    text = str(payload)
    return {name for name, words in WORDS.items() if any(w in text for w in words)}


async def _exercise(client) -> dict:
    async def call(name, **args):
        return data(await client.call_tool(name, args))

    hits = await call("search_hits", query="webhook", limit=20)
    return {
        "lessons": await call("lessons"),
        "lessons_blog": await call("lessons", project=BLOG),
        "search": await call("search_memory", query="webhook", limit=20),
        "hits": hits,
        "opened": await call("expand_hits", ids=[h["id"] for h in hits["hits"]]),
        "recall": await call("recall", query="webhook", scope="all", budget_tokens=4000),
        "transcripts": await call("transcript_search", query="webhook"),
        "day": await call("transcript_day", date="2026-11-24"),
        "memory_file": (await client.read_resource("almanac://memory")).contents[0].text,
        "today": (await client.read_resource("almanac://digest/today")).contents[0].text,
    }


def _check_in_shop(out: dict) -> None:
    assert out["lessons"]["project"] == "shop"
    assert _said(out["lessons"]) == {"shop", "none"}
    assert _said(out["lessons_blog"]) == {"blog", "none"}
    for key in ("search", "hits", "opened", "recall", "transcripts", "memory_file", "today"):
        assert _said(out[key]) == {"shop", "none"}, key
    assert len(out["hits"]["hits"]) >= 6  # a session turn, a summary and a lesson of each visible scope
    assert _said(out["day"]["chats"]) == {"shop", "none"} and out["day"]["other_projects_sessions"] == 1


async def _without_project(client) -> dict:
    return {
        "lessons": data(await client.call_tool("lessons", {})),
        "search": data(await client.call_tool("search_memory", {"query": "webhook", "limit": 20})),
        "memory_file": (await client.read_resource("almanac://memory")).contents[0].text,
        "today": (await client.read_resource("almanac://digest/today")).contents[0].text,
    }


@pytest.mark.slow
def test_project_scope_through_the_sdk_stdio_client(projects):
    out, _log = over_stdio("alice", _exercise, extra_args=("--project", f"{SHOP}/api"))
    _check_in_shop(out)


def test_project_scope_over_streamable_http(projects, live_server):
    _check_in_shop(over_http(projects, live_server, _exercise, headers={"X-Almanac-Project": f"{SHOP}/api"}))
    elsewhere = over_http(projects, live_server, _without_project)
    for key, payload in elsewhere.items():
        assert _said(payload) == {"none"}, key


def test_the_plugins_url_names_the_project_as_claude_code_expands_it(projects, live_server):
    # The plugin and `chats setup` connect to /mcp?project=${PWD:-}: Claude Code puts the folder it was started in
    # there, percent-encoding what a URL cannot hold (a header could not carry a non-Latin-1 folder name at all).
    out = over_http(projects, live_server, _without_project, path=f"/mcp?project={SHOP}/api")
    assert _said(out["lessons"]) == {"shop", "none"} and out["lessons"]["project"] == "shop"
    empty = over_http(projects, live_server, _without_project, path="/mcp?project=")  # PWD unset
    assert _said(empty["lessons"]) == {"none"}


@pytest.mark.parametrize(
    ("query", "headers", "project"),
    [
        ("project=/home/dev/%E9%A1%B9%E7%9B%AE/c++", {}, "/home/dev/项目/c++"),  # as Node's URL encodes it
        ("project=/home/dev/my%20shop&x=1", {}, "/home/dev/my shop"),
        ("project=/home/dev/blog", {"HTTP_X_ALMANAC_PROJECT": "/home/dev/shop"}, "/home/dev/shop"),  # header wins
        ("", {}, ""),
    ],
)
def test_the_connections_project_is_read_from_the_header_else_the_url(query, headers, project):
    from django.test import RequestFactory

    from memory_site.mcp_http import project_of

    assert project_of(RequestFactory().post(f"/mcp?{query}", **headers)) == project


def test_a_repository_remote_or_a_project_name_names_the_project_too(projects):
    from memory_site import mcp

    for named in ("https://github.com/ACME/shop", "shop"):
        out = mcp.call_tool(projects, "lessons", {"project": named})
        assert out["project"] == "shop" and _said(out) == {"shop", "none"}, named
    unknown = mcp.call_tool(projects, "lessons", {"project": "/home/dev/elsewhere"})
    assert unknown["project"] is None and _said(unknown) == {"none"}
