"""``<private>…</private>`` through MCP: a secret inside a private span, sent in every text argument of every tool
and prompt over the official SDK client (stdio and Streamable HTTP), is found nowhere afterwards: not in any
table or search index, not in what recall embeds, not in the server's log at DEBUG, not in any answer. The spans
removed are counted in the answer, never logged."""

from __future__ import annotations

import base64
import json
import logging
import pickle

import pytest
from django.db import connection
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from chats.models import PrivateSpanCount
from ledger.models import Fact
from ledger.recall.providers import providers_for
from memory_site import mcp
from tests.ledger.test_forget import tables_containing
from tests.memory_site.mcp_clients import data, over_http, over_stdio

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "Quorvex 8841"
PRIVATE = f"<private>the gate code is {SECRET}</private>"
CLIENT_LOGGERS = ("mcp.client", "httpx", "httpcore")


async def _exercise(client) -> list:
    calls = [
        ("remember", {"content": f"Alice parks at the north garage {PRIVATE}", "quote": f"I park at the north garage. {PRIVATE}"}),
        ("recall", {"query": f"where does Alice park {PRIVATE}"}),
        ("search_memory", {"query": f"north garage {PRIVATE}"}),
        ("search_hits", {"query": f"north garage {PRIVATE}"}),
        ("transcript_search", {"query": f"garage {PRIVATE}"}),
        ("lessons", {"query": f"parking {PRIVATE}"}),
        ("expand_hits", {"ids": [f"fact:00000000-0000-0000-0000-000000000000{PRIVATE}"]}),
    ]
    answers = [(name, await client.call_tool(name, args)) for name, args in calls]
    prompt = await client.get_prompt("what_do_you_know", {"topic": f"the garage {PRIVATE}"})
    return [*answers, ("prompt", prompt)]


def _stored_elsewhere() -> list[str]:
    """Decoded django-q2 task payloads and cache entries (both stored pickled, out of a text scan's sight)."""
    out = [repr(SignedPackage.loads(task.payload)) for task in OrmQ.objects.all()]
    with connection.cursor() as cur:
        cur.execute("SELECT value FROM almanac_cache")
        out += [repr(pickle.loads(base64.b64decode(value))) for (value,) in cur.fetchall()]
    return out


def _embedded_documents(user) -> list[str]:
    return [text for p in providers_for("all") for _ref, text in p.documents(p.queryset(user))]


def _check(answers: list, user, log: str) -> None:
    assert len(answers) == 8
    for name, answer in answers:
        assert SECRET not in answer.model_dump_json(), name
    remembered = data(answers[0][1])
    assert remembered["private_spans_removed"] == 2 and remembered["status"] == "pending_review"
    fact = Fact.objects.get(public_id=remembered["id"])
    assert fact.content == "Alice parks at the north garage"
    assert fact.evidence.get().quote == "I park at the north garage."
    assert data(answers[2][1])["private_spans_removed"] == 1
    recalled = mcp.call_tool(user, "recall", {"query": "north garage", "scope": "facts"})
    assert "north garage" in recalled["block"] and SECRET not in json.dumps(recalled)
    for word in SECRET.split():
        assert tables_containing(word) == [], word
        assert not any(word in text for text in _stored_elsewhere()), word
        assert not any(word in text for text in _embedded_documents(user)), word
        assert word not in log
    assert "private span" in log  # counted in the log too, as a number
    counted = PrivateSpanCount.objects.get(owner=user, entry_point=PrivateSpanCount.EntryPoint.MCP)
    assert counted.removed == 9  # remember's content and quote, six other tools, the prompt's topic


@pytest.mark.slow
def test_a_private_span_sent_through_the_stdio_client_is_found_nowhere(user):
    answers, log = over_stdio("alice", _exercise, env={"ALMANAC_LOG_LEVEL": "DEBUG"})
    _check(answers, user, log)


def test_a_private_span_sent_over_streamable_http_is_found_nowhere(user, live_server, caplog):
    with caplog.at_level(logging.DEBUG):
        answers = over_http(user, live_server, _exercise)
    # The client runs in this process too and logs what it sends: only the server's records count.
    server = [r.getMessage() for r in caplog.records if not r.name.startswith(CLIENT_LOGGERS)]
    _check(answers, user, "\n".join(server))
