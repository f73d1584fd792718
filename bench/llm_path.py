"""The LLM path against any OpenAI-compatible server: memory pass (extractor + judge), chats digest, screen event
namer and recall gate, with per-call-type figures.

    .venv/bin/python bench/llm_path.py --base-url http://127.0.0.1:8080/v1 --model gemma-3-270m-it
    .venv/bin/python bench/llm_path.py --imitation [--faults 0.2]      # the local imitation (tests/support)

Input is real conversation text: sessions of LoCoMo conv-26 (``/work/shared/bench/locomo-dev.json``; a small
built-in conversation when the file is missing) as memory-pass conversations and chat sessions, their QA questions
for the recall gate, and screen lines built from them for the namer. Every run uses a fresh bench owner and an
empty answer cache in its own database (``almanac_bench_llm``), so every call goes to the server.

Prints, per call type: calls, valid answers, fallbacks (the deterministic path ran instead), p50/p95 latency and
tokens (as the server reports them, else characters / 4). ``--faults F`` makes the imitation misbehave on a
share F of calls (non-JSON, wrong schema, ``{}``, HTTP 500, cut connection, slow past the timeout) to show the
fallbacks; a real server needs none.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import use_bench_database  # noqa: E402

LOCOMO = Path("/work/shared/bench/locomo-dev.json")
FALLBACK_TALK = [
    ("Tamsin", "I finally moved to Leeds last month, the flat is near the canal."),
    ("Oren", "Nice! Are you still working at the print shop?"),
    ("Tamsin", "No, I started as a nurse at St James's in September. Night shifts for now."),
    ("Oren", "I'm allergic to cats, so I can't visit if you keep the kitten."),
]


def load_sessions(limit: int) -> tuple[list[list[tuple[str, str]]], list[str]]:
    """(sessions as (speaker, text) lists, questions) from LoCoMo conv-26."""
    if not LOCOMO.exists():
        return [FALLBACK_TALK], ["Where did Tamsin move?", "What is the capital of Peru?"]
    conv = json.loads(LOCOMO.read_text())[0]
    talk = conv["conversation"]
    sessions = []
    for n in range(1, 100):
        turns = talk.get(f"session_{n}")
        if not turns or len(sessions) >= limit:
            break
        sessions.append([(t["speaker"], t["text"]) for t in turns][:40])
    return sessions, [str(q["question"]) for q in conv["qa"][: limit * 4]]


class Recorder:
    """Per-call latencies and tokens, taken where the client counts them (``usage.record_call``)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, bool, int, int]] = []

    def install(self) -> None:
        from ledger.llm import usage

        original = usage.record_call

        def record_call(owner, call, *, valid, latency_ms, tokens):
            self.rows.append((str(call.value if hasattr(call, "value") else call), valid, latency_ms, tokens))
            original(owner, call, valid=valid, latency_ms=latency_ms, tokens=tokens)

        usage.record_call = record_call  # the client looks it up on the module at each call


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
                           title="Message sent", outcome="completion")  # fmt: skip
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
    parser.add_argument("--base-url", default="", help="the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="", help="the model name the server serves")
    parser.add_argument("--api-key", default="")
    parser.add_argument("--imitation", action="store_true", help="start the local imitation instead of a server")
    parser.add_argument("--faults", type=float, default=0.0, help="imitation only: share of misbehaving calls")
    parser.add_argument("--sessions", type=int, default=4, help="conversations per use (memory pass, digest, namer)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per call (ALMANAC_LLM_TIMEOUT)")
    parser.add_argument("--gate-timeout", type=float, default=2.0, help="the recall gate's own timeout")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    if not args.imitation and not args.base_url:
        parser.error("give --base-url URL (and --model NAME) or --imitation")

    use_bench_database("almanac_bench_llm", cache_table=True)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    from ledger import llm

    server = imitation(args.faults, args.seed) if args.imitation else None
    settings.ALMANAC_LLM_BASE_URL = server.base_url if server else args.base_url
    settings.ALMANAC_LLM_MODEL = args.model or ("imitation-1" if server else "")
    settings.ALMANAC_LLM_API_KEY = args.api_key
    settings.ALMANAC_LLM_TIMEOUT = args.timeout if not server else min(args.timeout, 1.0)
    settings.ALMANAC_LLM_DAILY_CALLS = 100_000
    problems = llm.probe()
    if problems:
        print("configuration problems (the deterministic path runs):", *problems, sep="\n  ")
    cache.clear()  # a fresh answer cache: every call reaches the server
    owner = get_user_model().objects.create_user(username=f"bench-llm-{uuid.uuid4().hex[:8]}")
    sessions, questions = load_sessions(args.sessions)
    recorder = Recorder()
    recorder.install()
    started = time.perf_counter()
    run_memory_pass(owner, sessions)
    run_digests(owner, sessions)
    run_namer(owner, sessions)
    run_gate(owner, questions, args.gate_timeout)
    elapsed = time.perf_counter() - started
    if server:
        server.stop()
    report(owner, recorder, elapsed, args, server is not None)
    return 0


def report(owner, recorder: Recorder, elapsed: float, args, imitated: bool) -> None:
    from ledger import llm

    target = f"local imitation (faults {args.faults:g})" if imitated else f"{args.base_url} model {args.model}"
    print(f"LLM path bench: {target}; {args.sessions} sessions; {platform.python_version()}; {elapsed:.1f} s total")
    print(f"{'call type':<14}{'calls':>7}{'valid':>7}{'fallbacks':>11}{'p50 ms':>9}{'p95 ms':>9}{'tokens':>9}")
    for stat in llm.today_stats(owner):
        lat = [r[2] for r in recorder.rows if r[0] == stat.call_type]
        print(f"{stat.call_type:<14}{stat.calls:>7}{stat.valid:>7}{stat.fallbacks:>11}{pct(lat, 50):>9}"
              f"{pct(lat, 95):>9}{stat.tokens:>9}")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
