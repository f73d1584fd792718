"""LoCoMo turn-level retrieval benchmark for recall.

    .venv/bin/python bench/locomo.py [PATH] [--keep]

PATH: any file in LoCoMo's original format (a list of {sample_id, conversation, qa}), any number of
conversations; default ../shared/bench/locomo-dev.json. Each conversation is ingested as wearables transcript
utterances (one user per conversation, a DayTranscript per session date) through the real tables, in a
separate database ``almanac_bench_locomo`` on the same PostgreSQL server (created and dropped here; never user data).

For each question of categories 1-4 (5 "adversarial" reported apart) it reports R@5, R@10, R@20 (share of a
question's gold evidence turns in the top k), MRR (first gold turn) and R@10 per category for every retriever,
the chosen default first: the default pipeline (search_provider with the configured backend), full text alone,
full text + session context, + entity/topic expansion, + fact anchors, vectors and hybrids (hash; minilm when
installed), and the in-memory BM25 floor (k1=1.2, b=0.75) over "speaker: text [shares image: caption]".

Fact-augmented keys need distilled facts: with ``--facts observations`` (the default) the file's
``observation`` facts (what the dataset's authors drew from each session, with the turn each rests on) are
stored as ledger facts about their speaker, with transcript evidence pointing at that turn, then linked by
``index_anchors`` like any distilled memory; rows marked "+facts" use them. They stand in for an ideal
extractor, so those rows are an upper bound of the mechanism; ``--facts none`` leaves them out.
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
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_locomo"

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


def ingest_observations(owner, sample: dict, dia_to_turn: dict[str, tuple[int, int]]) -> int:
    """The sample's observations as accepted ledger facts about their speaker, with evidence on their turn."""
    import uuid

    from django.utils import timezone

    from ledger.models import Entity, Evidence, Fact

    now = timezone.now()
    entities: dict[str, Entity] = {}
    facts, evidence = [], []
    for _session, by_speaker in (sample.get("observation") or {}).items():
        for speaker, entries in (by_speaker or {}).items():
            if speaker not in entities:
                entities[speaker] = Entity.objects.create(
                    owner=owner, public_id=uuid.uuid4(), name=speaker, recorded_at=now
                )
            for entry in entries or []:
                if not isinstance(entry, list | tuple) or len(entry) < 2:
                    continue
                for dia in evidence_ids([entry[1]]):
                    if dia not in dia_to_turn:
                        continue
                    fact = Fact(
                        owner=owner,
                        public_id=uuid.uuid4(),
                        content=str(entry[0]),
                        subject_entity=entities[speaker],
                        status="accepted",
                        recorded_at=now,
                        updated_at=now,
                        proposition_key=uuid.uuid4().hex,
                        text_key=uuid.uuid4().hex,
                        created_commit_id="bench",
                        last_commit_id="bench",
                    )
                    transcript_id, index = dia_to_turn[dia]
                    facts.append(fact)
                    evidence.append(
                        Evidence(
                            owner=owner,
                            public_id=uuid.uuid4(),
                            fact=fact,
                            source_type="transcript",
                            source_ref={"transcript_id": transcript_id, "utterances": [index, index]},
                            recorded_at=now,
                        )
                    )
    Fact.objects.bulk_create(facts, batch_size=2000)
    Evidence.objects.bulk_create(evidence, batch_size=2000)
    return len(facts)


def ingest(sample: dict):
    """Create the sample's user, source, transcripts and utterances.

    Returns (owner, {dia_id: utterance pk}, docs, {dia_id: (transcript pk, index)}).
    """
    from django.contrib.auth import get_user_model

    from wearables.models import Conversation, DayTranscript, Source, Utterance

    owner = get_user_model().objects.create(username=f"bench-{sample['sample_id']}")
    source = Source.objects.create(owner=owner, kind="limitless", enabled=False)
    by_date: dict = {}
    dia_to_pk: dict[str, int] = {}
    dia_to_turn: dict[str, tuple[int, int]] = {}
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
            dia_to_turn[turn["dia_id"]] = (day.pk, row.index)
            docs[row.pk] = f"{turn['speaker']}: {turn_text(turn)}"
    return owner, dia_to_pk, docs, dia_to_turn


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


