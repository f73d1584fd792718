"""The soak's clients (``bench/soak.py``): threads doing what people and their agents do at once, each as one user.

Every request is recorded (route, status, start, end, ``Retry-After``); every write the server acknowledged is
remembered so the run can check afterwards that it is stored exactly once: chat turns (by their text), ledger
commits (by commit id), forgotten people (by entity id).
"""

from __future__ import annotations

import random
import re
import string
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

import httpx

QUESTIONS = [
    "where do I live",
    "what did we decide about the garden",
    "who did I meet last week",
    "my allergies",
    "what am I working on",
    "plans for the weekend",
    "what does my sister do",
]
TOPICS = ["the allotment", "a bicycle repair", "the choir concert", "a pottery class", "the attic", "a fishing trip"]


@dataclass
class SoakUser:
    username: str
    password: str
    token: str


@dataclass
class Call:
    route: str
    status: int  # 0: no answer (connection refused or cut, timeout)
    started: float
    ended: float
    retry_after: str | None = None
    error: str = ""


@dataclass
class Record:
    """Every call, and every acknowledged write, of every client (thread-safe)."""

    calls: list[Call] = field(default_factory=list)
    turns: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # user -> acked turn texts
    commits: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # user -> acked commit ids
    forgotten: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))  # (id, name)
    exports: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, call: Call) -> None:
        with self.lock:
            self.calls.append(call)

    def acked(self, kind: str, user: str, value) -> None:
        with self.lock:
            getattr(self, kind)[user].append(value)


