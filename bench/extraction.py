"""Score memory extraction and trust decisions on labeled wearable days and LoCoMo observations.

    python bench/extraction.py [DIR_OR_FILES...] [--locomo PATH] [--dry] [--verbose] [--misses] [--candidates]

Default input: ../shared/bench/labeled-days (any files in that format). Days run in date order for one fresh
user. Without --dry the real pipeline runs in a separate database (ALMANAC_HOME=/tmp/almanac-bench unless set):
utterances go through the transcript pipeline just after the connectors and are stored by the wearables
services, then ``run_memory_pass`` writes memories to the ledger. ``--dry`` runs the same pure memory pipeline
(``distill.pipeline``) without a database, for quick iteration. Prints the README's metrics table.

Always prints both development sets: the labeled wearable days and the LoCoMo observations
(``../shared/bench/locomo-dev.json``, see ``bench/extraction_locomo.py``: recall, attribution errors and
accepted memories per 100 turns).

Then the trust gate's model (``bench/gate_eval.py``) on every development set (labeled days, LoCoMo observations,
persona chats), cross-validated by conversation, with the targets it misses, and its speed (model load, a
2,000-turn day through parse + model + gate). ``--gate-only`` prints just that; ``--no-gate`` skips it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import extraction_locomo, gate_data  # noqa: E402

DEFAULT_DIR = gate_data.DAYS_DIR

# --- reference matcher (verbatim from the labeled-days README) ----------------------------------------
STOP = set(
    """a an the and or but of to in on at for from with by as is are was were be been being am has have
