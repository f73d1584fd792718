"""How far a per-turn decision with quoted memories can go on the labeled days, by the days' reference matcher.

    python bench/quoted_turns.py [--top 10,20,50,100]

1. **The matcher's ceiling for quotes**: every turn the labels name as a gold fact's evidence, quoted whole as
   the memory (subject: the wearer when the wearer speaks, else a third party named in the words), matched with
   the README's matcher (``bench/extraction.best_match``) against its day's facts, traps, ``also_true`` items and
   the earlier days' facts: how many match a gold fact at all.
2. **The frozen turn head leaving one wearer out** (``bench/train_turn_model.fit_turn_head``, C 0.002, the other
   five wearers' days and five sixths of the persona chats): each held-out wearer's day turns ranked by its logit;
   at each cut of ``--top``, the share of evidence turns (turn labels) and what the matcher makes of the quoted
   turns (hits, false, traps).

Reads the turn cache of ``bench/turn_data.py`` (the encoder's vectors are computed once, about 40 minutes on two
shared cores, then cached under ``var/turn_cache``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import extraction as xb  # noqa: E402
from bench import gate_data, turn_data  # noqa: E402
from bench import train_turn_model as ttm  # noqa: E402


def day_items(days: list[dict]) -> dict[str, list[dict]]:
    """Each day's matcher candidates: its gold, traps and also_true, and the wearer's earlier facts (neutral)."""
    out = {}
    for day in days:
        earlier = [
            {"type": "neutral", "id": f"{d['date']}:{f['id']}", "about": f["about"], "who": f.get("who", ""), "text": f["fact"]}
            for d in days
            if d["wearer"] == day["wearer"] and d["date"] < day["date"]
            for f in d["gold_facts"]
        ]
        out[day["date"]] = xb.day_candidates(day, earlier)
    return out


def judge(row: dict, day: dict, items: list[dict]) -> dict | None:
    """The labelled item the quoted turn matches best (a gold fact preferred), or None."""
    names = (day["wearer"],)
    wearer = {n.lower() for n in day["wearer"].split()}
    best = None
    for subject in ("wearer" if row["is_owner"] else row["speaker"], ""):
        mem = xb.Memory(day=day["date"], decision="accepted", subject=subject, content=row["text"])
        found = xb.best_match(mem, items, names, wearer)
        if found is not None and (best is None or found["type"] == "gold"):
            best = found
    return best


def main(argv=None) -> int:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", default="10,20,50,100")
    args = parser.parse_args(argv)
    cuts = [int(x) for x in args.top.split(",")]
    gate_data._setup()
    rows_d, vec_d = turn_data.load("days")
    rows_p, vec_p = turn_data.load("persona")
    for r in rows_d:
        r["set"] = "days"
    for r in rows_p:
        r["set"] = "persona"
    turns = rows_d + rows_p
    F = np.vstack([ttm.turn_features(rows_d, vec_d), ttm.turn_features(rows_p, vec_p)])
    days = xb.load_days([str(gate_data.DAYS_DIR)])
    by_date, items = {d["date"]: d for d in days}, day_items(days)
    wearers = sorted({d["wearer"] for d in days})
    persona = sorted({r["group"] for r in rows_p})
    fold = {g: wearers[i % len(wearers)] for i, g in enumerate(persona)}
    unit = [by_date[r["day"]]["wearer"] if r["set"] == "days" else fold[r["group"]] for r in turns]

    verdicts = Counter()
    for r in rows_d:
        if r["label"] == 1:
            found = judge(r, by_date[r["day"]], items[r["day"]])
            verdicts["gold" if found and found["type"] == "gold" else "other"] += 1
    total = sum(verdicts.values())
    print(f"Evidence turns of gold facts, quoted whole: {verdicts['gold']} of {total} match a gold fact "
          f"({verdicts['gold'] / max(total, 1):.0%}).")
    print("\n| held-out wearer | top | evidence turns | quoted: gold hits | false | traps | neutral or repeats |")
    print("|---|---|---|---|---|---|---|")
    for number, w in enumerate(wearers, start=1):
        head = ttm.fit_turn_head(F, turns, [i for i in range(len(turns)) if unit[i] != w], 0.002)
        held = [i for i in range(len(rows_d)) if unit[i] == w]
        order = np.argsort(-ttm.turn_logits(F, head, held), kind="stable")
        hit, counts = set(), Counter()
        for rank, k in enumerate(order, start=1):
            r = turns[held[k]]
            counts["evidence"] += r["label"] == 1
            found = judge(r, by_date[r["day"]], items[r["day"]])
            if found is None:
                counts["false"] += 1
            elif found["type"] == "gold" and found["id"] not in hit:
                hit.add(found["id"])
                counts["gold"] += 1
            elif found["type"] == "trap":
                counts["false"] += 1
                counts["trap"] += 1
            else:
                counts["neutral"] += 1
            if rank in cuts:
                print(f"| {number} | {rank} | {counts['evidence']} ({counts['evidence'] / rank:.0%}) | {counts['gold']} | "
                      f"{counts['false']} | {counts['trap']} | {counts['neutral']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
