"""LoCoMo recall benchmark: turn-level R@k over chat turns, and block recall of the context block an agent gets.

    .venv/bin/python bench/locomo.py [PATH ...] [--facts none,extracted,observations] [--dense] [--fresh]

PATH: any file in LoCoMo's original format (a list of {sample_id, conversation, qa}); default the development
split ../shared/bench/locomo-dev.json. Everything runs in its own database ``almanac_bench_locomo`` on the
configured PostgreSQL server (kept between runs so migrations run once; ``--fresh`` rebuilds it). Each run
creates its own users and removes them at the end.

How a conversation gets in: as a user would, through the chats source. Each session is one
``POST /api/v1/chats/conversations`` (participants: both speakers, the first one the owner; turns with the
session's date), answered and distilled at once like any import. One user per conversation and facts mode:

- ``none``: memory is switched off for the import source (the gate policy's mode "off"): turns only.
- ``extracted``: the trust gate runs as it does for a user; the memories it keeps (every fact the facts layer
  may answer with: accepted, and pending where the permitted uses allow) are recall's fact anchors, linked to
  the turns their evidence names by ``index_anchors`` (what the ``recall-reembed`` schedule runs).
- ``observations``: memory off as in ``none``; the file's ``observation`` facts (what the dataset's authors drew
  from each session, with the turn each rests on) are stored as accepted ledger facts about their speaker with
  chat evidence on that turn. An ideal extractor: an upper bound of the mechanism.

Per question (categories 1-4; 5 "adversarial" reported apart):
- R@5/R@10/R@20 (share of the question's gold evidence turns in the top k) and MRR (first gold turn) of the
  default turn ranking (``search_provider`` over chat turns with the configured backend);
- block recall: ``POST /api/v1/memory/recall {"query"}`` (default budget and scope, the gate deciding) as an
  agent would, counted found when a gold turn is in the block: the turn itself, or a fact or a moment episode
  whose evidence rests on that turn (a session episode spans the whole session and does not count); the
  share of gold turns found, averaged; and the block's mean tokens.
``--dense`` adds the minilm hybrid rows when the packaged model is installed (and reports embedding time).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import uuid
from collections import defaultdict
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_locomo"

DEFAULT_PATH = (
    next(
        (
            p
            for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
            if (p / "bench" / "locomo-dev.json").exists()
        ),
        ROOT.parent / "shared",
    )
    / "bench"
    / "locomo-dev.json"
)
KS = (5, 10, 20)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
FACT_MODES = ("none", "extracted", "observations")
IMPORT_SOURCE = "chat:import"


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


def load_file(path: str) -> list[dict]:
    """A LoCoMo-format file, or SystemExit(2) with one readable line."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: cannot read {path}: {exc}") from None
    if (
        not isinstance(data, list)
        or not data
        or not all(isinstance(s, dict) and "conversation" in s and "qa" in s for s in data)
    ):
        raise SystemExit(f"error: {path} is not in LoCoMo format (a list of {{sample_id, conversation, qa}})")
    return data


# --- Getting a conversation in, as a user would -----------------------------------------------------------
class Bench:
    """One bench user with an API token, talking to the app through the test client."""

    def __init__(self, username: str):
        from django.contrib.auth import get_user_model
        from django.test import Client

        from accounts.services import create_token

        self.owner = get_user_model().objects.create(username=username)
        _, token = create_token(owner=self.owner, name="bench")
        self.headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        self.client = Client()

    def post(self, path: str, body: dict, method: str = "post") -> dict:
        send = getattr(self.client, method)
        resp = send(path, json.dumps(body, default=str), content_type="application/json", **self.headers)
        if resp.status_code != 200:
            raise SystemExit(f"error: {path} answered {resp.status_code}: {resp.content[:300]!r}")
        return resp.json()

    def put(self, path: str, body: dict) -> dict:
        return self.post(path, body, method="put")


def memory_off(owner) -> None:
    """The person's own switch: memory off for the import source (distill's gate policy mode "off")."""
    from distill.models import GatePolicy, Mode

    GatePolicy.objects.update_or_create(owner=owner, source_key=IMPORT_SOURCE, defaults={"mode": Mode.OFF})


