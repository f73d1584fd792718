"""Progressive disclosure through the official SDK client (stdio and Streamable HTTP): ``search_hits`` answers one
short cited line per hit with what opening it costs; ``expand_hits`` opens chosen ids into full evidence (a fact
with its quotes, a summary, a turn with the turns around it) costing what the hit said; ids are the owner's own:
another person's token gets "not found" for them, as for ids that never existed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.recall.lexical import count_tokens
from ledger.services import layers
from tests.factories import EpisodeFactory, EvidenceInFactory, FactFactory
from tests.memory_site.mcp_clients import data, error_text, over_http, over_stdio

pytestmark = pytest.mark.django_db(transaction=True)

DAY = datetime(2026, 11, 24, 9, tzinfo=UTC)
LONG = ("The kiln at the community studio fires on Thursdays; " * 12).strip()


@pytest.fixture
def memory(user):
    quote = "I glaze everything with the celadon from the kiln shop, it never crawls."
    fact = FactFactory(owner=user, content="Alice glazes her kiln pieces with celadon",
                       evidence=[EvidenceInFactory(source_label="chat:claude-code", quote=quote)])  # fmt: skip
    layers.pin_fact(owner=user, fact=fact, salience=0.9, pinned_by="test")
    EpisodeFactory(owner=user, title="Kiln day", summary="Loaded the kiln with twelve celadon bowls", started_at=DAY)
    turns = [TurnIn(role="user" if i % 2 == 0 else "assistant", text=text, is_owner=i % 2 == 0,
                    at=DAY + timedelta(minutes=i))
             for i, text in enumerate(["Morning!", "Hi, what are we doing?", LONG, "Noted the kiln schedule.",
                                       "Also buy wax resist", "Added to the list", "Thanks", "Anytime"])]  # fmt: skip
    store_session(owner=user, data=SessionIn(source_key="chat:ingest", external_id="studio", title="Studio plans",
                                             started_at=DAY, turns=turns))  # fmt: skip
    return user


async def _exercise(client) -> dict:
    hits = data(await client.call_tool("search_hits", {"query": "kiln", "limit": 10}))
    full = data(await client.call_tool("search_memory", {"query": "kiln", "limit": 10}))
    by_kind = {h["kind"]: h["id"] for h in hits["hits"]}
    broken = ["fact:not-an-id", "chat:" + "-" * 36 + "#1", "episode:" + "0" * 36]
    opened = data(await client.call_tool("expand_hits", {"ids": [*by_kind.values(), *broken]}))
    return {"hits": hits, "full": full, "opened": opened}


def _check(out: dict) -> None:
    hits = out["hits"]["hits"]
    assert {h["kind"] for h in hits} >= {"fact", "episode", "chat"}
    for hit in hits:
        assert set(hit) == {"id", "kind", "line", "when", "tokens"} and hit["tokens"] > 0
        assert "\n" not in hit["line"] and len(hit["line"]) <= 160
    assert out["hits"]["tokens_to_open_all"] == sum(h["tokens"] for h in hits)
    long_turn = next(h for h in hits if h["kind"] == "chat" and h["line"].startswith("user: The kiln"))
    assert long_turn["line"].endswith("…")
    assert count_tokens(json.dumps(out["hits"])) < count_tokens(json.dumps(out["full"]))
    opened = {item["id"]: item for item in out["opened"]["items"]}
    assert out["opened"]["not_found"] == ["fact:not-an-id", "chat:" + "-" * 36 + "#1", "episode:" + "0" * 36]
    cost = {h["id"]: h["tokens"] for h in hits}
    for key, item in opened.items():
        assert count_tokens(json.dumps(item, ensure_ascii=False)) == cost[key], key
    fact = next(i for i in opened.values() if i["kind"] == "fact")
    assert fact["pinned"] and fact["status"] == "accepted" and "never crawls" in fact["evidence"][0]["quote"]
    chat = next(i for i in opened.values() if i["kind"] == "chat")
    assert chat["session"]["title"] == "Studio plans" and len(chat["turns"]) >= 4
    assert sum(t["hit"] for t in chat["turns"]) == 1
    episode = next(i for i in opened.values() if i["kind"] == "episode")
    assert episode["summary"] == "Loaded the kiln with twelve celadon bowls"


@pytest.mark.slow
def test_hits_then_evidence_through_the_sdk_stdio_client(memory):
    out, _log = over_stdio("alice", _exercise)
    _check(out)


def test_hits_then_evidence_over_streamable_http_and_ids_stay_the_owners(memory, other_user, live_server):
    out = over_http(memory, live_server, _exercise)
    _check(out)
    ids = [h["id"] for h in out["hits"]["hits"]]

    async def bob(client):
        return await client.call_tool("expand_hits", {"ids": ids})

    refused = over_http(other_user, live_server, bob)
    assert error_text(refused).startswith("Not found: ") and refused.structured_content["items"] == []
    assert refused.structured_content["not_found"] == ids
