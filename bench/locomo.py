"""LoCoMo turn-level retrieval benchmark for recall.

    .venv/bin/python bench/locomo.py [PATH] [--keep]

PATH: any file in LoCoMo's original format (a list of {sample_id, conversation, qa}), any number of
conversations; default ../shared/bench/locomo-dev.json. Each conversation is ingested as wearables transcript
utterances (one user per conversation, a DayTranscript per session date) through the real tables, in a
separate database ``almanac_bench`` on the same PostgreSQL server (created and dropped here; never user data).

For each question of categories 1-4 (5 "adversarial" reported apart) it reports R@5, R@10, R@20 (share of a
question's gold evidence turns in the top k) and MRR (first gold turn) for: full-text only, vector (hash),
vector (minilm, when installed), hybrid, and the in-memory BM25 floor (k1=1.2, b=0.75) over the same document
form as the retrieval anchors: "speaker: text [shares image: caption]".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench"

DEFAULT_PATH = ROOT.parent / "shared" / "bench" / "locomo-dev.json"
KS = (5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware datetime (UTC)."""
    from datetime import UTC

    cleaned = re.sub(r"\s+", " ", text.strip())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unreadable session date {text!r}")


def turn_text(turn: dict) -> str:
    text = turn.get("text", "")
    caption = turn.get("blip_caption")
    return f"{text} [shares image: {caption}]" if caption else text


