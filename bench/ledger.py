"""Ledger benchmark: append throughput, replay/verify time, and refusal non-resurrection over paraphrases.

    python bench/ledger.py [--commits 100000] [--claims 150] [--propose 2000] [--keep]

Runs in its own database, never the user's: ``almanac_bench`` is created on the configured server (the
embedded PostgreSQL in ALMANAC_HOME, or the server of DATABASE_URL) and dropped at the end (``--keep`` keeps
it). Prints one table.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import throwaway_database  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

BENCH_DB = "almanac_bench"
OTHER_SOURCES = ("agent:mcp", "chat:import", "wearable:2")
CHANGE_OPENERS = ("Since last month,", "These days", "As of this spring,")

# --- paraphrase generator ---------------------------------------------------------------------------------
# Each template: canonical claim, paraphrases of it, and the slot that makes a *different* claim when changed.
TEMPLATES = [
    (
        "{p} lives in {city}",
        ["{p} resides in {city}", "{p} is living in {city} now", "{p} is based in {city}",
         "Apparently {p} lives in {city}", "{city} is where {p} lives", "{p} has been living in {city}"],
        "city",
    ),
    (
        "{p} works at {org}",
        ["{p} is employed at {org}", "{p} is working at {org}", "{p} has a job at {org}",
         "{p} works for {org}, they said", "At {org} is where {p} works"],
        "org",
    ),
    (
        "{p} likes {thing}",
        ["{p} loves {thing}", "{p} really enjoys {thing}", "{p} is fond of {thing}", "{p} likes {thing} a lot",
         "You know, {p} likes {thing}"],
        "thing",
    ),
    (
        "{p} is allergic to {food}",
        ["{p} has a {food} allergy", "{p} is seriously allergic to {food}", "{p}'s allergic to {food}",
         "{p} is apparently allergic to {food}"],
        "food",
    ),
    (
        "{p} has a dentist appointment on {month} {day}",
        ["{p} has a dentist appointment {month} {day}", "On {month} {day} {p} has a dentist appointment",
         "{p}'s dentist appointment is on {month} {day}"],
        "day",
    ),
    (
        "{p} is moving to {city} in {month}",
        ["{p} is relocating to {city} in {month}", "In {month} {p} moves to {city}",
         "{p} will be moving to {city} in {month}"],
        "city",
    ),
    (
        "{p} bought a {item}",
        ["{p} purchased a {item}", "{p} just bought a new {item}", "{p} bought a {item} last week"],
        "item",
    ),
    (
        "{p} plays the {instrument}",
        ["{p} is playing the {instrument}", "{p} plays {instrument} on weekends", "{p} played the {instrument}"],
        "instrument",
    ),
]  # fmt: skip
# Held-out paraphrase forms, written after the normalizer and never used to tune it: a fairer estimate.
HARD = {
    "{p} lives in {city}": ["{p} calls {city} home", "{p}'s place is in {city}", "{p} settled down in {city}",
                            "{p} now makes a home in {city}"],
    "{p} works at {org}": ["{p} got hired at {org}", "{p} is on staff at {org}", "{p} earns a living at {org}"],
    "{p} likes {thing}": ["{p} adores {thing}", "{p} is really into {thing}", "{p} is a big fan of {thing}"],
    "{p} is allergic to {food}": ["{food} makes {p} break out in hives", "{p} reacts badly to {food}",
                                  "{p} can't have {food} because of an allergy"],
    "{p} has a dentist appointment on {month} {day}": ["{p} sees the dentist on {month} {day}",
                                                       "Dentist for {p} on {month} {day}"],
    "{p} is moving to {city} in {month}": ["{p} relocates to {city} come {month}",
                                           "{p} heads to {city} for good in {month}"],
    "{p} bought a {item}": ["{p} picked up a {item}", "{p} got a {item}"],
    "{p} plays the {instrument}": ["{p} knows how to play the {instrument}", "{p} is a {instrument} player"],
}  # fmt: skip
VALUES = {
    "city": ["Denver", "Boston", "Lisbon", "Portland", "Austin", "Oslo", "Nairobi", "Kyoto", "Toronto", "Lima"],
    "org": ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Enterprises", "Vandelay"],
    "thing": ["jazz", "hiking", "sushi", "board games", "cold brew", "chess", "sailing", "pottery"],
    "food": ["peanuts", "shellfish", "penicillin", "gluten", "sesame", "strawberries"],
    "month": ["March", "April", "June", "October", "December"],
    "day": [str(d) for d in range(1, 29)],
    "item": ["kayak", "used car", "standing desk", "espresso machine", "road bike", "piano"],
    "instrument": ["cello", "bass", "violin", "drums", "trumpet", "ukulele"],
}
PEOPLE = [("user", None), ("third_party", "Maya Lopez"), ("third_party", "Sam Ortiz"), ("third_party", "Priya Shah")]


def _subject_word(subject: str, person: str | None) -> str:
    return "I" if subject == "user" else person


def generate_claims(n: int, rng: random.Random):
    """(subject, person, claim, paraphrases, different_claim, held_out_paraphrases) tuples."""
    out = []
    seen = set()
    while len(out) < n:
        template, paraphrases, slot = rng.choice(TEMPLATES)
        subject, person = rng.choice(PEOPLE)
        # Claims draw from all but the last two values of each slot; the "different claim" uses one of those
        # held-out values, so it can never coincide with another rejected claim in the set.
        values = {k: rng.choice(v[:-2]) for k, v in VALUES.items()}
        values["p"] = _subject_word(subject, person)
        claim = template.format(**values)
        if (subject, person, claim) in seen:
            continue
        seen.add((subject, person, claim))
        other = dict(values)
        other[slot] = rng.choice(VALUES[slot][-2:])
        out.append(
            (
                subject,
                person,
                claim,
                [p.format(**values) for p in paraphrases],
                template.format(**other),
                [p.format(**values) for p in HARD[template]],
            )
        )
    return out


# --- database ---------------------------------------------------------------------------------------------
def machine_info() -> list[tuple[str, str]]:
    from django.db import connection

    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    with connection.cursor() as cur:
        cur.execute("SHOW server_version")
        pg = cur.fetchone()[0]
    mem = ""
    try:
        mem = subprocess.run(["free", "-g"], capture_output=True, text=True).stdout.splitlines()[1].split()[1] + " GB"
    except (OSError, IndexError):
        pass
    return [
        ("CPU", f"{cpu} x {os.cpu_count()}"),
        ("Memory", mem),
        ("PostgreSQL", pg),
        ("Python", platform.python_version()),
    ]


# --- benchmarks -------------------------------------------------------------------------------------------
def bench_append(owner, n: int) -> dict:
    from ledger import services

    t0 = time.perf_counter()
    for i in range(n):
        services.commit(
            owner=owner,
            author="extractor",
            mutations=[
                {
                    "type": "add_fact",
                    "subject_kind": "user",
                    "status": "accepted",
                    "capture_confidence": 0.8,
                    "veracity": 0.7,
                    "payload": {"content": f"Benchmark fact number {i} about topic {i % 97}", "tags": ["bench"]},
                },
                {
                    "type": "add_evidence",
                    "fact_id": "$0",
                    "source_type": "transcript",
                    "capture_confidence": 0.8,
                    "payload": {"source_ref": {"transcript_id": i // 50, "utterances": [i % 50, i % 50 + 1]}},
                },
            ],
        )
        if n >= 10000 and (i + 1) % 10000 == 0:
            rate = (i + 1) / (time.perf_counter() - t0)
            print(f"  appended {i + 1:>7} commits ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    return {"n": n, "seconds": elapsed, "rate": n / elapsed}


def bench_propose(owner, n: int) -> dict:
    from ledger import services

    rng = random.Random(7)
    t0 = time.perf_counter()
    for i in range(n):
        services.propose_fact(
            owner=owner,
            content=f"Likes {rng.choice(VALUES['thing'])} with friend number {i}",
            status="accepted",
            veracity=0.7,
            capture_confidence=0.8,
            source_label="wearable:1",
            evidence=services.EvidenceIn(source_type="transcript", source_ref={"i": i}, source_label="wearable:1"),
        )
    elapsed = time.perf_counter() - t0
    return {"n": n, "seconds": elapsed, "rate": n / elapsed}


def bench_replay(owner) -> dict:
    from ledger import chain

    t0 = time.perf_counter()
    state, count = chain.replay_owner(owner)
    replay = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = chain.rebuild(owner, write=False)
    rebuild_check = time.perf_counter() - t0
    t0 = time.perf_counter()
    verify = chain.verify(owner)
    verify_s = time.perf_counter() - t0
    return {
        "commits": count,
        "facts": len(state.facts),
        "replay": replay,
        "rebuild_check": rebuild_check,
        "identical": report.identical_before,
        "verify": verify_s,
        "verify_ok": verify.ok,
    }


def bench_refusals(owner, n_claims: int) -> dict:
    from ledger import services

    rng = random.Random(42)
    claims = generate_claims(n_claims, rng)
    rejected = []
    for item in claims:
        subject, person, claim = item[:3]
        r = services.propose_fact(
            owner=owner, content=claim, subject=subject, person=person, source_label="wearable:1",
            status="pending_review", veracity=0.6, capture_confidence=0.8, on_duplicate="new",
        )  # fmt: skip
        if r.fact is None:
            continue  # already refused as a paraphrase of an earlier claim: keep the set unambiguous
        services.decide(owner=owner, fact=r.fact, status="rejected", reason="bench")
        rejected.append(item)
    claims = rejected
    exact = para = para_refused = other = other_refused = cross = cross_refused = cross_back = change = 0
    misses, false_refusals = [], []
    t0 = time.perf_counter()
    hard = hard_refused = 0
    for subject, person, claim, paraphrases, different, held_out in claims:
        kw = {"subject": subject, "person": person, "status": "pending_review", "veracity": 0.6}
        exact += services.propose_fact(owner=owner, content=claim, source_label="wearable:1", **kw).outcome == "refused"
        for p in paraphrases:
            para += 1
            refused = (
                services.propose_fact(owner=owner, content=p, source_label="wearable:1", **kw).outcome == "refused"
            )
            para_refused += refused
            if not refused and len(misses) < 8:
                misses.append(f"{claim!r} -> {p!r}")
        other += 1
        wrong = services.propose_fact(owner=owner, content=different, source_label="wearable:1", **kw)
        if wrong.outcome == "refused":
            other_refused += 1
            if len(false_refusals) < 8:
                false_refusals.append(f"{claim!r} / {different!r} ({wrong.refusal.matched_on})")
        for p in held_out:
            hard += 1
            hard_refused += (
                services.propose_fact(owner=owner, content=p, source_label="wearable:1", **kw).outcome == "refused"
            )
        for label in OTHER_SOURCES:
            cross += 1
            cross_refused += (
                services.propose_fact(owner=owner, content=paraphrases[0], source_label=label, **kw).outcome
                == "refused"
            )
        change += 1
        back = services.propose_fact(
            owner=owner,
            content=f"{CHANGE_OPENERS[change % len(CHANGE_OPENERS)]} {claim}",
            source_label="agent:mcp",
            evidence=services.EvidenceIn(source_type="chat", source_label="agent:mcp"),
            **kw,
        )
        cross_back += back.previously_rejected and back.fact is not None and back.fact.status == "pending_review"
    checks = len(claims) + para + other + hard + cross + change
    return {
        "claims": len(claims),
        "exact": exact / len(claims),
        "paraphrases": para,
        "non_resurrection": para_refused / para,
        "different": other,
        "held_out": hard,
        "held_out_non_resurrection": hard_refused / max(hard, 1),
        "false_refusal": other_refused / other,
        "cross_checks": cross,
        "cross_source_refused": cross_refused / max(cross, 1),
        "change_back": cross_back / max(change, 1),
        "ms_per_check": 1000 * (time.perf_counter() - t0) / checks,
        "misses": misses,
        "false_refusals": false_refusals,
    }


# Values written differently: digits vs words, ordinals, 12/24-hour times, currency symbols vs words.
ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split()
)
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
            9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth"}  # fmt: skip
VALUE_TEMPLATES = [
    ("{p} has kept bees for {v} years", lambda n: str(n), lambda n: _words(n), range(2, 60)),
    ("{p} swims {v} lengths every morning", lambda n: str(n), lambda n: _words(n), range(2, 99)),
    ("{p} paid {v} for the rowing machine", lambda n: f"${n}", lambda n: f"{_words(n)} dollars", range(20, 99)),
    ("{p}'s studio is on the {v} floor", lambda n: f"{n}th" if n > 3 else {1: "1st", 2: "2nd", 3: "3rd"}[n],
     lambda n: ORDINALS[n], range(1, 13)),
    ("{p}'s ferry leaves at {v}", lambda n: f"{n}:00", lambda n: f"{n - 12} pm", range(13, 23)),
]  # fmt: skip


def _words(n: int) -> str:
    if n < 20:
        return ONES[n]
    return TENS[n // 10] + ("" if n % 10 == 0 else "-" + ONES[n % 10])


def bench_values(owner, n_claims: int) -> dict:
    """Rejected claims with a value; the same value written in words must be refused, a different one not."""
    from ledger import services

    rng = random.Random(7)
    same = same_refused = diff = diff_refused = 0
    wrong: list[str] = []
    for i in range(n_claims):
        template, digits, words, pool = VALUE_TEMPLATES[i % len(VALUE_TEMPLATES)]
        subject, person = PEOPLE[i % len(PEOPLE)]
        # Rejected values are even, "different" values odd: a different value never equals another rejected one.
        a = rng.choice([n for n in pool if n % 2 == 0])
        b = rng.choice([n for n in pool if n % 2 == 1])
        who = _subject_word(subject, person)
        kw = {"subject": subject, "person": person, "status": "pending_review", "on_duplicate": "new"}
        claim = template.format(p=who, v=digits(a))
        r = services.propose_fact(owner=owner, content=claim, source_label="wearable:1", **kw)
        if r.fact is None:
            continue
        services.decide(owner=owner, fact=r.fact, status="rejected", reason="bench")
        same += 1
        same_refused += (
            services.propose_fact(
                owner=owner, content=template.format(p=who, v=words(a)), source_label="agent:mcp", **kw
            ).outcome
            == "refused"
        )
        diff += 1
        other = template.format(p=who, v=words(b))
        if services.propose_fact(owner=owner, content=other, source_label="agent:mcp", **kw).outcome == "refused":
            diff_refused += 1
            if len(wrong) < 8:
                wrong.append(f"{claim!r} / {other!r}")
    return {
        "claims": same,
        "same_refused": same_refused / max(same, 1),
        "different": diff,
        "different_refused": diff_refused / max(diff, 1),
        "wrong": wrong,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=100_000, help="single-fact commits to append (default 100000)")
    parser.add_argument("--propose", type=int, default=2000, help="facts admitted through propose_fact (default 2000)")
    parser.add_argument("--claims", type=int, default=150, help="rejected claims to re-extract as paraphrases")
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    parser.add_argument("--db-name", default=BENCH_DB, help=f"database to create and drop (default {BENCH_DB})")
    args = parser.parse_args(argv)

    teardown = throwaway_database(args.db_name, keep=args.keep)
    try:
        from django.contrib.auth import get_user_model

        User = get_user_model()
        info = machine_info()
        a = r = None
        if args.commits:
            print(f"appending {args.commits} commits into database {args.db_name} ...", file=sys.stderr, flush=True)
            a = bench_append(User.objects.create(username="bench-append"), args.commits)
            r = bench_replay(User.objects.get(username="bench-append"))
        p = bench_propose(User.objects.create(username="bench-propose"), args.propose) if args.propose else None
        f = bench_refusals(User.objects.create(username="bench-refusals"), args.claims)
        vals = bench_values(User.objects.create(username="bench-values"), args.claims)
    finally:
        teardown()

    rows = []
    if a:
        rows.append(
            (
                "Append: single-fact commits (raw commit API)",
                f"{a['n']:,} in {a['seconds']:.1f} s = {a['rate']:,.0f} commits/s",
            )
        )
    if p:
        rows.append(
            (
                "Admit via propose_fact (refusal+dedup checks)",
                f"{p['n']:,} in {p['seconds']:.1f} s = {p['rate']:,.0f} facts/s",
            )
        )
    if r:
        rows += [
            ("Replay chain into memory", f"{r['commits']:,} commits -> {r['facts']:,} facts in {r['replay']:.1f} s"),
            ("Rebuild --check (replay + compare tables)", f"{r['rebuild_check']:.1f} s, identical: {r['identical']}"),
            ("Verify (recompute every commit id)", f"{r['verify']:.1f} s, ok: {r['verify_ok']}"),
        ]
    rows += [
        ("Rejected claims re-extracted verbatim, refused", f"{f['exact']:.1%} of {f['claims']}"),
        ("Paraphrase non-resurrection rate (same source)", f"{f['non_resurrection']:.1%} of {f['paraphrases']}"),
        (
            "Non-resurrection, held-out paraphrase forms",
            f"{f['held_out_non_resurrection']:.1%} of {f['held_out']}",
        ),
        ("False refusals (different value, same template)", f"{f['false_refusal']:.1%} of {f['different']}"),
        (
            "Other sources (agent, chat import, another device) refused too",
            f"{f['cross_source_refused']:.1%} of {f['cross_checks']}",
        ),
        ("A change stated later comes back, to review only", f"{f['change_back']:.1%} of {f['claims']}"),
        (
            "Same value spelled out (words, ordinals, times, $) refused",
            f"{vals['same_refused']:.1%} of {vals['claims']}",
        ),
        (
            "Different value spelled out refused (false refusals)",
            f"{vals['different_refused']:.1%} of {vals['different']}",
        ),
        ("Admission check latency", f"{f['ms_per_check']:.1f} ms per proposal"),
    ]
    rows += info
    width = max(len(k) for k, _ in rows)
    print(f"{'Metric':<{width}} | Result")
    print(f"{'-' * width}-|-{'-' * 50}")
    for k, v in rows:
        print(f"{k:<{width}} | {v}")
    if f["misses"]:
        print("\nParaphrases that were not refused (sample):")
        for m in f["misses"]:
            print("  " + m)
    if f["false_refusals"] or vals["wrong"]:
        print("\nDifferent claims that were refused (sample):")
        for m in f["false_refusals"] + vals["wrong"]:
            print("  " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