class Client(threading.Thread):
    """One client thread of one user: a weighted mix of actions until ``stop`` is set."""

    def __init__(self, index: int, user: SoakUser, base_url: str, record: Record, stop: threading.Event, seed: int):
        super().__init__(name=f"soak-client-{index}", daemon=True)
        self.index, self.user, self.record, self.stop = index, user, record, stop
        self.rng = random.Random(seed * 1000 + index)
        self.api = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {user.token}"}, timeout=90)
        self.browser = httpx.Client(base_url=base_url, timeout=90)  # a logged-in browser session (export)
        self.conversation, self.turns, self.n = f"soak-{index}-0", [], 0
        self.actions = [
            (26, self.recall),
            (18, self.chat_ingest),
            (8, self.hook),
            (8, self.mcp_call),
            (10, self.review_decision),
            (10, self.ledger_commit),
            (8, self.read_pages),
            (6, self.wearables_sync),
            (4, self.screen_collect),
            (1, self.forget_person),
            (1, self.export),
        ]

    # --- plumbing -----------------------------------------------------------------------------------------
    def call(
        self, route: str, method: str, url: str, *, client: httpx.Client | None = None, **kw
    ) -> httpx.Response | None:
        started = time.monotonic()
        try:
            response = (client or self.api).request(method, url, **kw)
        except httpx.HTTPError as exc:
            self.record.add(Call(route, 0, started, time.monotonic(), error=exc.__class__.__name__))
            return None
        error = f"{response.text[:160]}" if response.status_code >= 500 else ""
        retry_after = response.headers.get("Retry-After")
        self.record.add(Call(route, response.status_code, started, time.monotonic(), retry_after, error))
        return response

    def run(self) -> None:
        weights = [w for w, _ in self.actions]
        while not self.stop.is_set():
            self.n += 1
            self.rng.choices([a for _, a in self.actions], weights)[0]()
            time.sleep(self.rng.uniform(0.05, 0.4))  # people pause; 16 clients still keep 2 cores busy
        self.api.close()
        self.browser.close()

    def word(self, length: int = 10) -> str:
        # Letters only: long digit runs would be redacted before storage and the texts would no longer match.
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(length))

    # --- actions ------------------------------------------------------------------------------------------
    def recall(self) -> None:
        self.call("POST /memory/recall", "POST", "/api/v1/memory/recall", json={"query": self.rng.choice(QUESTIONS)})

    def chat_ingest(self) -> None:
        """A chat client sends the conversation so far (turns upsert by position); a new one every 8 pairs."""
        if len(self.turns) >= 8:
            self.conversation, self.turns = f"soak-{self.index}-{self.n}", []
        text = f"I spent the evening on {self.rng.choice(TOPICS)} fixing the {self.word()} hinge, and it went well."
        self.turns.append({"user": text, "assistant": "That sounds good."})
        body = {"agent_id": "soak", "conversation_id": self.conversation, "turns": self.turns}
        response = self.call("POST /memory/ingest", "POST", "/api/v1/memory/ingest", json=body)
        if response is not None and response.status_code == 200:
            self.record.acked("turns", self.user.username, text)
        else:
            self.turns.pop()  # not acknowledged: the client sends it again with its next turn

    def hook(self) -> None:
        event = self.rng.choice(["user-prompt-submit", "pre-tool-use"])
        body = {"session_id": f"soak-{self.index}", "cwd": "/home/soak/project", "hook_event_name": event,
                "prompt": self.rng.choice(QUESTIONS), "tool_name": "Bash", "tool_input": {"command": "make test"}}  # fmt: skip
        self.call(f"POST /chats/hooks/{event}", "POST", f"/api/v1/chats/hooks/{event}", json=body)

    def mcp_call(self) -> None:
        tool, arguments = self.rng.choice(
            [("recall", {"query": self.rng.choice(QUESTIONS)}), ("search_memory", {"query": "garden"}),
             ("review_queue", {"limit": 5})]
        )  # fmt: skip
        body = {
            "jsonrpc": "2.0",
            "id": self.n,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
        self.call(f"POST /mcp {tool}", "POST", "/mcp", json=body, headers=headers)

    def review_decision(self) -> None:
        response = self.call("GET /review/items", "GET", "/api/v1/review/items", params={"limit": 5})
        items = response.json().get("items", []) if response is not None and response.status_code == 200 else []
        if items:
            item = self.rng.choice(items)
            body = {"decision": self.rng.choice(["accept", "reject"]), "reason": "soak"}
            self.call("POST /review/items/decision", "POST", f"/api/v1/review/items/{item['id']}/decision", json=body)

    def ledger_commit(self) -> None:
        content = f"{self.user.username} noted {self.word()} about {self.rng.choice(TOPICS)}"
        mutation = {"type": "add_fact", "subject_kind": "user", "status": "accepted", "capture_confidence": 0.8,
                    "veracity": 0.7, "payload": {"content": content}}  # fmt: skip
        response = self.call("POST /ledger/commits", "POST", "/api/v1/ledger/commits", json={"mutations": [mutation]})
        if response is not None and response.status_code in (200, 201):
            self.record.acked("commits", self.user.username, response.json()["commit_id"])

    def read_pages(self) -> None:
        route, url, params = self.rng.choice(
            [("GET /ledger/facts", "/api/v1/ledger/facts", {"limit": 20}),
             ("GET /wearables/transcripts/search", "/api/v1/wearables/transcripts/search", {"q": "garden"}),
             ("GET /screen/events", "/api/v1/screen/events", {}),
             ("GET /memory/search", "/api/v1/memory/search", {"q": "sister"}),
             ("GET /health", "/api/v1/health", {})]
        )  # fmt: skip
        self.call(route, "GET", url, params=params)

    def wearables_sync(self) -> None:
        self.call("POST /wearables/sync", "POST", "/api/v1/wearables/sync", json={"days": 2})

    def screen_collect(self) -> None:
        self.call("POST /screen/collect", "POST", "/api/v1/screen/collect")

    def forget_person(self) -> None:
        """Forget one person the memory names (at most once per client): the forget must land whole."""
        if self.record.forgotten.get(self.user.username) and self.rng.random() < 0.9:
            return
        response = self.call("GET /ledger/entities", "GET", "/api/v1/ledger/entities")
        people = [e for e in (response.json() if response is not None and response.status_code == 200 else [])
                  if e.get("kind") == "person"]  # fmt: skip
        if people:
            entity = self.rng.choice(people)
            done = self.call("POST /ledger/entities/forget", "POST", f"/api/v1/ledger/entities/{entity['id']}/forget")
            if done is not None and done.status_code == 200:
                self.record.acked("forgotten", self.user.username, (entity["id"], entity["name"]))

    def export(self) -> None:
        """Download the export through a logged-in browser session, as the Settings page does."""
        if "sessionid" not in self.browser.cookies:
            page = self.call("GET /login/", "GET", "/login/", client=self.browser)
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text) if page is not None else None
            if token is None:
                return
            form = {"username": self.user.username, "password": self.user.password, "csrfmiddlewaretoken": token[1]}
            self.call("POST /login/", "POST", "/login/", client=self.browser, data=form, headers={"Referer": "/login/"})
        response = self.call("GET /settings/export/", "GET", "/settings/export/", client=self.browser)
        if response is not None and response.status_code == 200 and response.content[:2] == b"PK":
            with self.record.lock:
                self.record.exports += 1
