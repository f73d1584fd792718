"""Chats ingest: turns/s on the hot path (POST /api/v1/memory/ingest, in-process, live path) and sessions/s
distilled in the background (deterministic distiller, episodes, lessons and memories through distill/).

    .venv/bin/python bench/ingest.py [--sessions 200] [--turns 12] [--hooks 20] [--keep]

Runs in its own database ``almanac_bench_ingest`` on the configured PostgreSQL server (created and dropped
here; never user data). Each session is ingested turn by turn, as an agent does (every request carries the
conversation so far; only the new pair is inserted), then all sessions are distilled by the idle sweeper.

Hook latency: ``chats/agent_plugin/hook_client.py`` run as Claude Code runs it (a new ``python -S`` process per
call, start-up included) for each event, ``--hooks`` times each, against this process serving the bench
database over HTTP on loopback; the transcript events send a real session file's new lines each time (a new
~2 KB piece per call, read and acknowledged as in use); then the time to fail open with the server stopped
(nothing listening) and hung (connections accepted, never answered).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_ingest"
os.environ.setdefault("ALMANAC_CONN_MAX_AGE", "600")

TASKS = ["add a health endpoint", "fix the flaky date test", "rename the billing module", "export orders to CSV",
         "speed up the search page", "write the migration for lot numbers", "add retries to the mailer"]  # fmt: skip
CORRECTIONS = ["No, use pip and requirements.txt here, never npm.", "No, we keep the version unbumped; use Unreleased.",
               "Don't touch the generated files, edit the templates instead."]  # fmt: skip


def conversation(rng: random.Random, n: int) -> list[dict]:
    task = rng.choice(TASKS)
    turns = [{"user": f"Please {task} in the {rng.choice(['shop', 'api', 'seedbank'])} project; keep it small.",
              "assistant": f"Plan: read the code, {task}, run the tests, report back with the diff summary."}]  # fmt: skip
    for i in range(1, n):
        user = rng.choice(CORRECTIONS) if rng.random() < 0.15 else f"Looks good, continue with step {i} of the plan."
        turns.append({"user": user, "assistant": f"Step {i} done: updated {rng.randint(1, 9)} files, tests pass."})
    return turns


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


HOOK_PAYLOADS = {
    "session-start": {"hook_event_name": "SessionStart", "source": "startup"},
    "user-prompt-submit": {"hook_event_name": "UserPromptSubmit", "prompt": "add the yaml package to requirements"},
    "pre-tool-use": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "npm install x"},
                     "tool_use_id": "toolu_1"},
    "post-tool-use": {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest -q"},
                      "tool_use_id": "toolu_2", "tool_response": {"stdout": "3 passed", "stderr": ""}},
    "stop": {"hook_event_name": "Stop", "stop_hook_active": False},
    "subagent-stop": {"hook_event_name": "SubagentStop", "stop_hook_active": False, "agent_id": "a1"},
    "pre-compact": {"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""},
    "session-end": {"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
}  # fmt: skip
SAMPLE = ROOT / "tests" / "fixtures" / "real_sessions" / "claude_code" / "simonw-sample_session.jsonl"


def _transcript(folder: Path, session: str) -> str:
    """A session file named as Claude Code names it, holding a real session (a new one per call: each Stop sends
    a whole new piece)."""
    path = folder / f"{session}.jsonl"
    path.write_text(SAMPLE.read_text().replace("test-session-id", session))
    return str(path)


def _run_hook(event: str, url: str, token: str, n: int) -> list[float]:
    import subprocess
    import tempfile

    client = ROOT / "chats" / "agent_plugin" / "hook_client.py"
    folder = Path(tempfile.mkdtemp(prefix="almanac-bench-hooks-"))
    env = {"PATH": os.environ.get("PATH", ""), "ALMANAC_URL": url, "ALMANAC_TOKEN": token,
           "ALMANAC_HOOK_STATE_DIR": str(folder / "state")}  # fmt: skip
    out = []
    for i in range(n):
        session = f"bench-{event}-{i}"
        path = _transcript(folder, session)
        body = json.dumps({"session_id": session, "cwd": "/home/dev/shop", "permission_mode": "default",
                           "transcript_path": path, "agent_transcript_path": path,
                           **HOOK_PAYLOADS[event]})  # fmt: skip
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-S", str(client), event], input=body, capture_output=True, text=True,
                              env=env, timeout=30)  # fmt: skip
        out.append(time.perf_counter() - t)
        assert done.returncode == 0, done.stderr
        FAILED_OPEN[event] = FAILED_OPEN.get(event, 0) + bool(done.stderr)  # no answer in time: the agent went on
    return out


FAILED_OPEN: dict[str, int] = {}


def server_share(token: str, n: int) -> None:
    """The server's own time per hook (in process, no interpreter start, no socket), same payloads as the
    client sends them (``prepare`` builds them)."""
    import tempfile

    from django.test import Client

    from chats.agent_plugin import hook_client

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    folder = Path(tempfile.mkdtemp(prefix="almanac-bench-server-"))
    os.environ["ALMANAC_HOOK_STATE_DIR"] = str(folder / "state")
    for event in HOOK_PAYLOADS:
        times = []
        for i in range(n):
            session = f"server-{event}-{i}"
            path = _transcript(folder, session)
            payload = {"session_id": session, "cwd": "/home/dev/shop", "transcript_path": path,
                       "agent_transcript_path": path, **HOOK_PAYLOADS[event]}  # fmt: skip
            body, _piece = hook_client.prepare(event, payload)
            t = time.perf_counter()
            r = client.post(f"/api/v1/chats/hooks/{event}", json.dumps(body), content_type="application/json")
            times.append(time.perf_counter() - t)
            assert r.status_code == 200, r.content
        print(f"server {event:<19} p50 {statistics.median(times) * 1000:6.1f} ms, p95 {pct(times, 95) * 1000:6.1f} ms")


def hook_latency(token: str, n: int) -> None:
    import socket
    import threading

    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        _run_hook("user-prompt-submit", url, token, 2)  # warm the server's lazy imports
        for event in HOOK_PAYLOADS:
            times = _run_hook(event, url, token, n)
            print(f"hook {event:<19} server up:   p50 {statistics.median(times) * 1000:6.1f} ms, "
                  f"p95 {pct(times, 95) * 1000:6.1f} ms, max {max(times) * 1000:6.1f} ms (n={n}; "
                  f"answered {n - FAILED_OPEN.get(event, 0)}/{n})")  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{s.getsockname()[1]}"
    times = _run_hook("user-prompt-submit", down, token, n)
    start = [time.perf_counter()]
    import subprocess

    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
    print(f"python -S start-up alone: {(time.perf_counter() - start[0]) * 1000:.1f} ms (the floor of every hook)")
    print(f"hook fail-open, server down: p95 {pct(times, 95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(64)  # connections queue in the backlog and are never answered
    try:
        times = _run_hook("user-prompt-submit", f"http://127.0.0.1:{hung.getsockname()[1]}", token, n)
    finally:
        hung.close()
    print(f"hook fail-open, server hung: p95 {pct(times, 95) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")


def _seed_lesson(user) -> None:
    from chats.services.distilling import distill_session
    from chats.services.store import store_session
    from chats.text import SessionIn, TurnIn

    turns = [
        TurnIn(role="user", text="Install the requests package so the importer can download the feed files."),
        TurnIn(role="assistant", text="Running npm install requests.",
               tool_calls=[{"id": "t1", "name": "Bash", "input": {"command": "npm install requests"}}]),
        TurnIn(role="user", text="No, this project installs Python packages with pip and requirements.txt, never npm."),
    ]  # fmt: skip
    stored = store_session(owner=user, data=SessionIn(source_key="chat:claude-code", external_id="bench-lesson",
                                                      project="/home/dev/shop", turns=turns))  # fmt: skip
    stored.session.refresh_from_db()
    distill_session(session=stored.session)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=12, help="user/assistant pairs per session")
    parser.add_argument("--hooks", type=int, default=20, help="runs of the hook client per event (0: skip)")
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    parser.add_argument("--hooks-only", action="store_true", help="time the hook client only (no ingest, no distil)")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    creation = connection.creation
    bench_db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    try:
        from accounts import services as account_services
        from chats.models import ChatTurn
        from chats.services import distilling

        user = account_services.ensure_user(username="bench-ingest", password="x" * 12)[0]
        token = account_services.create_token(owner=user, name="bench")[1]
        client = Client()
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        if args.hooks_only:
            _seed_lesson(user)
            server_share(token, args.hooks or 20)
            hook_latency(token, args.hooks or 20)
            return 0
        rng = random.Random(7)
        latencies, turns_stored = [], 0
        t0 = time.perf_counter()
        for s in range(args.sessions):
            convo = conversation(rng, args.turns)
            for k in range(1, len(convo) + 1):
                body = json.dumps({"agent_id": "bench", "conversation_id": f"s{s}", "turns": convo[:k]})
                t = time.perf_counter()
                r = client.post("/api/v1/memory/ingest", body, content_type="application/json", **headers)
                latencies.append(time.perf_counter() - t)
                assert r.status_code == 200 and r.json()["outcome"] == "queued", r.content
                turns_stored += r.json()["turns_added"]
        hot = time.perf_counter() - t0
        stored = ChatTurn.objects.filter(owner=user).count()
        assert stored == turns_stored, (stored, turns_stored)

        t1 = time.perf_counter()
        later = timezone.now() + timezone.timedelta(minutes=5)
        outcomes: dict[str, int] = {}
        while True:
            done = distilling.drain_due(now=later, limit=100)
            if not done:
                break
            for _, outcome in done:
                key = outcome.split(":")[0]
                outcomes[key] = outcomes.get(key, 0) + 1
        cold = time.perf_counter() - t1

        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
              f"{platform.python_version()}; database {bench_db}")  # fmt: skip
        print(f"hot path: {len(latencies)} ingest requests, {stored} turns in {hot:.1f} s = "
              f"{stored / hot:,.0f} turns/s ({len(latencies) / hot:,.0f} requests/s); request p50 "
              f"{statistics.median(latencies) * 1000:.1f} ms, p95 {pct(latencies, 95) * 1000:.1f} ms")  # fmt: skip
        sessions = sum(outcomes.values())
        print(f"distilled: {sessions} sessions in {cold:.1f} s = {sessions / cold:.2f} sessions/s; outcomes {outcomes}")
        if args.hooks:
            _seed_lesson(user)
            server_share(token, args.hooks)
            hook_latency(token, args.hooks)
    finally:
        if not args.keep:
            creation.destroy_test_db(bench_db, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
