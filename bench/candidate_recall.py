"""Candidate recall of the extractor: the share of gold facts that have at least one matching candidate, before
any trust decision (the gate model can only accept what the extractor proposes).

    python bench/candidate_recall.py [--sets days,locomo,persona] [--misses N] [--limit-persona N]

Uses the labelled candidates of ``bench/gate_data.py`` (same matchers as ``bench/extraction.py``), rebuilt for the
current extractor. Prints, per set: gold items, items with a matching candidate about the right person, candidates,
candidates per 100 turns, and the share of candidates that match something true.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import gate_data  # noqa: E402


def _days(data: dict) -> tuple[int, set[str], list[str]]:
    from bench import extraction as xb

    days = xb.load_days([str(gate_data.DAYS_DIR)])
    gold = {f"{d['date']}:{f['id']}": f["fact"] for d in days for f in d["gold_facts"]}
    hit = {r["match"].split(":", 1)[1] for r in data["records"] if r["label"] == 1 and r["match"].startswith("gold:")}
    return len(gold), hit & set(gold), [f"{k}: {v}" for k, v in gold.items() if k not in hit]


def _locomo(data: dict) -> tuple[int, set[str], list[str]]:
    from bench import extraction as xb
    from bench import extraction_locomo as xl

    obs = xl.observations(json.loads(gate_data.LOCOMO_PATH.read_text()))
    by_ref: dict[tuple, list[dict]] = {}
    for r in data["records"]:
        for ref in r.get("dia_ids", []):
            by_ref.setdefault((r["sample_id"], ref), []).append(r)
    hit, misses = set(), []
    for n, o in enumerate(obs):
        names = xl._name_tokens(o["person"])
        ok = any(
            r["subject_label"] == o["person"]
            and xb.match_score(o["text"], r["content"], names)[0] >= gate_data.THRESHOLD
            for ref in o["dia_ids"]
            for r in by_ref.get((o["sample_id"], ref), [])
        )
        if ok:
            hit.add(str(n))
        else:
            misses.append(f"{o['person']}: {o['text']}")
    return len(obs), hit, misses


def _persona(data: dict) -> tuple[int, set[str], list[str]]:
    gold = {g["id"]: g["text"] for items in data["gold"].values() for g in items}
    hit = {r["match"] for r in data["records"] if r["label"] == 1}
    return len(gold), hit & set(gold), [f"{k}: {v}" for k, v in gold.items() if k not in hit]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="days,locomo,persona")
    parser.add_argument("--misses", type=int, default=0, help="print this many missed gold items per set")
    args = parser.parse_args(argv)
    print("| set | gold | with a candidate | candidate recall | candidates | per 100 turns | candidates matching |")
    print("|---|---|---|---|---|---|---|")
    missed = {}
    for name in args.sets.split(","):
        started = time.perf_counter()
        data = gate_data.load(name, refresh=True)
        total, hit, misses = {"days": _days, "locomo": _locomo, "persona": _persona}[name](data)
        recs = data["records"]
        turns = sum(data["turns"].values())
        pos = sum(1 for r in recs if r["label"] == 1)
        print(
            f"| {name} | {total} | {len(hit)} | {len(hit) / max(total, 1):.2f} | {len(recs)} | "
            f"{100 * len(recs) / max(turns, 1):.1f} | {pos / max(len(recs), 1):.2f} |  ({time.perf_counter() - started:.0f}s)"
        )
        missed[name] = misses
    for name, misses in missed.items():
        for m in misses[: args.misses]:
            print(f"  miss {name}: {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