def import_sample(bench: Bench, sample: dict) -> tuple[dict[str, int], dict[str, tuple[str, int]], dict]:
    """Each session through ``POST /api/v1/chats/conversations``; returns ({dia_id: chat turn pk},
    {dia_id: (session public id, turn index)}, outcome counts)."""
    from chats.models import ChatTurn

    conv = sample["conversation"]
    a, b = conv.get("speaker_a"), conv.get("speaker_b")
    participants = [{"name": a, "is_owner": True}, {"name": b}] if a and b else []
    if a:  # the person whose memory this is says what they are called (Settings), as a user would
        bench.put("/api/v1/settings", {"display_name": a})
    dia_to_pk: dict[str, int] = {}
    dia_to_turn: dict[str, tuple[str, int]] = {}
    outcomes: dict[str, int] = defaultdict(int)
    for n, when, turns in sessions(conv):
        names = {t["speaker"] for t in turns}
        people = participants if names <= {a, b} else [{"name": s, "is_owner": s == a} for s in sorted(names)]
        out = bench.post(
            "/api/v1/chats/conversations",
            {
                "external_id": f"{sample['sample_id']}:session_{n}",
                "title": f"{sample['sample_id']} session {n}",
                "started_at": when.isoformat(),
                "participants": people,
                "turns": [{"speaker": t["speaker"], "text": turn_text(t), "at": when.isoformat()} for t in turns],
            },
        )
        outcomes[out["outcome"].split(":")[0]] += 1
        rows = dict(
            ChatTurn.objects.filter(owner=bench.owner, session__public_id=out["session_id"]).values_list("index", "pk")
        )
        for i, turn in enumerate(turns):
            if i in rows:
                dia_to_pk[turn["dia_id"]] = rows[i]
                dia_to_turn[turn["dia_id"]] = (out["session_id"], i)
    return dia_to_pk, dia_to_turn, dict(outcomes)


def store_observations(owner, sample: dict, dia_to_turn: dict[str, tuple[str, int]]) -> int:
    """The sample's observations as accepted ledger facts about their speaker, with chat evidence on their turn."""
    from django.utils import timezone

    from ledger.models import Entity, Evidence, Fact, Status

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
                        owner=owner, public_id=uuid.uuid4(), content=str(entry[0]), subject_entity=entities[speaker],
                        status=Status.ACCEPTED, recorded_at=now, updated_at=now,
                        proposition_key=uuid.uuid4().hex, text_key=uuid.uuid4().hex,
                        created_commit_id="bench", last_commit_id="bench",
                    )  # fmt: skip
                    session, index = dia_to_turn[dia]
                    facts.append(fact)
                    evidence.append(
                        Evidence(
                            owner=owner,
                            public_id=uuid.uuid4(),
                            fact=fact,
                            source_type="chat",
                            source_ref={"session": session, "turn": index},
                            recorded_at=now,
                        )  # fmt: skip
                    )
    Fact.objects.bulk_create(facts, batch_size=2000)
    Evidence.objects.bulk_create(evidence, batch_size=2000)
    return len(facts)


def memory_counts(owner) -> dict[str, int]:
    from ledger.models import Fact
    from ledger.recall.ledger_providers import FactProvider

    by_status = defaultdict(int)
    for status in Fact.objects.filter(owner=owner).values_list("status", flat=True):
        by_status[str(status)] += 1
    usable = FactProvider().queryset(owner).count()
    return {"facts": sum(by_status.values()), "usable": usable, **by_status}


# --- What the block holds -----------------------------------------------------------------------------------
def evidence_turns(owner) -> dict[str, set[int]]:
    """{block source_ref: chat turn pks its evidence rests on}: facts through their anchors, moment episodes
    through the turn they quote."""
    from chats.models import ChatTurn
    from ledger.models import Episode
    from ledger.recall.models import Anchor

    out: dict[str, set[int]] = defaultdict(set)
    for fact_public, ref in Anchor.objects.filter(owner=owner, kind="chat_turn").values_list(
        "fact__public_id", "ref_id"
    ):
        out[f"fact:{fact_public}"].add(ref)
    turns = {
        (str(s), i): pk
        for pk, s, i in ChatTurn.objects.filter(owner=owner).values_list("pk", "session__public_id", "index")
    }
    for public_id, ref in Episode.objects.filter(owner=owner).values_list("public_id", "source_ref"):
        ref = ref or {}
        if "turn" in ref and (str(ref.get("session")), ref.get("turn")) in turns:
            out[f"episode:{public_id}"].add(turns[(str(ref["session"]), ref["turn"])])
    return out


