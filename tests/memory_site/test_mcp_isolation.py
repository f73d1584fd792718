"""Two users, one MCP server: B's token (Streamable HTTP) and B's stdio server read and write nothing of A's,
through every tool, resource and prompt the server lists, including A's hit ids, A's dates and A's project
folder. The cases come from the server's own lists: a tool added without a case here fails the test."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.models import Fact
from ledger.services import layers
from memory_site import mcp
from screen.services.store import EventDraft, create_event
from tests.factories import EpisodeFactory, FactFactory, UtteranceFactory
from tests.memory_site.mcp_clients import over_http, over_stdio

pytestmark = pytest.mark.django_db(transaction=True)

MARK = "zephyrine"  # in every row of A's: what B searches for
# Words of A's rows that B never sends: none may come back to B.
ALICES = ("orchid", "greenhouse", "cuttings", "repotting", "flowered", "humidity", "watered")
DAY = datetime(2026, 11, 24, 10, tzinfo=UTC)
FOLDER = "/home/alice/plants"


@pytest.fixture
def alice_memory(user):
    fact = FactFactory(owner=user, content=f"Alice grows {MARK} orchids in the greenhouse")
    layers.pin_fact(owner=user, fact=fact, salience=0.9, pinned_by="test")
    FactFactory(owner=user, content=f"Alice might sell {MARK} cuttings", status="pending_review")
    EpisodeFactory(owner=user, title=f"Repotting the {MARK} orchids", summary=f"{MARK} repotting", started_at=DAY)
    UtteranceFactory(owner=user, text=f"The {MARK} orchid finally flowered", transcript__local_date=DAY.date(),
                     transcript__owner=user, transcript__source__owner=user, conversation__owner=user)  # fmt: skip
    store_session(owner=user, data=SessionIn(
        source_key="chat:claude-code", external_id="greenhouse-1", project=FOLDER, started_at=DAY,
        turns=[TurnIn(role="user", text=f"Log the {MARK} humidity readings", is_owner=True, at=DAY)]))  # fmt: skip
    create_event(owner=user, draft=EventDraft(key="m1", event_type="garden.watered", started_at=DAY,
                                              ended_at=DAY, title=f"Watered the {MARK} bed"))  # fmt: skip
    return user


def _a_ids(owner) -> list[str]:
    return [
        h["id"] for h in mcp.call_tool(owner, "search_hits", {"query": MARK, "limit": 20, "project": FOLDER})["hits"]
    ]


def _calls(a_ids: list[str]) -> dict[str, dict]:
    return {
        "recall": {"query": f"what about {MARK}", "scope": "all", "project": FOLDER},
        "search_memory": {"query": MARK, "project": FOLDER},
        "search_hits": {"query": MARK, "project": FOLDER},
        "expand_hits": {"ids": a_ids, "project": FOLDER},
        "remember": {"content": "Bob keeps a sourdough starter called Gus"},
        "transcript_day": {"date": DAY.date().isoformat(), "project": FOLDER},
        "transcript_search": {"query": MARK, "project": FOLDER},
        "review_queue": {},
        "lessons": {"query": MARK, "project": FOLDER},
        "events_timeline": {"date": DAY.date().isoformat()},
    }


def _exercise(a_ids: list[str]):
    async def run(client) -> dict:
        tools = {t.name for t in (await client.list_tools()).tools}
        calls = _calls(a_ids)
        out = {"tools": tools, "calls": set(calls), "answers": {}, "opened": None}
        for name, args in calls.items():
            result = await client.call_tool(name, args)
            out["answers"][name] = result.model_dump_json()
            if name == "expand_hits":
                out["opened"] = result.structured_content
        for resource in (await client.list_resources()).resources:
            out["answers"][str(resource.uri)] = (await client.read_resource(resource.uri)).model_dump_json()
        for prompt in (await client.list_prompts()).prompts:
            got = await client.get_prompt(prompt.name, {"topic": MARK})
            out["answers"][f"prompt:{prompt.name}"] = got.model_dump_json()
        return out

    return run


def _check(out: dict, alice, bob, a_ids: list[str]) -> None:
    assert out["calls"] == out["tools"]
    assert len(a_ids) >= 4  # A's own search finds A's fact, episode, transcript turn and chat turn
    assert len(out["answers"]) >= len(out["tools"]) + 3  # every tool, both resources, the prompt
    for name, answer in out["answers"].items():
        assert not [w for w in ALICES if w in answer.lower()], name
    assert out["opened"]["items"] == [] and out["opened"]["not_found"] == a_ids
    assert Fact.objects.owned_by(alice).count() == 2
    assert Fact.objects.owned_by(bob).get().content == "Bob keeps a sourdough starter called Gus"


def test_bobs_token_reads_and_writes_nothing_of_alices_over_streamable_http(alice_memory, other_user, live_server):
    a_ids = _a_ids(alice_memory)
    out = over_http(other_user, live_server, _exercise(a_ids), headers={"X-Almanac-Project": FOLDER})
    _check(out, alice_memory, other_user, a_ids)


@pytest.mark.slow
def test_bobs_stdio_server_reads_and_writes_nothing_of_alices(alice_memory, other_user):
    a_ids = _a_ids(alice_memory)
    out, _log = over_stdio("bob", _exercise(a_ids), extra_args=("--project", FOLDER))
    _check(out, alice_memory, other_user, a_ids)