had do does did will would can could should may might shall this that these those it its he she they them his her
their there here who which what when where how so if then than very just about into over also like um uh okay oh
yeah really""".split()
)
SELF = {"i", "me", "my", "mine", "myself", "user", "wearer", "you", "your"}
NEG = {"not", "no", "never", "cannot", "cant", "dont", "doesnt", "didnt", "isnt", "wont", "arent", "wasnt"}
UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
ORD = {
    w: i + 1
    for i, w in enumerate(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
            "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
        ).split()
    )
}
ORD["thirtieth"] = 30
NUM = {w: i for i, w in enumerate(UNITS)} | TENS | ORD


def tokens(text, names=()):
    text = text.lower().replace("'s", "").replace("n't", "nt").replace("-", " ")
    raw, out, i = re.findall(r"[a-z]+|\d+", text), set(), 0
    skip = STOP | SELF | {n.lower() for n in names}
    while i < len(raw):
        t = raw[i]
        if t in TENS and i + 1 < len(raw) and NUM.get(raw[i + 1], 99) < 10:
            out.add(str(TENS[t] + NUM[raw[i + 1]]))
            i += 2
            continue
        if t in NUM:
            out.add(str(NUM[t]))
        elif t.isdigit():
            out.add(str(int(t)))
        elif t in NEG:
            out.add("not")
        elif t not in skip:
            out.add(t[:5])
        i += 1
    return out


def match_score(reference, memory, names=()):
    g, p = tokens(reference, names), tokens(memory, names)
    inter = len(g & p)
    if not g or not p or inter < min(2, len(g), len(p)):
        return (0.0, 0.0)
    return (max(inter / len(g), inter / len(p)), inter / len(g | p))


KIN = [
    {"mother", "mom", "ma", "mommy", "mum"},
    {"father", "dad", "daddy", "pa"},
    {"husband", "partner", "wife", "spouse"},
    {"sister", "sis"},
    {"brother", "bro"},
]
TITLES = {"dr", "mr", "mrs", "ms", "miss", "prof"}


# --- memories and matching ---------------------------------------------------------------------------
@dataclass
class Memory:
    day: str
    decision: str  # accepted | pending_review | dropped | (later: superseded, rejected, ...)
    subject: str  # "wearer" or the third party's name ("" when unknown)
    content: str
    source: str = ""
    corroborated_by: list[str] = field(default_factory=list)
    memory_id: str = ""
    current: bool = True
    note: str = ""  # score, kind and flags (diagnostics only)


def _who_tokens(who: str, wearer_names: set[str]) -> set[str]:
    words = {re.sub(r"'s$", "", w.lower()).strip(".'") for w in re.findall(r"[A-Za-z.']+", who or "")}
    words -= TITLES | wearer_names
    out = set(words)
    for group in KIN:
        if words & group:
            out |= group
    return {w for w in out if w}


def subject_ok(mem: Memory, about: str, who: str, wearer_names: set[str]) -> bool:
    if about == "wearer":
        return mem.subject == "wearer"
    if mem.subject == "wearer":
        return False
    hay = set(re.findall(r"[a-z]+", (mem.subject + " " + mem.content).lower()))
    return bool(_who_tokens(who, wearer_names) & hay)


def best_match(mem: Memory, candidates: list[dict], names: tuple, wearer_names: set[str]):
    best = None
    for cand in candidates:
        if not subject_ok(mem, cand["about"], cand.get("who", ""), wearer_names):
            continue
        s = match_score(cand["text"], mem.content, names)
        if s[0] >= 0.5 and (best is None or s > best[0]):
            best = (s, cand)
    return best[1] if best else None


def day_candidates(day: dict, earlier_current: list[dict]) -> list[dict]:
    out = []
    for f in day["gold_facts"]:
        out.append(
            {
                "type": "gold",
                "id": f"{day['date']}:{f['id']}",
                "about": f["about"],
                "who": f.get("who", ""),
                "text": f["fact"],
                "fact": f,
            }
        )
    for t in day["traps"]:
        out.append(
            {
                "type": "trap",
                "id": f"{day['date']}:{t['id']}",
                "about": t["false_about"],
                "who": t.get("false_who", ""),
                "text": t["false_claim"],
                "trap": t,
            }
        )
    for a in day.get("also_true", []):
        out.append(
            {
                "type": "neutral",
                "id": f"{day['date']}:{a['id']}",
                "about": a["about"],
                "who": a.get("who", ""),
                "text": a["fact"],
            }
        )
    for e in earlier_current:
        out.append({**e, "type": "neutral"})
    return out


MISSES: list[str] = []
ALL_CANDIDATES: list[Memory] = []  # every candidate of every pass, dropped ones included (for --misses)


def _utterance_at(day: dict, ev: dict) -> str:
    for rec in day["recordings"]:
        if rec["source"] != ev["source"]:
            continue
        for conv in rec["conversations"]:
            if conv["id"] == ev["conversation"] and ev["utterance_index"] < len(conv["utterances"]):
                u = conv["utterances"][ev["utterance_index"]]
                return f"{ev['source']}/{u['speaker']}{'*' if u['is_wearer'] else ''}: {u['text']}"
    return ""


def why_missed(day: dict, gold: dict, names: tuple, wearer_names: set[str]) -> str:
    """Why no accepted/queued memory hit this gold fact: not extracted, wrong subject, dropped, or a weak match."""
    fact = gold["fact"]
    best = None
    for mem in ALL_CANDIDATES:
        if mem.day != day["date"]:
            continue
        s = match_score(gold["text"], mem.content, names)
        ok = subject_ok(mem, gold["about"], gold.get("who", ""), wearer_names)
        key = (s[0] >= 0.5, ok, s)
        if best is None or key > best[0]:
            best = (key, mem)
    if best is None or best[0][2][0] == 0:
        reason = "not extracted"
    else:
        (above, ok, s), mem = best
        detail = f"{mem.decision} {mem.subject or '?'}: {mem.content!r} ({s[0]:.2f})"
        if above and not ok:
            reason = f"wrong subject: {detail}"
        elif above:
            reason = f"dropped by a gate: {detail}"
        else:
            reason = f"matched below threshold: {detail}"
    said = " || ".join(t for t in (_utterance_at(day, e) for e in fact.get("evidence", [])[:2]) if t)
    return f"    why: {reason}\n    said: {said}"


def score(days: list[dict], memories: list[Memory], stored_text: str = "") -> tuple[list[dict], list[str]]:
    rows, false_list = [], []
    superseded_ids = {f["supersedes"] for d in days for f in d["gold_facts"] if f.get("supersedes")}
    earlier: list[dict] = []
    fact_memory: dict[str, Memory] = {}
    for day in days:
        wearer = day["wearer"]
        names = tuple(w for w in wearer.split()) + (wearer.split()[0],)
        wearer_names = {n.lower() for n in names}
        cands = day_candidates(day, earlier)
        gold = [c for c in cands if c["type"] == "gold"]
        hit_by: dict[str, list[tuple[str, Memory]]] = {}
        acc_total = acc_gold = acc_neutral = traps_acc = traps_q = 0
        for mem in [m for m in memories if m.day == day["date"] and m.decision in ("accepted", "pending_review")]:
            m = best_match(mem, cands, names, wearer_names)
            accepted = mem.decision == "accepted"
            if accepted:
                acc_total += 1
            if m is None:
                if accepted:
                    false_list.append(f"{day['date']} [nothing] {mem.subject or '?'}: {mem.content}")
                continue
            if m["type"] == "gold":
                hit_by.setdefault(m["id"], []).append((mem.decision, mem))
                if accepted:
                    acc_gold += 1
            elif m["type"] == "trap":
                if accepted:
                    traps_acc += 1
                    false_list.append(
                        f"{day['date']} [trap {m['trap']['why_not_a_fact']}] {mem.subject}: {mem.content}"
                    )
                else:
                    traps_q += 1
            elif accepted:
                acc_neutral += 1
        hit_any = {k for k, v in hit_by.items()}
        hit_acc = {k for k, v in hit_by.items() if any(d == "accepted" for d, _ in v)}
        queued = {k for k in hit_any if k not in hit_acc}
        high = [g for g in gold if g["fact"]["importance"] == "high"]
        corr_facts = [g for g in gold if g["fact"].get("corroborated_by_other_device") and g["id"] in hit_any]
        corr_ok = sum(1 for g in corr_facts if any(m.corroborated_by for _, m in hit_by[g["id"]]))
        for g in gold:
            if g["id"] not in hit_any:
                MISSES.append(f"{g['id']} [{g['fact']['kind']}/{g['fact']['importance']}] {g['text']}")
                if ALL_CANDIDATES:
                    MISSES.append(why_missed(day, g, names, wearer_names))
            if g["id"] in hit_any:
                fact_memory[g["id"]] = next((m for d, m in hit_by[g["id"]] if d == "accepted"), hit_by[g["id"]][0][1])
        redactions = sum(1 for s in day.get("redaction_expected", []) if _leaks(s, stored_text))
        otr = sum(
            1
            for t in day["traps"]
            if t["why_not_a_fact"] == "off-the-record span" and t["text_in_transcript"].lower() in stored_text.lower()
        )
        rows.append(
            {
                "day": day["date"],
                "gold": len(gold),
                "accepted": acc_total,
                "precision": _ratio(acc_gold, acc_total - acc_neutral),
                "recall_any": _ratio(len(hit_any), len(gold)),
                "recall_acc": _ratio(len(hit_acc), len(gold)),
                "queued": len(queued),
                "false_acc": acc_total - acc_gold - acc_neutral,
                "high_recall": _ratio(len([g for g in high if g["id"] in hit_any]), len(high)),
                "traps_acc": traps_acc,
                "traps_q": traps_q,
                "redaction_leaks": redactions,
                "otr_leaks": otr,
                "corroboration": _ratio(corr_ok, len(corr_facts)),
                "_n": (
                    acc_gold,
                    acc_total - acc_neutral,
                    len(hit_any),
                    len(hit_acc),
                    len(gold),
                    len(high),
                    len([g for g in high if g["id"] in hit_any]),
                    corr_ok,
                    len(corr_facts),
                ),
            }
        )
        for g in gold:
            earlier.append({"id": g["id"], "about": g["about"], "who": g["who"], "text": g["text"]})
    stale = [fid for fid in sorted(superseded_ids) if fid in fact_memory and fact_memory[fid].current]
    false_list += [f"(supersession) {fid} still current: {fact_memory[fid].content}" for fid in stale]
    rows.append(_total(rows, len(stale)))
    return rows, false_list


def _leaks(secret: str, stored: str) -> bool:
    """Verbatim anywhere, or digits-only inside one stored row (rows are newline-separated)."""
    digits = re.sub(r"\D", "", secret)
    if secret in stored:
        return True
    return len(digits) >= 6 and any(digits in re.sub(r"\D", "", row) for row in stored.split("\n"))


def _ratio(a, b):
    return (a, b)


def _total(rows, still_current):
    n = [sum(r["_n"][i] for r in rows) for i in range(9)]
    keys = ("queued", "false_acc", "traps_acc", "traps_q", "redaction_leaks", "otr_leaks", "gold", "accepted")
    total = {k: sum(r[k] for r in rows) for k in keys}
    total.update(
        {
            "day": "total",
            "precision": (n[0], n[1]),
            "recall_any": (n[2], n[4]),
            "recall_acc": (n[3], n[4]),
            "high_recall": (n[6], n[5]),
            "corroboration": (n[7], n[8]),
            "supersession": still_current,
        }
    )
    return total


def _fmt(v):
    if isinstance(v, tuple):
        a, b = v
        return f"{a / b:.2f} ({a}/{b})" if b else "n/a"
    return str(v)


COLUMNS = [
    ("day", "day"),
    ("precision", "precision acc"),
    ("recall_any", "recall acc+queued"),
    ("recall_acc", "recall acc"),
    ("queued", "true queued"),
    ("false_acc", "false acc"),
    ("high_recall", "high-imp recall"),
    ("traps_acc", "traps acc"),
    ("traps_q", "traps queued"),
    ("redaction_leaks", "redaction leaks"),
    ("otr_leaks", "off-record leaks"),
    ("corroboration", "corroboration"),
    ("supersession", "supersession"),
]


def print_table(rows):
    print("| " + " | ".join(h for _, h in COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(_fmt(r.get(k, "")) for k, _ in COLUMNS) + " |")


# --- input ---------------------------------------------------------------------------------------------
def load_days(paths: list[str]) -> list[dict]:
    files: list[Path] = []
    for p in paths or [str(DEFAULT_DIR)]:
        path = Path(p)
        files += sorted(path.glob("*.json")) if path.is_dir() else [path]
    days = [json.loads(f.read_text()) for f in files]
    return sorted(days, key=lambda d: d["date"])


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def pipeline_convos(recording: dict):
    """The transcript pipeline's pure steps just after the connectors: off-the-record, cleanup, redaction."""
    from wearables.pipeline.cleanup import cleanup
    from wearables.pipeline.off_record import elide_off_record
    from wearables.pipeline.redaction import redact_text
    from wearables.pipeline.types import Convo, Turn

    convos = []
    for c in recording["conversations"]:
        turns = [
            Turn(
                text=u["text"],
                speaker_label=u["speaker"],
                speaker_name=u["speaker"],
                is_wearer=u["is_wearer"],
                started_at=_dt(u["start"]),
                ended_at=_dt(u["end"]),
            )
            for u in c["utterances"]
        ]
        convos.append(
            Convo(
                source=recording["source"],
                external_id=c["id"],
                started_at=_dt(c["started_at"]),
                ended_at=_dt(c["ended_at"]),
                turns=turns,
            )
        )
    convos = cleanup(elide_off_record(convos))
    for c in convos:
        for t in c.turns:
            t.text = redact_text(t.text)
    return convos