def sessions(conv: dict) -> list[tuple[int, datetime, list[dict]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            out.append((n, parse_session_date(conv[f"session_{n}_date_time"]), turns))
    return sorted(out)


def evidence_ids(raw) -> list[str]:
    ids = []
    for ev in raw or []:
        ids.extend(x for x in re.split(r"[;,\s]+", str(ev)) if re.fullmatch(r"D\d+:\d+", x))
    return ids


def ingest(sample: dict):
    """Create the sample's user, source, transcripts and utterances; return (owner, {dia_id: utterance pk}, docs)."""
    from django.contrib.auth import get_user_model

    from wearables.models import Conversation, DayTranscript, Source, Utterance

    owner = get_user_model().objects.create(username=f"bench-{sample['sample_id']}")
    source = Source.objects.create(owner=owner, kind="limitless", enabled=False)
    by_date: dict = {}
    dia_to_pk: dict[str, int] = {}
    docs: dict[int, str] = {}
    for n, when, turns in sessions(sample["conversation"]):
        day = by_date.get(when.date())
        if day is None:
            day = DayTranscript.objects.create(
                owner=owner,
                source=source,
                local_date=when.date(),
                timezone="UTC",
                content_hash=f"bench-{n}",
                markdown="",
            )
            by_date[when.date()] = day
            day._next_index = 0
        conv = Conversation.objects.create(owner=owner, transcript=day, external_id=f"session_{n}", started_at=when)
        rows = []
        for i, turn in enumerate(turns):
            rows.append(
                Utterance(
                    owner=owner,
                    transcript=day,
                    conversation=conv,
                    index=day._next_index + i,
                    speaker_label=turn["speaker"],
                    speaker_name=turn["speaker"],
                    text=turn_text(turn),
                    started_at=when,
                )
            )
        day._next_index += len(rows)
        created = Utterance.objects.bulk_create(rows)
        for turn, row in zip(turns, created, strict=True):
            dia_to_pk[turn["dia_id"]] = row.pk
            docs[row.pk] = f"{turn['speaker']}: {turn_text(turn)}"
    return owner, dia_to_pk, docs


class Scores:
    def __init__(self):
        self.sums = defaultdict(float)
        self.n = 0

    def add(self, ranked: list, gold: set):
        self.n += 1
        for k in KS:
            self.sums[f"R@{k}"] += len(gold & set(ranked[:k])) / len(gold)
        rr = 0.0
        for i, ref in enumerate(ranked, start=1):
            if ref in gold:
                rr = 1.0 / i
                break
        self.sums["MRR"] += rr

    def row(self) -> list[float]:
        return [self.sums[c] / self.n if self.n else 0.0 for c in ("R@5", "R@10", "R@20", "MRR")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", default=str(DEFAULT_PATH))
    parser.add_argument("--keep", action="store_true", help="keep the almanac_bench database afterwards")
    args = parser.parse_args()
    try:
        data = json.loads(Path(args.path).read_text())
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.path}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(data, list) or not all(isinstance(s, dict) and "conversation" in s and "qa" in s for s in data):
        print(
            f"error: {args.path} is not in LoCoMo format (a list of {{sample_id, conversation, qa}})", file=sys.stderr
        )
        return 2

    import django

    django.setup()
    from django.db import connection

    from ledger.recall import search
    from ledger.recall.embeddings import HashBackend, MiniLMBackend, minilm_available
    from ledger.recall.services import embed_pending
    from ledger.recall.text import BM25
    from wearables.recall_provider import TranscriptProvider

    creation = connection.creation
    bench_db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    print(f"database: {bench_db} (created for this run)")
    provider = TranscriptProvider()
    backends = {"hash": HashBackend()}
    if minilm_available():
        backends["minilm"] = MiniLMBackend()
    else:
        print("note: minilm extra not installed; vector (minilm) skipped")
    modes = ["bm25-floor", "fulltext", "fulltext+context", "vector-hash"]
    if "minilm" in backends:
        modes += ["vector-minilm"]
    modes += ["hybrid-hash"] + (["hybrid-minilm"] if "minilm" in backends else [])
    main_scores = {m: Scores() for m in modes}
    adv_scores = {m: Scores() for m in modes}
    by_cat = {m: defaultdict(Scores) for m in modes}
    timings = defaultdict(float)
    try:
        for sample in data:
            t0 = time.perf_counter()
            owner, dia_to_pk, docs = ingest(sample)
            timings["ingest"] += time.perf_counter() - t0
            for name, backend in backends.items():
                t0 = time.perf_counter()
                embed_pending(owner=owner, provider=provider, backend=backend)
                timings[f"embed-{name}"] += time.perf_counter() - t0
            search.forget_stats(owner)
            doc_ids = list(docs)
            bm25 = BM25([docs[i] for i in doc_ids])
            for qa in sample["qa"]:
                gold = {dia_to_pk[d] for d in evidence_ids(qa.get("evidence")) if d in dia_to_pk}
                if not gold:
                    continue
                q = str(qa["question"])
                cat = int(qa.get("category", 0))
                ranked = {"bm25-floor": [doc_ids[i] for i in bm25.rank(q, 20)]}
                t0 = time.perf_counter()
                ranked["fulltext"] = list(search.rank_ids(provider, owner, q, "fulltext", 20))
                timings["q-fulltext"] += time.perf_counter() - t0
                ranked["fulltext+context"] = list(search.rank_ids(provider, owner, q, "context", 20))
                for name, backend in backends.items():
                    t0 = time.perf_counter()
                    ranked[f"vector-{name}"] = list(search.rank_ids(provider, owner, q, "vector", 20, backend=backend))
                    timings[f"q-vector-{name}"] += time.perf_counter() - t0
                    t0 = time.perf_counter()
                    ranked[f"hybrid-{name}"] = list(search.rank_ids(provider, owner, q, "hybrid", 20, backend=backend))
                    timings[f"q-hybrid-{name}"] += time.perf_counter() - t0
                for m in modes:
                    target = adv_scores if cat == 5 else main_scores
                    target[m].add(ranked[m], gold)
                    by_cat[m][cat].add(ranked[m], gold)
    finally:
        if not args.keep:
            creation.destroy_test_db(bench_db, verbosity=0)

    n_q = main_scores["fulltext"].n
    print(f"\nLoCoMo turn-level retrieval: {len(data)} conversation(s), {n_q} questions (categories 1-4)")
    print(f"{'retriever':<16} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'MRR':>6}")
    for m in modes:
        print(f"{m:<16} " + " ".join(f"{v:6.3f}" for v in main_scores[m].row()))
    print(f"\nadversarial (category 5, {adv_scores['fulltext'].n} questions), R@10 / MRR:")
    print("  " + "  ".join(f"{m} {adv_scores[m].row()[1]:.3f}/{adv_scores[m].row()[3]:.3f}" for m in modes))
    print("\nR@10 by category:")
    cats = sorted(c for c in by_cat["fulltext"] if c != 5)
    print(f"{'retriever':<16} " + " ".join(f"{CATEGORIES.get(c, c):>11}" for c in cats))
    for m in modes:
        print(f"{m:<16} " + " ".join(f"{by_cat[m][c].row()[1]:11.3f}" for c in cats))
    n_all = sum(s.n for s in by_cat["fulltext"].values()) or 1
    print("\ntimings: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items() if not k.startswith("q-")))
    print(
        "per query (ms): "
        + ", ".join(f"{k[2:]} {1000 * v / n_all:.1f}" for k, v in timings.items() if k.startswith("q-"))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
