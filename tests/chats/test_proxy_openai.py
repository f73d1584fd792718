"""The memory proxy driven by the official ``openai`` package against a local imitation upstream: plain and
streaming answers, upstream 429 (Retry-After kept), 500 (body kept), a hung upstream (504 in the configured
time) and a stream cut mid-way (recorded with what arrived, marked incomplete); only what the recall gate
selected is injected."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import override_settings

from accounts import services
from chats.models import ChatSession, ChatTurn
from tests.factories import FactFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
REPLY = "Bring the copper watering can to the allotment."


class Upstream:
    """An OpenAI-compatible upstream whose behaviour the test sets: ok | 429 | 500 | hang | cut."""

    def __init__(self):
        self.mode, self.bodies, self.gets, self.reply = "ok", [], [], REPLY
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                upstream.bodies.append(body)
                upstream.handle(self, body)

            def do_GET(self):
                upstream.gets.append((self.path, self.headers.get("Authorization")))
                upstream._json(
                    self,
                    200,
                    {
                        "object": "list",
                        "data": [{"id": "m-small", "object": "model", "created": 1, "owned_by": "local"}],
                    },
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _json(self, h, status, data, headers=()):
        raw = json.dumps(data).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(raw)))
        for k, v in headers:
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(raw)

    def handle(self, h, body):
        if self.mode == "429":
            return self._json(h, 429, {"error": {"message": "slow down", "type": "rate_limit_error"}},
                              [("Retry-After", "7")])  # fmt: skip
        if self.mode == "500":
            return self._json(h, 500, {"error": {"message": "model exploded", "type": "server_error"}})
        if self.mode == "hang":
            time.sleep(3)
            return None
        if not body.get("stream"):
            return self._json(h, 200, {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant", "content": self.reply}}]})  # fmt: skip
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        words = REPLY.split(" ")
        for i, w in enumerate(words):
            if self.mode == "cut" and i == 3:
                h.wfile.flush()
                h.connection.shutdown(2)  # the upstream dies mid-answer
                return None
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                     "choices": [{"index": 0, "delta": {"content": w + (" " if i < len(words) - 1 else "")},
                                  "finish_reason": None}]}  # fmt: skip
            h.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            h.wfile.flush()
        h.wfile.write(b"data: [DONE]\n\n")
        return None


@pytest.fixture
def upstream():
    server = Upstream()
    with override_settings(ALMANAC_PROXY_UPSTREAM_URL=server.url, ALMANAC_PROXY_READ_TIMEOUT=1.0,
                           ALMANAC_PROXY_CONNECT_TIMEOUT=1.0, ALMANAC_PROXY_UPSTREAM_KEY="sk-upstream"):  # fmt: skip
        yield server
    server.server.shutdown()


@pytest.fixture
def ai(user, live_server):
    import openai

    token = services.create_token(owner=user, name="proxy")[1]
    return openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0, timeout=20)


MESSAGES = [{"role": "user", "content": "What should I bring to the allotment tomorrow?"}]


def test_plain_answer_and_nothing_injected_when_recall_selects_nothing(ai, upstream, user):
    answer = ai.chat.completions.create(model="m", messages=MESSAGES)
    assert answer.choices[0].message.content == REPLY
    assert upstream.bodies[-1]["messages"] == MESSAGES  # no identity block, no system message added
    assert "Alice" not in json.dumps(upstream.bodies[-1])
    session = ChatSession.objects.get(owner=user, source_key="chat:proxy")
    assert [t.text for t in session.turns.order_by("index")] == [MESSAGES[0]["content"], REPLY]


def test_only_what_recall_selected_is_injected(ai, upstream, user):
    from ledger.services import ensure_entity

    ensure_entity(owner=user, name="Marcus", kind="person")
    FactFactory(owner=user, content="Marcus waters the allotment with a copper can", status="accepted")
    ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "What does Marcus water it with?"}])
    system = upstream.bodies[-1]["messages"][0]
    assert system["role"] == "system" and "copper can" in system["content"]
    assert "display_name" not in system["content"] and "Alice Example" not in system["content"]


def test_streaming_answer_is_passed_through_and_recorded(ai, upstream, user):
    stream = ai.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == REPLY
    turn = ChatTurn.objects.get(owner=user, role="assistant")
    assert turn.text == REPLY and turn.extras == []


def test_upstream_429_keeps_status_retry_after_and_body(ai, upstream):
    import openai

    upstream.mode = "429"
    with pytest.raises(openai.RateLimitError) as exc:
        ai.chat.completions.create(model="m", messages=MESSAGES)
    assert exc.value.response.headers["retry-after"] == "7"
    assert exc.value.body["message"] == "slow down"
    with pytest.raises(openai.RateLimitError) as exc:
        ai.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert exc.value.response.headers["retry-after"] == "7"


def test_upstream_500_keeps_its_body_and_records_nothing(ai, upstream, user):
    import openai

    upstream.mode = "500"
    with pytest.raises(openai.InternalServerError) as exc:
        ai.chat.completions.create(model="m", messages=MESSAGES)
    assert exc.value.status_code == 500 and exc.value.body["message"] == "model exploded"
    assert not ChatSession.objects.filter(owner=user).exists()


def test_a_hung_upstream_is_a_504_within_the_configured_read_timeout(ai, upstream):
    import openai

    upstream.mode = "hang"
    for stream in (False, True):
        start = time.monotonic()
        with pytest.raises(openai.APIStatusError) as exc:
            ai.chat.completions.create(model="m", messages=MESSAGES, stream=stream)
        assert exc.value.status_code == 504 and "in time" in exc.value.message
        assert time.monotonic() - start < 2.9  # the upstream would have answered after 3 s


def test_a_cut_stream_is_recorded_with_what_arrived_and_marked_incomplete(ai, upstream, user):
    import openai

    upstream.mode = "cut"
    received = []
    with pytest.raises(openai.APIError):
        for chunk in ai.chat.completions.create(model="m", messages=MESSAGES, stream=True):
            received.append(chunk.choices[0].delta.content or "")
    assert "".join(received) == "Bring the copper "
    turn = ChatTurn.objects.get(owner=user, role="assistant")
    assert turn.text.strip() == "Bring the copper" and turn.extras[0]["kind"] == "incomplete"


def test_ingest_status_finds_proxy_conversations(ai, upstream, user, client):
    ai.chat.completions.create(model="m", messages=MESSAGES, extra_headers={"X-Almanac-Conversation": "allot-1"})
    token = services.create_token(owner=user, name="status")[1]
    r = client.get("/api/v1/memory/ingest/allot-1", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert r.status_code == 200 and r.json()["turns_total"] == 2


# --- Conversation identity: never two chats merged, nothing stored replaced (issue 36, item 3) -------------
def _texts(session) -> list[str]:
    return [t.text for t in session.turns.order_by("index")]


def test_two_chats_with_the_same_model_and_first_message_stay_two_conversations(ai, upstream, user):
    first = [{"role": "user", "content": "Plan the garden for this weekend."}]
    upstream.reply = "Start with the beans."
    ai.chat.completions.create(model="m", messages=first)
    upstream.reply = "Begin by mulching the roses."
    ai.chat.completions.create(model="m", messages=first)  # another chat, same model, same opening
    sessions = ChatSession.objects.filter(owner=user, source_key="chat:proxy")
    assert sorted(_texts(s)[1] for s in sessions) == ["Begin by mulching the roses.", "Start with the beans."]
    upstream.reply = "Sunday is drier."
    ai.chat.completions.create(
        model="m",
        messages=[
            *first,
            {"role": "assistant", "content": "Start with the beans."},
            {"role": "user", "content": "Which day is better?"},
        ],
    )
    beans = next(s for s in sessions.all() if "Start with the beans." in _texts(s))
    roses = next(s for s in sessions.all() if "Begin by mulching the roses." in _texts(s))
    assert _texts(beans)[2:] == ["Which day is better?", "Sunday is drier."]
    assert _texts(roses) == ["Plan the garden for this weekend.", "Begin by mulching the roses."]


def test_the_answer_names_its_conversation_and_a_named_one_is_never_replaced(ai, upstream, user):
    raw = ai.chat.completions.with_raw_response.create(model="m", messages=MESSAGES)
    assert raw.headers["x-almanac-conversation"].startswith("proxy-")
    named = {"X-Almanac-Conversation": "allot-2"}
    ai.chat.completions.create(model="m", messages=MESSAGES, extra_headers=named)
    edited = [{"role": "user", "content": "Something else entirely: what is a good name for a cat?"}]
    upstream.reply = "Marmalade."
    ai.chat.completions.create(model="m", messages=edited, extra_headers=named)  # the client rewrote its history
    session = ChatSession.objects.get(owner=user, external_id="allot-2")
    assert _texts(session) == [MESSAGES[0]["content"], REPLY, edited[0]["content"], "Marmalade."]


def test_models_pass_through_to_the_upstream_with_its_key(ai, upstream):
    listed = ai.models.list()
    assert [m.id for m in listed.data] == ["m-small"]
    assert upstream.gets == [("/v1/models", "Bearer sk-upstream")]


# --- What is injected (issue 36, item 4) -------------------------------------------------------------------
def test_no_padding_and_never_the_proxys_own_exchanges_as_evidence(ai, upstream, user):
    from ledger.services import ensure_entity

    ensure_entity(owner=user, name="Priyanka", kind="person")
    FactFactory(owner=user, content="Priyanka teaches the Tuesday pottery class", status="accepted")
    upstream.reply = "4"
    ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "What is 2+2?"}])
    upstream.reply = "Priyanka runs the Saturday chess club, I believe."
    ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "Who is Priyanka?"}])
    ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "What does Priyanka teach?"}])
    system = upstream.bodies[-1]["messages"][0]
    assert system["role"] == "system" and "pottery" in system["content"]
    assert "2+2" not in system["content"] and "chess" not in system["content"]  # no padding, no echo
