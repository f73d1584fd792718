"""Two nodes on one PostgreSQL, as docs/serving.md ("Two or more nodes") deploys them: each node runs gunicorn and
``manage.py qcluster`` with its own ``ALMANAC_HOME``; both share ``DATABASE_URL`` (a server listening on TCP, as
an external one would) and ``ALMANAC_SECRET_KEY``. The database is the last release's (the upgrade fixture, with
the demo in it), and the deploy step (``migrate``, ``sync_schedules``) runs once before the nodes start.

The test drives both nodes at once and checks what a second node must not break: both serve and see both
workers; writes through both land on one chain (the chain-head lock and the optimistic head check hold across
nodes); every scheduled task runs once, not once per node; and a node killed mid-work (SIGKILL, web and worker)
loses nothing a client was told was stored, while its queued work is finished by the other node.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from memory_site.schedules import SCHEDULES
from tests.deploy.conftest import newest_release, restore_release
from tests.reliability.faults import KEY, FaultyLimitless
from tests.reliability.nodes import Node, free_port
from tests.reliability.pgcluster import PgCluster, almanac_env, manage, probe, wait_for

pytestmark = pytest.mark.slow

DATABASE = "almanac"
# A short broker window, so a dead node's task is handed to the other node within the test (production: 1900 s).
NODE_ENV = {
    "ALMANAC_SECRET_KEY": "two-nodes-share-this-secret-key",
    "ALMANAC_WEB_WORKERS": "1",
    "ALMANAC_WEB_THREADS": "4",
    "ALMANAC_WORKERS": "1",
    "ALMANAC_TASK_TIMEOUT_SECONDS": "8",
    "ALMANAC_TASK_RETRY_SECONDS": "10",
    "ALMANAC_CHATS_IDLE_SECONDS": "1",
}


class Site:
    def __init__(self, cluster: PgCluster, nodes: list[Node], token: str):
        self.cluster, self.nodes, self.token = cluster, nodes, token

    def client(self, node: Node) -> httpx.Client:
        return httpx.Client(base_url=node.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=60)

    def sql(self, statement: str, params=None) -> list[tuple]:
        return self.cluster.sql(statement, params, database=DATABASE)

    def queued(self) -> int:
        return self.sql("SELECT count(*) FROM django_q_ormq")[0][0]


@pytest.fixture(scope="module")
def site():
    root = Path(tempfile.mkdtemp(prefix="almanac-two-nodes-"))
    cluster = PgCluster.create(root, port=free_port())
    provider = FaultyLimitless()
    provider.start()
    nodes = []
    try:
        restore_release(cluster, DATABASE, newest_release())
        # The release's demo sources point at imitation servers of the day the fixture was made: off, so the
        # scheduled syncs and collects have nothing to wait on.
        cluster.sql("UPDATE wearables_source SET enabled = false", database=DATABASE)
        cluster.sql("UPDATE screen_screensource SET enabled = false", database=DATABASE)
        deploy = almanac_env(cluster, DATABASE, root / "deploy", **NODE_ENV)
        for step in (("migrate", "--noinput"), ("sync_schedules",)):
            done = manage(deploy, *step, timeout=600)
            assert done.returncode == 0, done.stderr[-3000:]
        token = probe(deploy, "setup", "alice", provider.base_url, KEY)["token"]
        for name in ("node-a", "node-b"):
            env = almanac_env(cluster, DATABASE, root / name, **NODE_ENV)
            nodes.append(Node(name, env, logs=root / "logs").start())
        for node in nodes:
            node.wait_until_serving()
        yield Site(cluster, nodes, token)
    finally:
        for node in nodes:
            node.kill()
        provider.stop()
        cluster.destroy()
        shutil.rmtree(root, ignore_errors=True)


def test_each_node_has_its_own_home_and_serves_from_the_shared_database(site):
    homes = {node.env["ALMANAC_HOME"] for node in site.nodes}
    assert len(homes) == 2 and {node.env["DATABASE_URL"] for node in site.nodes} == {site.cluster.url(DATABASE)}

    def both_workers_seen() -> bool:
        reports = [httpx.get(node.url + "/api/v1/health", timeout=10).json() for node in site.nodes]
        return all(r["database"]["ok"] and r["worker"]["clusters"] == 2 for r in reports)

    assert wait_for(both_workers_seen, 60, interval=1), "each node's health should count both workers"


def test_concurrent_commits_through_both_nodes_land_once_on_one_verified_chain(site):
    acknowledged: list[str] = []
    lock = threading.Lock()

    def writer(node: Node, thread: int) -> None:
        with site.client(node) as client:
            for n in range(6):
                content = f"{node.name} writer {thread} note {n}"
                body = {"mutations": [_add(content)]}
                response = client.post("/api/v1/ledger/commits", json=body)
                assert response.status_code == 201, response.text
                with lock:
                    acknowledged.append(response.json()["commit_id"])

    threads = [threading.Thread(target=writer, args=(node, i)) for node in site.nodes for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)

    assert len(acknowledged) == 36
    stored = site.sql("SELECT commit_id FROM ledger_commit WHERE owner_id = (SELECT id FROM auth_user "
                      "WHERE username = 'alice')")  # fmt: skip
    assert sorted(c for (c,) in stored if c in set(acknowledged)) == sorted(acknowledged)  # each once
    with site.client(site.nodes[0]) as client:
        verified = client.get("/api/v1/ledger/verify").json()
    assert verified["ok"] and verified["length"] == len(stored)


def test_the_same_expected_head_sent_to_both_nodes_at_once_is_applied_by_one(site):
    with site.client(site.nodes[0]) as client:
        head = client.get("/api/v1/ledger/head").json()["head"]
    answers: dict[str, int] = {}
    start = threading.Barrier(2)

    def send(node: Node) -> None:
        body = {"expected_head": head, "mutations": [_add(f"raced from {node.name}")]}
        with site.client(node) as client:
            start.wait()
            answers[node.name] = client.post("/api/v1/ledger/commits", json=body).status_code

    threads = [threading.Thread(target=send, args=(node,)) for node in site.nodes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert sorted(answers.values()) == [201, 409]


def test_every_scheduled_task_runs_once_across_both_workers(site):
    names = [spec["name"] for spec in SCHEDULES]
    site.sql('DELETE FROM django_q_task WHERE "group" = ANY(%s)', [names])
    site.sql("UPDATE django_q_schedule SET next_run = now() - interval '1 minute' WHERE name = ANY(%s)", [names])

    def all_ran() -> bool:
        done = site.sql('SELECT count(DISTINCT "group") FROM django_q_task WHERE "group" = ANY(%s)', [names])
        return done[0][0] == len(names) and site.queued() == 0

    assert wait_for(all_ran, 90, interval=1), site.sql("SELECT name, next_run FROM django_q_schedule")
    time.sleep(16)  # one more scheduler round on each node (every 15 s): a second run would show now
    runs = dict(site.sql('SELECT "group", count(*) FROM django_q_task WHERE "group" = ANY(%s) GROUP BY 1', [names]))
    assert runs == dict.fromkeys(names, 1)
    assert site.sql("SELECT count(*) FROM django_q_schedule WHERE name = ANY(%s) AND next_run < now()", [names]) == [
        (0,)
    ]


def test_a_node_killed_mid_work_loses_nothing_and_the_other_node_finishes_its_queue(site):
    """Chat turns go to both nodes while node B dies (web and worker, SIGKILL). Every turn a node acknowledged is
    stored once; the distillations node B's worker had taken or left queued are done by node A's worker."""
    node_a, node_b = site.nodes
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def chatter(node: Node, thread: int) -> None:
        turns: list[dict] = []
        with site.client(node) as client:
            for n in range(40):
                if stop.is_set() and node is node_b:
                    return
                text = f"On {node.name} thread {thread} I mention the {_word(n)} garden plan."
                turns.append({"user": text, "assistant": "Noted."})
                body = {"agent_id": "two-nodes", "conversation_id": f"{node.name}-{thread}", "turns": turns}
                try:
                    response = client.post("/api/v1/memory/ingest", json=body)
                except httpx.HTTPError:
                    turns.pop()
                    continue  # the node died under this request: nothing was acknowledged
                if response.status_code == 200:
                    with lock:
                        acknowledged.append(text)
                else:
                    turns.pop()
                time.sleep(0.05)

    threads = [threading.Thread(target=chatter, args=(node, i)) for node in site.nodes for i in range(2)]
    for t in threads:
        t.start()
    assert wait_for(lambda: len(acknowledged) >= 20, 60), "the nodes never acknowledged any turns"
    stop.set()
    node_b.kill()
    for t in threads:
        t.join(120)

    assert any(text.startswith("On node-b") for text in acknowledged)
    stored = dict(site.sql("SELECT text, count(*) FROM chats_chatturn WHERE text = ANY(%s) GROUP BY 1", [acknowledged]))
    assert {text: stored.get(text, 0) for text in acknowledged} == dict.fromkeys(acknowledged, 1)

    alices = "FROM chats_chatsession WHERE owner_id = (SELECT id FROM auth_user WHERE username = 'alice')"

    def drained() -> bool:
        pending = site.sql(f"SELECT count(*) {alices} AND distill_due_at IS NOT NULL")[0][0]
        return site.queued() == 0 and pending == 0

    assert wait_for(drained, 120, interval=1), (site.queued(), site.sql("SELECT func FROM django_q_ormq"))
    sessions = site.sql(f"SELECT status, count(*) {alices} GROUP BY 1")
    assert sessions and all(status != "error" for status, _ in sessions), sessions
    with site.client(node_a) as client:
        assert client.get("/api/v1/ledger/verify").json()["ok"]


def _add(content: str) -> dict:
    return {
        "type": "add_fact",
        "subject_kind": "user",
        "status": "accepted",
        "capture_confidence": 0.8,
        "veracity": 0.7,
        "payload": {"content": content},
    }


def _word(n: int) -> str:
    """A distinct word per turn (digits would be redacted as numbers, and the texts must stay apart)."""
    letters = "abcdefghij"
    return "".join(letters[int(d)] for d in f"{n:03d}")