# --- dry run (pure pipeline, no database) --------------------------------------------------------------

def day_inputs(day: dict) -> dict:
    """One labeled day as the gate's input, per device: the connectors' output after the transcript pipeline."""
    from distill.extraction.base import ConversationIn, DayInput, TurnIn

    inputs = {}
    for rec in day["recordings"]:
        convs, idx = [], 0
        for c in pipeline_convos(rec):
            utts = []
            for t in c.turns:
                utts.append(TurnIn(idx, t.speaker_name, bool(t.is_wearer), t.text, t.started_at))
                idx += 1
            convs.append(ConversationIn(started_at=c.started_at, turns=utts, external_id=c.external_id))
        inputs[rec["source"]] = DayInput(
            owner_name=day["wearer"], conversations=convs, source_kind=rec["source"], timezone=day["timezone"]
        )
    return inputs


def siblings_for(inputs: dict, kind: str) -> list:
    """What the day's other devices heard (the cross-check's input for ``kind``)."""
    from distill import pipeline

    return [
        pipeline.SiblingTurn(other, u.text, u.is_owner, u.started_at)
        for other, di in sorted(inputs.items())
        if other != kind
        for c in di.conversations
        for u in c.turns
    ]

def run_dry(days: list[dict]) -> tuple[list[Memory], str]:
    # No database is touched, but the LLM switch is read from Django settings.
    os.environ.setdefault("ALMANAC_HOME", "/tmp/almanac-bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()  # the gate reads its modes' TextChoices
    from distill import pipeline, trust
    memories: list[Memory] = []
    active: list[pipeline.ActiveMemory] = []
    hashes: set[str] = set()
    stored = []
    for day in days:
        inputs = day_inputs(day)
        stored += [u.text for di in inputs.values() for c in di.conversations for u in c.turns]
        for kind, day_input in inputs.items():
            siblings = siblings_for(inputs, kind)
            out = pipeline.run(
                pipeline.PassInput(
                    day=day_input,
                    policy=trust.Policy(),
                    siblings=siblings,
                    active=list(active),
                    existing_hashes=set(hashes),
                )
            )
            for s in out.scored:
                c = s.candidate
                subject = "wearer" if c.attribution == "user" else (c.person or "")
                note = f"{s.score:.2f} {c.kind} {','.join(c.flags)}"
                memories.append(
                    Memory(day["date"], s.decision, subject, c.content, kind, s.corroborating_sources, note=note)
                )
                ALL_CANDIDATES.append(memories[-1])
                if s.decision in ("accepted", "pending_review"):
                    hashes.add(c.content_hash)
                    stored.append(c.content)
                    if s.decision == "accepted":
                        active.append(pipeline.ActiveMemory(str(len(active)), c.subject, c.content))
    return memories, "\n".join(stored)


# --- real run (database) ------------------------------------------------------------------------------
def run_real(days: list[dict]) -> tuple[list[Memory], str]:
    os.environ.setdefault("ALMANAC_HOME", "/tmp/almanac-bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()
    from unittest import mock

    from bench import extraction_real
    from distill import pipeline
    from wearables.services import memories as memory_services

    real_run = pipeline.run

    def recording_run(inp):
        out = real_run(inp)
        day = next((t.removeprefix("wearable-day:") for t in _DAY_TAG), "")
        for s in out.scored:
            c = s.candidate
            subject = "wearer" if c.attribution == "user" else (c.person or "")
            note = f"{s.score:.2f} {c.kind} {','.join(c.flags)}"
            ALL_CANDIDATES.append(Memory(day, s.decision, subject, c.content, inp.day.source_kind, note=note))
        return out

    def conversations_for(transcript, owner_name):
        _DAY_TAG[:] = [f"wearable-day:{transcript.local_date.isoformat()}"]
        return real_conversations_for(transcript, owner_name)

    real_conversations_for = memory_services.conversations_for
    with mock.patch.object(pipeline, "run", recording_run):
        with mock.patch.object(memory_services, "conversations_for", conversations_for):
            return extraction_real.run(days, pipeline_convos)


_DAY_TAG: list[str] = []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="labeled-day files or directories")
    parser.add_argument("--dry", action="store_true", help="pure pipeline, no database")
    parser.add_argument("--verbose", action="store_true", help="list every accepted/queued memory")
    parser.add_argument(
        "--misses", action="store_true", help="list gold facts no memory matched, and why (with the said utterance)"
    )
    parser.add_argument("--candidates", action="store_true", help="list every candidate, its best match and score")
    parser.add_argument(
        "--locomo", default=str(extraction_locomo.DEFAULT_PATH), help="LoCoMo-format file (observations set)"
    )
    parser.add_argument("--gate-only", action="store_true", help="only the gate model's cross-validated figures")
    parser.add_argument("--no-gate", action="store_true", help="skip the gate model's cross-validated figures")
    parser.add_argument(
        "--no-turns", action="store_true", help="gate figures without the comparison: the gate model without the turn reader"
    )
    parser.add_argument("--no-speed", action="store_true", help="gate figures without the speed measurement")
    parser.add_argument(
        "--no-baseline", action="store_true", help="gate figures without the stricter per-wearer accept rule"
    )
    args = parser.parse_args(argv)
    gate_options = {"turns": not args.no_turns, "with_speed": not args.no_speed, "baseline": not args.no_baseline}
    if args.gate_only:
        from bench import gate_eval

        return gate_eval.report(**gate_options)
    try:
        days = load_days(args.paths)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read labeled days: {exc}", file=sys.stderr)
        return 2
    if not days:
        print("error: no labeled days found", file=sys.stderr)
        return 2
    logging.getLogger("distill").setLevel(logging.WARNING)  # one INFO line per pass would bury the tables
    started = time.perf_counter()
    memories, stored = run_dry(days) if args.dry else run_real(days)
    elapsed = time.perf_counter() - started
    rows, false_list = score(days, memories, stored)
    print(
        f"{len(days)} days, {len(memories)} candidates, {elapsed:.1f}s, {'dry' if args.dry else 'database'} run, "
        f"{os.cpu_count()} CPUs"
    )
    print_table(rows)
    print("\nFalse accepted:")
    for line in false_list:
        print(" -", line)
    if args.misses:
        print("\nMissed gold facts:")
        for line in MISSES:
            print(" -", line)
    if args.candidates:
        print("\nAll candidates (decision, best match, score, kind, flags):")
        by_day = {d["date"]: d for d in days}
        earlier: list[dict] = []
        for d in days:
            names = tuple(d["wearer"].split()) + (d["wearer"].split()[0],)
            cands = day_candidates(d, earlier)
            for m in ALL_CANDIDATES:
                if m.day != d["date"]:
                    continue
                hit = best_match(m, cands, names, {n.lower() for n in names})
                label = f"{hit['type']}:{hit['id']}" if hit else "-"
                print(f" {m.day} {m.decision:15} {label:22} {m.note:40} {m.subject or '?'}: {m.content}")
            earlier += [
                {"id": f"{d['date']}:{f['id']}", "about": f["about"], "who": f.get("who", ""), "text": f["fact"]}
                for f in by_day[d["date"]]["gold_facts"]
            ]
    if args.verbose:
        print("\nAll accepted / queued:")
        for m in memories:
            if m.decision in ("accepted", "pending_review"):
                print(f" {m.day} {m.decision:15} {m.source:9} {m.subject or '?':10} {m.content} {m.corroborated_by}")
    code = run_locomo(args)
    if code or args.no_gate:
        return code
    from bench import gate_eval

    return gate_eval.report(**gate_options)


def run_locomo(args) -> int:
    """The second development set: LoCoMo observations (see bench/extraction_locomo.py)."""
    try:
        data = json.loads(Path(args.locomo).read_text())
        sessions = extraction_locomo.load_sessions(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"error: cannot read LoCoMo file: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    use_service = not args.dry and extraction_locomo.service_available()
    mems = extraction_locomo.run_service(sessions) if use_service else extraction_locomo.run_pure(sessions)
    elapsed = time.perf_counter() - started
    result = extraction_locomo.score(data, sessions, mems, match_score)
    how = "chats conversation import → distill, database" if use_service else "pure pipeline"
    print(f"\nLoCoMo observations: {len(sessions)} sessions, {len(mems)} candidates, {elapsed:.1f}s, {how}")
    extraction_locomo.print_summary(result, _fmt)
    print("\nAttribution errors (right turn, wrong person):")
    for line in result["_misattributed"]:
        print(" -", line)
    if args.verbose or args.candidates:
        print("\nAccepted, matching no observation of their turn:")
        for line in result["_ungrounded"]:
            print(" -", line)
    if args.misses:
        print("\nMissed observations:")
        for line in result["_missed"]:
            print(" -", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
