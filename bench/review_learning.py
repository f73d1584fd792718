"""Learning from review: a simulated reviewer answers the first half of each development set through the real
Review API, then the second half runs with and without what the gate learned.

    python bench/review_learning.py [--days DIR] [--locomo PATH] [--sessions N] [--budget N] [--keep]

Runs in its own database (``almanac_bench_review_learning`` on the configured server, dropped at the end unless
``--keep``). For each development set (the labeled wearable days, and each LoCoMo conversation) two owners see
the same talk in the same order:

- first half: every day (or session) goes through the real gate (wearable days through the transcript pipeline
  and ``run_memory_pass``; chat sessions through ``distill.services.distill``), then the reviewer reads the
  queue with ``GET /api/v1/review/?band=queue`` and decides every item with ``POST /api/v1/review/decide``
  (bearer token, Django test client, full middleware): accept when it matches a gold fact about the right
  person (the labeled-days reference matcher; also_true counts as true), "not about me" when it matches a fact
  about someone else, reject otherwise. Then ``POST /api/v1/review/learning/refit``.
- second half: the *learner* keeps its adjustment; the *control* made the same decisions but its adjustment is
  switched off. Both run the same talk; nobody reviews.

Printed per set: the second half's review band (pending candidates before the daily budget) and queue (what
entered review) per 100 turns, accepted precision (gold / (accepted − neutral); chats: share of accepted that
match an observation of their turn), what the gate learned, and the shrink. Target: the learner's review band
is ≥ 30 % smaller than the control's while its accepted precision is not lower (0.02 tolerance).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path
from unittest import mock
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

from bench import extraction, extraction_locomo  # noqa: E402
from bench._db import throwaway_database  # noqa: E402

BENCH_DB = "almanac_bench_review_learning"
SHRINK_TARGET = 0.30
PRECISION_TOLERANCE = 0.02


# --- running talk through the gate ------------------------------------------------------------------------
def new_owner(name: str, display: str, tz: str = "UTC"):
    from django.contrib.auth import get_user_model

    from accounts.services import create_token, update_settings

    user = get_user_model().objects.create_user(username=name, password="bench-pass-1234")
    update_settings(user=user, display_name=display, timezone_name=tz)
    _, token = create_token(owner=user, name="bench")
    return user, token


def run_wearable_day(owner, day: dict) -> int:
    """One labeled day through the transcript pipeline and the memory pass, as sync does. Returns turns."""
    from bench.extraction_real import raw_conversations
    from wearables.models import Source
    from wearables.services import memories as memory_services
    from wearables.services import transcripts as transcript_services
    from wearables.services.sync import process_day

    local_date, tz = date.fromisoformat(day["date"]), ZoneInfo(day["timezone"])
    turns = 0
    with mock.patch.object(transcript_services, "enqueue_memory_pass", lambda *_: None):
        for recording in day["recordings"]:
            source, _ = Source.objects.get_or_create(owner=owner, kind=recording["source"])
            Source.objects.filter(pk=source.pk).update(enabled=True)
            convos = process_day(owner, source, local_date, raw_conversations(recording), tz=tz)
            transcript, _ = transcript_services.write_day(
                owner=owner, source=source, local_date=local_date, tz_name=day["timezone"], convos=convos
            )
            turns += sum(len(c["utterances"]) for c in recording["conversations"])
            if transcript is not None:
                memory_services.run_memory_pass(transcript=transcript)
    return turns  # every device's utterances, as the labeled-days README counts them


def run_session(owner, session) -> int:
    from distill import services

    conv = extraction_locomo.neutral_conversation(session)
    services.distill(owner=owner, conversations=[conv], scope_key=conv.scope_key, source_key=conv.source_key)
    return len(session.turns)


def band_counts(owner, day_keys: set[str], judge=None) -> dict:
    """What the gate did with the given days: queued, dropped for the budget (claims of those days), and how
    many queued items the reviewer would accept (true, about the right person)."""
    from distill.models import Claim
    from distill.queue import BUDGET_REASON

    claims = Claim.objects.owned_by(owner).filter(day_key__in=day_keys).select_related("fact__subject_entity")
    facts = {c.fact_id: c for c in claims}
    queued = [c for c in facts.values() if c.queued]
    over = sum(1 for c in facts.values() if (c.fact.status_reason or "").startswith(BUDGET_REASON))
    true = sum(judge.decide(c.fact) == "accept" for c in queued) if judge is not None else None
    return {"queued": len(queued), "over_budget": over, "band": len(queued) + over, "queued_true": true}


# --- the simulated reviewer ---------------------------------------------------------------------------------
class Judge:
    """Decides a memory with the gold labels: accept, not_about_me or reject."""

    def __init__(self, kind: str, gold):
        self.kind, self.gold = kind, gold

    def decide(self, fact) -> str:
        return self._day(fact) if self.kind == "days" else self._chat(fact)

    def _day(self, fact) -> str:
        from distill.models import Claim

        day_key = Claim.objects.filter(fact=fact).values_list("day_key", flat=True).first()
        day = self.gold.get(day_key)
        if day is None:
            return "reject"
        mem = _memory(fact, day_key)
        names = tuple(day["wearer"].split()) + (day["wearer"].split()[0],)
        wearer_names = {n.lower() for n in names}
        cands = extraction.day_candidates(day, [])
        found = extraction.best_match(mem, cands, names, wearer_names)
        if found is not None:
            return "accept" if found["type"] in ("gold", "neutral") else "reject"
        if mem.subject == "wearer":  # the same words about someone else?
            other = extraction.Memory(mem.day, mem.decision, "", mem.content)
            elsewhere = extraction.best_match(other, [c for c in cands if c["about"] != "wearer"], names, wearer_names)
            if elsewhere is not None and elsewhere["type"] in ("gold", "neutral"):
                return "not_about_me"
        return "reject"

    def _chat(self, fact) -> str:
        refs = {(ev.source_ref or {}).get("dia_id") for ev in fact.evidence.all()}
        sample = next(((ev.source_ref or {}).get("sample_id") for ev in fact.evidence.all()), None)
        person = fact.subject_entity.name if fact.subject_entity_id else ""
        if fact.subject_kind == "user":
            person = self.gold["owners"].get(sample, "")
        matching = [
            o
            for o in self.gold["obs"]
            if o["sample_id"] == sample
            and refs & set(o["dia_ids"])
            and extraction.match_score(o["text"], fact.content, extraction_locomo._name_tokens(o["person"]))[0]
            >= extraction_locomo.THRESHOLD
        ]
        if any(o["person"] == person for o in matching):
            return "accept"
        return "not_about_me" if matching and fact.subject_kind == "user" else "reject"


def _memory(fact, day_key: str):
    subject = "wearer" if fact.subject_kind == "user" else (fact.subject_entity.name if fact.subject_entity_id else "")
    return extraction.Memory(day_key, fact.status, subject, fact.content)


def review_all(client, token: str, owner, judge: Judge) -> dict:
    """Read the whole queue through the API and decide every item; then refit. Returns decision counts."""
    from ledger.models import Fact

    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    counts: dict[str, int] = {}
    seen: set[str] = set()
    while True:
        page = client.get("/api/v1/review/", {"band": "queue", "include_held_back": "true", "limit": 200}, **headers)
        assert page.status_code == 200, page.content
        items = [i for i in page.json()["items"] if i["id"] not in seen]
        if not items:
            break
        for item in items:
            seen.add(item["id"])
            fact = Fact.objects.owned_by(owner).select_related("subject_entity").get(public_id=item["id"])
            action = judge.decide(fact)
            body = {"item": item["id"], "action": action}
            if action == "not_about_me":
                body["subject"] = "unknown"
            answer = client.post("/api/v1/review/decide", json.dumps(body), content_type="application/json", **headers)
            if answer.status_code != 200:  # 409: a decision on another item moved this one (merge, conflict)
                continue
            counts[action] = counts.get(action, 0) + 1
    refit = client.post("/api/v1/review/learning/refit", **headers)
    assert refit.status_code == 200, refit.content
    counts["_learned"] = refit.json()
    return counts


# --- precision of what the gate accepted --------------------------------------------------------------------
def day_precision(owner, days: list[dict]) -> tuple[int, int, int]:
    """(accepted, matching gold, neutral) over the given days, by the reference matcher."""
    from distill.models import Claim

    judge_days = {d["date"]: d for d in days}
    acc = gold = neutral = 0
    claims = Claim.objects.owned_by(owner).filter(day_key__in=judge_days).select_related("fact__subject_entity")
    for fact in {c.fact_id: c.fact for c in claims}.values():
        if fact.status not in ("accepted", "superseded"):
            continue
        day_key = Claim.objects.filter(fact=fact).values_list("day_key", flat=True).first()
        day = judge_days[day_key]
        names = tuple(day["wearer"].split()) + (day["wearer"].split()[0],)
        found = extraction.best_match(
            _memory(fact, day_key), extraction.day_candidates(day, []), names, {n.lower() for n in names}
        )
        acc += 1
        gold += bool(found and found["type"] == "gold")
        neutral += bool(found and found["type"] == "neutral")
    return acc, gold, neutral


def chat_precision(owner, judge: Judge, day_keys: set[str]) -> tuple[int, int, int]:
    from distill.models import Claim

    claims = Claim.objects.owned_by(owner).filter(day_key__in=day_keys).select_related("fact__subject_entity")
    facts = [f for f in {c.fact_id: c.fact for c in claims}.values() if f.status in ("accepted", "superseded")]
    return len(facts), sum(judge._chat(f) == "accept" for f in facts), 0


def _prec(acc: int, gold: int, neutral: int) -> float | None:
    return gold / (acc - neutral) if acc - neutral > 0 else None


# --- one development set ----------------------------------------------------------------------------------
def run_set(name: str, units: list, run_unit, day_of, judge: Judge, precision, display: str, tz: str, budget: int):
    from django.test import Client

    from distill.models import OwnerAdjustment
    from review.services import set_daily_budget

    half = len(units) // 2
    first, second = units[:half], units[half:]
    owners = {}
    for arm in ("learner", "control"):
        owner, token = new_owner(f"bench-{name}-{arm}", display, tz)
        set_daily_budget(owner=owner, daily_budget=budget)
        owners[arm] = (owner, token)
    client = Client()
    out: dict = {"set": name, "units": (len(first), len(second))}
    for arm, (owner, token) in owners.items():
        turns1 = sum(run_unit(owner, u) for u in first)
        band1 = band_counts(owner, {day_of(u) for u in first})
        t0 = time.perf_counter()
        decisions = review_all(client, token, owner, judge)
        review_s = time.perf_counter() - t0
        if arm == "control":
            OwnerAdjustment.objects.filter(owner=owner).update(status=OwnerAdjustment.Status.LEARNING)
        turns2 = sum(run_unit(owner, u) for u in second)
        band2 = band_counts(owner, {day_of(u) for u in second}, judge)
        out[arm] = {
            "turns": (turns1, turns2),
            "first": band1,
            "second": band2,
            "decisions": {k: v for k, v in decisions.items() if not k.startswith("_")},
            "learned": decisions["_learned"],
            "precision": precision(owner, {day_of(u) for u in second}),
            "review_seconds": review_s,
        }
    return out


def per100(n: int, turns: int) -> float:
    return 100.0 * n / turns if turns else 0.0


def report(result: dict) -> bool:
    learner, control = result["learner"], result["control"]
    turns = learner["turns"][1]
    lb, cb = learner["second"]["band"], control["second"]["band"]
    lq, cq = learner["second"]["queued"], control["second"]["queued"]
    lp, cp = _prec(*learner["precision"]), _prec(*control["precision"])
    shrink = 1 - lb / cb if cb else 0.0
    holds = lp is None or cp is None or lp >= cp - PRECISION_TOLERANCE
    ok = shrink >= SHRINK_TARGET and holds
    d = learner["decisions"]
    learned = learner["learned"]
    print(f"\n## {result['set']}  (first half {result['units'][0]}, second half {result['units'][1]})")
    print(
        f"first half: {learner['turns'][0]} turns, {learner['first']['band']} in the review band, reviewed through "
        f"the API: {d.get('accept', 0)} accept, {d.get('reject', 0)} reject, {d.get('not_about_me', 0)} not about "
        f"me ({learner['review_seconds']:.1f} s)"
    )
    print(
        f"learned: {learned['status']} from {learned['examples']} examples"
        + (f" ({learned['reason']})" if learned["reason"] else "")
        + (
            f", held-out precision {learned['adjusted_precision']:.2f}"
            if learned["adjusted_precision"] is not None
            else ""
        )
    )
    for rule in learned["rules"][:8]:
        print(f"  - the gate {rule['sentence']}")
    print(f"second half: {turns} turns")
    print("| | review band /100 turns | queued /100 turns | queued items true | accepted | accepted precision |")
    print("|---|---|---|---|---|---|")
    for label, arm, band, queued, prec in (
        ("control (same decisions, no adjustment)", control, cb, cq, cp),
        ("learner", learner, lb, lq, lp),
    ):
        acc, true = arm["precision"][0], arm["second"]["queued_true"]
        print(
            f"| {label} | {per100(band, turns):.1f} ({band}) | {per100(queued, turns):.1f} ({queued}) | "
            f"{true} of {queued} | {acc} | "
            f"{'n/a' if prec is None else f'{prec:.2f}'} |"
        )
    unasked = max(0, control["second"]["queued_true"] - learner["second"]["queued_true"])
    promoted = min(unasked, max(0, learner["precision"][1] - control["precision"][1]))
    print(
        f"review band shrinks by {shrink:.0%} (target ≥ {SHRINK_TARGET:.0%}); precision holds: {holds} -> {'PASS' if ok else 'FAIL'}"
        f"; true items no longer asked: {unasked} of {control['second']['queued_true']} "
        f"({promoted} accepted without asking, {unasked - promoted} dropped)"
    )
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", default=str(extraction.DEFAULT_DIR), help="labeled-days directory")
    parser.add_argument("--locomo", default=str(extraction_locomo.DEFAULT_PATH), help="LoCoMo dev JSON")
    parser.add_argument("--sessions", type=int, default=0, help="LoCoMo sessions per conversation (0 = all)")
    parser.add_argument("--budget", type=int, default=20, help="daily review budget of both owners")
    parser.add_argument("--only", choices=["days", "chats"], help="run one kind of set")
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    args = parser.parse_args(argv)
    for path in (args.days, args.locomo):
        if not Path(path).exists():
            print(f"not found: {path}", file=sys.stderr)
            return 2
    teardown = throwaway_database(BENCH_DB, keep=args.keep, test_client=True)
    import logging

    for name in ("distill", "ledger", "wearables", "django.request"):
        logging.getLogger(name).setLevel(logging.ERROR)
    print(f"# review learning bench — {platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    t0 = time.perf_counter()
    results = []
    try:
        if args.only in (None, "days"):
            days = extraction.load_days([args.days])
            judge = Judge("days", {d["date"]: d for d in days})
            results.append(
                run_set(
                    "labeled days", days, run_wearable_day, lambda d: d["date"], judge,
                    lambda owner, keys: day_precision(owner, [d for d in days if d["date"] in keys]),
                    days[0]["wearer"], days[0]["timezone"], args.budget,
                )
            )  # fmt: skip
        if args.only in (None, "chats"):
            data = json.loads(Path(args.locomo).read_text())
            sessions = extraction_locomo.load_sessions(data)
            for sample in data:
                mine = [s for s in sessions if s.sample_id == sample["sample_id"]]
                mine = mine[: args.sessions] if args.sessions else mine
                gold = {
                    "obs": extraction_locomo.observations([sample]),
                    "owners": {sample["sample_id"]: sample["conversation"]["speaker_a"]},
                }
                judge = Judge("chats", gold)
                results.append(
                    run_set(
                        f"LoCoMo {sample['sample_id']}", mine, run_session,
                        lambda s: s.started_at.date().isoformat() if s.started_at else "", judge,
                        lambda owner, keys, j=judge: chat_precision(owner, j, keys),
                        sample["conversation"]["speaker_a"], "UTC", args.budget,
                    )
                )  # fmt: skip
    finally:
        teardown()
    ok = all([report(r) for r in results])
    print(f"\n{len(results)} sets in {time.perf_counter() - t0:.0f} s: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
