"""Transcript pipeline throughput.

    python bench/pipeline.py [--days 30] [--big-day 2000]

1. Utterances per second through the whole pure pipeline (off-the-record, cleanup, redaction, corrections,
   speaker labeling incl. two-device alignment for Bee) for ``--days`` synthetic days x 3 sources.
2. One ``--big-day``-utterance day synced end to end against the Limitless imitation server (real connector,
   HTTP pagination, pipeline, storage, full-text index), then re-synced unchanged. Runs in a separate database
   ``almanac_bench`` on the embedded server under ALMANAC_HOME (default /tmp/almanac-bench): never user data.
Prints a table. Figures go in the README, with the machine they came from.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import use_bench_database  # noqa: E402

WORDS = (
    "we should book the flight for august and then check the lease on the apartment near the lake because "
    "my sister wants to visit in september and the kitchen still needs new counters so maybe next week works "
    "priya said the design review moved to thursday at nine and theo is bringing the lemon cake"
).split()
FILLERS = ["um", "uh", "you know", "like", "hmm"]


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(5, 16))
    roll = rng.random()
    if roll < 0.15:
        words.insert(rng.randint(0, len(words)), rng.choice(FILLERS) + ",")
    elif roll < 0.25:
        i = rng.randint(0, len(words) - 1)
        words.insert(i, words[i])  # stutter
    elif roll < 0.30:
        words.append("unit " + " ".join(str(rng.randint(0, 9)) for _ in range(4)))
    elif roll < 0.31:
        words.append("card 4242 4242 4242 4242")
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice([".", "?", "."])


def synthetic_day(rng: random.Random, day: date, conversations: int, per_conversation: int) -> dict:
    """A labeled-days dict: the same conversations recorded by Limitless, Omi and Bee (Bee without flags)."""
    from tests.wearables.days import conversation

    recordings: dict[str, list[dict]] = {"limitless": [], "omi": [], "bee": []}
    for n in range(conversations):
        start = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(
            hours=8, minutes=n * 900 // conversations
        )
        lines = [(i % 2 == 1, sentence(rng)) for i in range(per_conversation)]
        recordings["limitless"].append(
            conversation(f"ll-{day}-{n}", start, [("user" if w else "Priya", w, t) for w, t in lines])
        )
        recordings["omi"].append(
            conversation(f"omi-{day}-{n}", start, [(f"SPEAKER_0{int(w)}", w, t) for w, t in lines])
        )
        wearer = str(n % 2)  # Bee's wearer label varies by conversation
        bee = [(wearer if w else str(1 - int(wearer)), w, t) for w, t in lines]
        recordings["bee"].append(conversation(f"bee-{day}-{n}", start + timedelta(seconds=3), bee))
    return {
        "date": day.isoformat(),
        "timezone": "UTC",
        "recordings": [{"source": s, "conversations": c} for s, c in recordings.items()],
    }


def to_convos(recording: dict):
    from wearables.pipeline import Convo, Turn

    def dt(s):
        return datetime.fromisoformat(s.replace("Z", "+00:00"))

    out = []
    for c in recording["conversations"]:
        flags = recording["source"] != "bee"
        turns = [
            Turn(text=u["text"], speaker_label=u["speaker"], is_wearer=u["is_wearer"] if flags else None,
                 started_at=dt(u["start"]), ended_at=dt(u["end"]))
            for u in c["utterances"]
        ]  # fmt: skip
        out.append(
            Convo(
                source=recording["source"],
                external_id=c["id"],
                started_at=dt(c["started_at"]),
                ended_at=dt(c["ended_at"]),
                turns=turns,
            )
        )
    return out


def bench_pure(days: int) -> dict:
    from wearables.pipeline import PipelineConfig, run_pipeline
    from wearables.pipeline.redaction import compile_user_pattern

    rng = random.Random(7)
    data = [synthetic_day(rng, date(2026, 6, 1) + timedelta(days=d), 10, 40) for d in range(days)]
    utterances = sum(len(c["utterances"]) for d in data for r in d["recordings"] for c in r["conversations"])
    cfg = dict(
        user_name="Alice Example",
        corrections=[("theo", "Theo")],
        redaction_patterns=[compile_user_pattern(r"project\s+falcon")],
    )
    started = time.perf_counter()
    correct = total_bee = 0
    for d in data:
        recs = {r["source"]: r for r in d["recordings"]}
        reference = []
        for kind in ("limitless", "omi"):
            reference += run_pipeline(to_convos(recs[kind]), PipelineConfig(source=kind, **cfg))
        bee = run_pipeline(to_convos(recs["bee"]), PipelineConfig(source="bee", reference=reference, **cfg))
        for c in bee:
            total_bee += 1
            correct += c.wearer_label == str(int(c.external_id.rsplit("-", 1)[1]) % 2)
    elapsed = time.perf_counter() - started
    return {
        "utterances": utterances,
        "seconds": elapsed,
        "rate": utterances / elapsed,
        "bee_wearer": f"{correct}/{total_bee}",
    }


def bench_big_day(size: int) -> dict:
    from django.contrib.auth import get_user_model

    from accounts.services import update_settings
    from wearables import services
    from wearables.imitation import LimitlessServer
    from wearables.models import DayTranscript, Source, Utterance

    rng = random.Random(11)
    per = 50
    day = synthetic_day(rng, date(2026, 6, 15), size // per, per)
    day["recordings"] = [r for r in day["recordings"] if r["source"] == "limitless"]
    User = get_user_model()
    User.objects.filter(username="bench-pipeline").delete()
    user = User.objects.create(username="bench-pipeline")
    update_settings(user=user, display_name="Alice Example", timezone_name="UTC")
    server = LimitlessServer([day]).start()
    try:
        services.update_source(
            owner=user,
            kind="limitless",
            enabled=True,
            base_url=server.base_url,
            credentials={"api_key": server.api_key},
        )
        started = time.perf_counter()
        run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 15)])
        first = time.perf_counter() - started
        started = time.perf_counter()
        again = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 15)])
        second = time.perf_counter() - started
    finally:
        server.stop()
    stored = Utterance.objects.filter(owner=user).count()
    result = {
        "raw": size, "stored": stored, "pages": run.pages, "first": first, "resync": second,
        "rate": size / first, "changed": (run.days_changed, again.days_changed), "status": run.status,
    }  # fmt: skip
    DayTranscript.objects.filter(owner=user).delete()
    Source.objects.filter(owner=user).delete()
    user.delete()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--big-day", type=int, default=2000)
    args = parser.parse_args()
    # Django first: the pipeline modules are pure but live in a Django app package
    use_bench_database(home="/tmp/almanac-bench")
    pure = bench_pure(args.days)
    big = bench_big_day(args.big_day)
    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    print(f"machine: {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print()
    print("| benchmark | utterances | seconds | utterances/s | notes |")
    print("|---|---|---|---|---|")
    print(
        f"| pure pipeline, {args.days} days x 3 sources | {pure['utterances']} | {pure['seconds']:.2f} | "
        f"{pure['rate']:,.0f} | Bee wearer via other device: {pure['bee_wearer']} conversations |"
    )
    print(
        f"| one day synced end to end (Limitless imitation) | {big['raw']} | {big['first']:.2f} | {big['rate']:,.0f} | "
        f"{big['pages']} pages, {big['stored']} stored after merging, status {big['status']} |"
    )
    print(
        f"| same day re-synced, unchanged | {big['raw']} | {big['resync']:.2f} | {big['raw'] / big['resync']:,.0f} | "
        f"days changed: {big['changed'][0]} then {big['changed'][1]} |"
    )


if __name__ == "__main__":
    main()