def block_turns(items: list[dict], by_ref: dict[str, set[int]], turn_refs: dict[str, int]) -> set[int]:
    found: set[int] = set()
    for item in items:
        ref = item.get("source_ref") or ""
        if ref in turn_refs:
            found.add(turn_refs[ref])
        found |= by_ref.get(ref, set())
    return found


# --- Scores -------------------------------------------------------------------------------------------------
class Scores:
    def __init__(self):
        self.sums = defaultdict(float)
        self.n = 0

    def add(self, ranked: list, gold: set, block: set | None = None, tokens: int = 0):
        self.n += 1
        for k in KS:
            self.sums[f"R@{k}"] += len(gold & set(ranked[:k])) / len(gold)
        self.sums["MRR"] += next((1.0 / i for i, ref in enumerate(ranked, start=1) if ref in gold), 0.0)
        if block is not None:
            self.sums["block"] += len(gold & block) / len(gold)
            self.sums["tokens"] += tokens

    def get(self, col: str) -> float:
        return self.sums[col] / self.n if self.n else 0.0


COLS = ("R@5", "R@10", "R@20", "MRR", "block", "tokens")


def print_table(title: str, rows: dict[str, tuple[Scores, Scores, dict[int, Scores]]]) -> None:
    print(f"\n{title}")
    print(f"{'retriever':<22} " + " ".join(f"{c:>6}" for c in COLS) + " | per category: R@10 / block / tokens")
    for name, (main, adv, by_cat) in rows.items():
        line = f"{name:<22} " + " ".join(
            f"{main.get(c):6.0f}" if c == "tokens" else f"{main.get(c):6.3f}" for c in COLS
        )
        cats = " ".join(
            f"{CATEGORIES[c]} {s.get('R@10'):.3f}/{s.get('block'):.3f}/{s.get('tokens'):.0f}"
            for c, s in sorted(by_cat.items())
            if c != 5
        )
        print(f"{line} | {cats} | adversarial {adv.get('R@10'):.3f}/{adv.get('block'):.3f} (n={main.n}+{adv.n})")


def evaluate(bench: Bench, sample: dict, dia_to_pk: dict, retrievers: dict, rows: dict, timings: dict) -> None:
    from chats.models import ChatTurn

    owner = bench.owner
    by_ref = evidence_turns(owner)
    turn_refs = {
        f"chat:{s}#{i}": pk
        for pk, s, i in ChatTurn.objects.filter(owner=owner).values_list("pk", "session__public_id", "index")
    }
    for qa in sample["qa"]:
        gold = {dia_to_pk[d] for d in evidence_ids(qa.get("evidence")) if d in dia_to_pk}
        if not gold:
            continue
        q, cat = str(qa["question"]), int(qa.get("category", 0))
        t0 = time.perf_counter()
        out = bench.post("/api/v1/memory/recall", {"query": q})
        timings["recall call"] += time.perf_counter() - t0
        block = block_turns(out["items"], by_ref, turn_refs)
        for name, rank in retrievers.items():
            t0 = time.perf_counter()
            ranked = rank(owner, q)
            timings[f"rank {name}"] += time.perf_counter() - t0
            main, adv, by_cat = rows[name]
            target = adv if cat == 5 else main
            with_block = name.endswith("default")
            target.add(ranked, gold, block if with_block else None, out["tokens"])
            by_cat[cat].add(ranked, gold, block if with_block else None, out["tokens"])


def retrievers_for(mode: str, dense) -> dict:
    from chats.recall_provider import ChatTurnProvider
    from ledger.recall import search

    provider = ChatTurnProvider()

    def default(owner, q):
        return list(search.rank_ids(provider, owner, q, "hybrid", 20))

    def fulltext(owner, q):
        return list(search.rank_ids(provider, owner, q, "fulltext", 20))

    out = {f"{mode}: default": default}
    if mode == "none":
        out["none: full text only"] = fulltext
    if dense is not None:

        def hybrid(owner, q):
            weights = {"fulltext": 1.0, "vector": search.DENSE_VECTOR_WEIGHT}
            return list(search.rank_ids(provider, owner, q, "hybrid", 20, backend=dense, weights=weights))

        out[f"{mode}: hybrid minilm"] = hybrid
    return out