def print_tables(title: str, modes: list[str], main_scores, adv_scores, by_cat) -> None:
    n_q = main_scores[modes[0]].n
    print(f"\n{title}: {n_q} questions (categories 1-4)")
    cats = sorted({c for m in modes for c in by_cat[m] if c != 5})
    header = f"{'retriever':<24} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'MRR':>6} | R@10 "
    print(header + " ".join(f"{CATEGORIES.get(c, c):>11}" for c in cats) + f" | {'adv R@10':>8}")
    for m in modes:
        row = " ".join(f"{v:6.3f}" for v in main_scores[m].row())
        per_cat = " ".join(f"{by_cat[m][c].row()[1]:11.3f}" for c in cats)
        print(f"{m:<24} {row} |      {per_cat} | {adv_scores[m].row()[1]:8.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(DEFAULT_PATH)], help="LoCoMo-format files (default: dev)")
    parser.add_argument("--facts", choices=["observations", "none"], default="observations")
    parser.add_argument("--no-minilm", action="store_true", help="skip the minilm rows (slow to embed on 2 cores)")
    parser.add_argument("--keep", action="store_true", help="keep the almanac_bench_locomo database afterwards")
    args = parser.parse_args()
    datasets = []
    for path in args.paths:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            print(f"error: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        if not isinstance(data, list) or not all(
            isinstance(s, dict) and "conversation" in s and "qa" in s for s in data
        ):
            print(f"error: {path} is not in LoCoMo format (a list of {{sample_id, conversation, qa}})", file=sys.stderr)
            return 2
        datasets.append((path, data))

    import django

    django.setup()
    from django.db import connection

    from ledger.recall import search
    from ledger.recall.embeddings import HashBackend, MiniLMBackend, current_backend, minilm_available
    from ledger.recall.services import embed_pending, index_anchors
    from wearables.recall_provider import TranscriptProvider

    creation = connection.creation
    bench_db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    print(f"database: {bench_db} (created for this run); default backend: {current_backend().space}")
    backends = {"hash": HashBackend()}
    if minilm_available() and not args.no_minilm:
        backends["minilm"] = MiniLMBackend()
    else:
        why = "--no-minilm" if args.no_minilm else "packaged model not installed"
        print(f"note: vector (minilm) skipped ({why})")
    try:
        for path, data in datasets:
            run_file(path, data, args, backends, search, embed_pending, index_anchors, TranscriptProvider())
    finally:
        if not args.keep:
            creation.destroy_test_db(bench_db, verbosity=0)
    return 0


def run_file(path, data, args, backends, search, embed_pending, index_anchors, provider) -> None:
    from ledger.recall.text import BM25

    with_facts = args.facts == "observations"
    modes = ["default"] + (["default+facts"] if with_facts else [])
    modes += ["bm25-floor", "fulltext", "fulltext+context", "+expansion"] + (["+anchors (facts)"] if with_facts else [])
    modes += [f"vector-{name}" for name in backends] + [f"hybrid-{name}" for name in backends]
    main_scores = {m: Scores() for m in modes}
    adv_scores = {m: Scores() for m in modes}
    by_cat = {m: defaultdict(Scores) for m in modes}
    timings = defaultdict(float)
    n_facts = 0
    for sample in data:
        t0 = time.perf_counter()
        owner, dia_to_pk, docs, dia_to_turn = ingest(sample)
        if with_facts:
            n_facts += ingest_observations(owner, sample, dia_to_turn)
            index_anchors(owner=owner)
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

            def run(mode, name, ranked=ranked, owner=owner, q=q, **kw):
                t0 = time.perf_counter()
                ranked[name] = list(search.rank_ids(provider, owner, q, mode, 20, **kw))
                timings[f"q-{name}"] += time.perf_counter() - t0

            if with_facts:
                run("default", "default+facts")
                run("anchors", "+anchors (facts)")
            with_no_facts(search, lambda: run("default", "default"))
            run("fulltext", "fulltext")
            run("context", "fulltext+context")
            run("expansion", "+expansion")
            for name, backend in backends.items():
                run("vector", f"vector-{name}", backend=backend)
                weights = {"fulltext": 1.0, "vector": 0.2 if name == "hash" else search.DENSE_VECTOR_WEIGHT}
                run("hybrid", f"hybrid-{name}", backend=backend, weights=weights)
            for m in modes:
                (adv_scores if cat == 5 else main_scores)[m].add(ranked[m], gold)
                by_cat[m][cat].add(ranked[m], gold)
    title = f"LoCoMo turn-level retrieval, {Path(path).name}: {len(data)} conversation(s)"
    if with_facts:
        title += f", {n_facts} observation facts"
    print_tables(title, modes, main_scores, adv_scores, by_cat)
    n_all = sum(s.n for s in by_cat["fulltext"].values()) or 1
    print("timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items() if not k.startswith("q-")))
    print(
        "per query (ms): "
        + ", ".join(f"{k[2:]} {1000 * v / n_all:.1f}" for k, v in timings.items() if k.startswith("q-"))
    )


def with_no_facts(search, fn):
    """Run ``fn`` with fact anchors switched off (the default pipeline on turns alone)."""
    saved = search.anchored_scores
    search.anchored_scores = lambda *a, **k: {}
    try:
        return fn()
    finally:
        search.anchored_scores = saved


if __name__ == "__main__":
    sys.exit(main())