def run_file(path: str, data: list[dict], modes: list[str], dense, nonce: str) -> None:
    from chats.recall_provider import ChatTurnProvider
    from ledger.recall import search
    from ledger.recall.services import embed_pending, index_anchors

    rows: dict = {}
    timings: dict = defaultdict(float)
    dense_times: dict = defaultdict(float)
    notes = []
    for mode in modes:
        retrievers = retrievers_for(mode, dense)
        for name in retrievers:
            rows[name] = (Scores(), Scores(), defaultdict(Scores))
        totals: dict = defaultdict(int)
        for sample in data:
            bench = Bench(f"locomo-{nonce}-{mode}-{sample['sample_id']}"[:150])
            if mode != "extracted":
                memory_off(bench.owner)
            t0 = time.perf_counter()
            dia_to_pk, dia_to_turn, outcomes = import_sample(bench, sample)
            for k, v in outcomes.items():
                totals[f"sessions {k}"] += v
            if mode == "observations":
                store_observations(bench.owner, sample, dia_to_turn)
            totals["anchors"] += index_anchors(owner=bench.owner)
            timings[f"import {mode}"] += time.perf_counter() - t0
            for k, v in memory_counts(bench.owner).items():
                totals[k] += v
            if dense is not None:
                t0 = time.perf_counter()
                n = embed_pending(owner=bench.owner, provider=ChatTurnProvider(), backend=dense)
                timings["embed minilm"] += time.perf_counter() - t0
                dense_times["seconds"] += time.perf_counter() - t0
                dense_times["turns"] += n
            search.forget_stats(bench.owner)
            evaluate(bench, sample, dia_to_pk, retrievers, rows, timings)
        notes.append(f"{mode}: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    print_table(f"LoCoMo, {Path(path).name}: {len(data)} conversation(s)", rows)
    for note in notes:
        print("  " + note)
    n_q = sum(len(s["qa"]) for s in data) or 1
    print("  timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    per_q = [f"{k} {1000 * v / n_q:.1f}" for k, v in timings.items() if k.startswith("rank")]
    per_q.append(f"recall call {1000 * timings['recall call'] / n_q / len(modes):.1f}")
    print("  per question (ms): " + ", ".join(per_q))
    if dense is not None and dense_times["turns"]:
        questions = [str(qa["question"]) for s in data for qa in s["qa"]][:100]
        t0 = time.perf_counter()
        for q in questions:
            dense.embed([q])
        per_query = 1000 * (time.perf_counter() - t0) / max(1, len(questions))
        print(
            f"  minilm: {1000 * dense_times['seconds'] / dense_times['turns']:.1f} ms per turn to embed "
            f"({dense_times['turns']} turns), {per_query:.1f} ms per query embedding ({len(questions)} questions); "
            f"load {os.getloadavg()[0]:.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(DEFAULT_PATH)], help="LoCoMo-format files (default: dev)")
    parser.add_argument("--facts", default=",".join(FACT_MODES), help="comma-separated: none,extracted,observations")
    parser.add_argument("--dense", action="store_true", help="add the minilm hybrid rows (packaged model needed)")
    parser.add_argument("--fresh", action="store_true", help="rebuild the almanac_bench_locomo database")
    args = parser.parse_args()
    modes = [m.strip() for m in args.facts.split(",") if m.strip()]
    bad = [m for m in modes if m not in FACT_MODES]
    if bad or not modes:
        print(f"error: --facts takes {', '.join(FACT_MODES)} (comma-separated), not {args.facts!r}", file=sys.stderr)
        return 2
    datasets = [(path, load_file(path)) for path in args.paths]

    import logging

    import django

    django.setup()
    for name in ("django-q", "distill"):  # one line per queued task / per distill pass
        logging.getLogger(name).setLevel(logging.WARNING)
    from django.contrib.auth import get_user_model
    from django.db import connection

    from ledger.recall.embeddings import MiniLMBackend, current_backend, minilm_available

    creation = connection.creation
    db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=not args.fresh, serialize=False)
    dense = None
    if args.dense:
        if minilm_available():
            dense = MiniLMBackend()
        else:
            print("note: --dense skipped (packaged model not installed)")
    print(f"database: {db}; default backend: {current_backend().space}; load {os.getloadavg()[0]:.1f}")
    nonce = uuid.uuid4().hex[:8]
    try:
        for path, data in datasets:
            run_file(path, data, modes, dense, nonce)
    finally:
        from django_q.models import OrmQ

        OrmQ.objects.all().delete()  # queued usage feedback: no worker runs on the bench database
        get_user_model().objects.filter(username__startswith=f"locomo-{nonce}-").delete()
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
