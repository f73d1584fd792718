"""Labelled candidates for training and measuring the trust gate's model (``bench/train_gate.py``,
``bench/extraction.py``).

Three development sets from ``../shared/bench``, each run through the configured extractor exactly as the memory
pass runs it (``distill.steps.candidates.extract`` + the sibling-device cross-check of ``distill.pipeline``), and
every candidate labelled by matching it to gold:

- **days** (labeled wearable days, and the days written for training in ``bench/data/written-days/``, see
  ``bench/written_days.py``): the README's reference matcher. A candidate whose best match is a gold fact
  or an ``also_true`` item is positive (a durable true statement about the right person), a trap or nothing is
  negative, a still-current fact of an earlier day is neutral (not trained on). Group = the day.
- **locomo** (conv-26/30 observations): positive when the candidate rests on a turn an observation rests on, is
  about that observation's person and matches its text (containment ≥ 0.5), or, failing that, matches an
  observation of the same person in the same session (the fact is often said again a turn or two away);
  negative otherwise (a match about somebody else on its own turn is an attribution error). Group = one session.
- **persona** (Synthetic-Persona-Chat validation split): a persona statement is *voiced* when a turn of its own
  speaker matches it (containment ≥ 0.5 with the reference matcher). A candidate about speaker S that matches a
  voiced statement of S is positive; one that matches a voiced statement but names the wrong person is negative
  (an attribution error, unless S said it of themselves in the first person: then a false accept, counted
  apart, see ``persona_label``); the rest are neutral: persona lists cover a fraction of what the generated speakers say
  about themselves ("I'm a student"), so an unmatched candidate is not known to be false. They are not trained
  on, and the bench reports precision over them both ways. Group = one conversation.

Each set is cached as JSON under ``var/gate_cache/`` keyed by the extractor id/version, the source file's hash and ``code_hash()``,
so a model iteration does not re-parse.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _shared() -> Path:
    """``../shared/bench`` beside the checkout (``ALMANAC_BENCH_DATA`` overrides; worktrees sit one level deeper)."""
    if os.environ.get("ALMANAC_BENCH_DATA"):
        return Path(os.environ["ALMANAC_BENCH_DATA"])
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "bench").is_dir():
            return base / "shared" / "bench"
    return ROOT.parent / "shared" / "bench"


SHARED = _shared()
DAYS_DIR = SHARED / "labeled-days"
WRITTEN_DIR = ROOT / "bench" / "data" / "written-days"  # training only (``bench/written_days.py``)
LOCOMO_PATH = SHARED / "locomo-dev.json"
PERSONA_PATH = SHARED / "persona-chat-train.csv"
CACHE_DIR = ROOT / "var" / "gate_cache"
SETS = ("days", "locomo", "persona")
# Names for the two persona-chat speakers (the file has only "User 1"/"User 2"); in no development file.
PERSONA_NAMES = ("Quinn", "Rowan")
THRESHOLD = 0.5


def _setup() -> None:
    os.environ.setdefault("ALMANAC_HOME", str(ROOT / "var"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()  # the gate's modules read its choices (distill.models, ledger.choices)


def _file_hash(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        for f in sorted([*p.glob("*.json"), *p.glob("*.day")]) if p.is_dir() else [p]:
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def extractor_key() -> str:
    _setup()
    from distill.extraction.base import ConversationIn, DayInput, TurnIn
    from distill.steps.candidates import extract as extract_day

    utt = TurnIn(index=0, speaker_name="A", is_owner=True, text="I work at a bakery.")
    res = extract_day(DayInput(owner_name="A", conversations=[ConversationIn(started_at=None, turns=[utt])]))
    return f"{res.extractor}-{res.extractor_version}"


def candidate_record(cand, *, corroborated: list[str], turn_text: str, **labels) -> dict:
    """What the model sees of one candidate (its public fields, parse features and pass context), with its
    set's labels (``set``, ``group``, ``label``, ``match``, …)."""
    d = cand.as_dict()
    d.pop("valid_from", None)
    d["corroborating_sources"] = corroborated
    d["turn_text"] = turn_text
    return d | labels


def _extract(day_input, siblings=None) -> list[tuple]:
    """(candidate, corroborating sources) as the memory pass sees them before scoring."""
    from distill import pipeline
    from distill.steps.candidates import extract as extract_day

    owner = (day_input.owner_name or "the user").split()[0]
    by_index = {u.index: u for conv in day_input.conversations for u in conv.turns}
    out = []
    for cand in extract_day(day_input).candidates:
        utt = by_index.get(cand.evidence.first_index) if cand.evidence else None
        agreeing, disagreement = pipeline.cross_check(
            cand, utt.started_at if utt else None, bool(utt and utt.is_owner), siblings or [], owner
        )
        if disagreement:
            cand.capture_confidence = min(cand.capture_confidence, pipeline.DISAGREEMENT_CAPTURE)
            cand.flags.append(disagreement)
        out.append((cand, agreeing, utt.text if utt else ""))
    return out


# --- days ---------------------------------------------------------------------------------------------------
def training_days() -> list[dict]:
    """The shared labelled days and the days written for training here (``bench/written_days.py``), by date.
    A written day has ``written`` set; it is never a held-out wearer."""
    from bench import extraction as xb
    from bench.written_days import load_written_days

    return sorted(xb.load_days([str(DAYS_DIR)]) + load_written_days(WRITTEN_DIR), key=lambda d: d["date"])


def wearer_names(day: dict) -> tuple[str, ...]:
    """The wearer's name tokens for the reference matcher: the full name, and what people call them."""
    return (*day["wearer"].split(), day["wearer"].split()[0], *day.get("called", "").split())


def build_days() -> dict:
    _setup()
    from bench import extraction as xb

    records, turns = [], {}
    earlier: dict[str, list[dict]] = {}  # per wearer: an earlier day of another person is not a neutral match
    for day in training_days():
        inputs = xb.day_inputs(day)
        names = wearer_names(day)
        wearer_names_lower = {n.lower() for n in names}
        cands = xb.day_candidates(day, earlier.get(day["wearer"], []))
        group = f"days:{day['date']}"
        turns[group] = sum(len(c["utterances"]) for rec in day["recordings"] for c in rec["conversations"])
        for kind in sorted(inputs):
            for cand, agreeing, text in _extract(inputs[kind], xb.siblings_for(inputs, kind)):
                subject = "wearer" if cand.attribution == "user" else (cand.person or "")
                mem = xb.Memory(day["date"], "accepted", subject, cand.content, kind)
                hit = xb.best_match(mem, cands, names, wearer_names_lower)
                if hit is None:
                    label, match = 0, ""
                elif hit["type"] == "trap":
                    label, match = 0, "trap:" + hit["id"]
                elif hit["type"] == "gold" or hit["id"].startswith(day["date"]):
                    label, match = 1, f"{hit['type']}:{hit['id']}"
                else:  # a still-current fact of an earlier day: neutral
                    label, match = None, f"earlier:{hit['id']}"
                rec = candidate_record(
                    cand,
                    corroborated=agreeing,
                    turn_text=text,
                    set="days",
                    group=group,
                    label=label,
                    match=match,
                    day=day["date"],
                    source=kind,
                    subject_label=subject,
                )
                records.append(rec)
        earlier.setdefault(day["wearer"], []).extend(
            {"id": f"{day['date']}:{f['id']}", "about": f["about"], "who": f.get("who", ""), "text": f["fact"]}
            for f in day["gold_facts"]
        )
    return {"records": records, "turns": turns}


# --- LoCoMo -------------------------------------------------------------------------------------------------
def build_locomo() -> dict:
    _setup()
    from bench import extraction as xb
    from bench import extraction_locomo as xl

    data = json.loads(LOCOMO_PATH.read_text())
    sessions = xl.load_sessions(data)
    obs_by_turn: dict[tuple, list[dict]] = {}
    obs_by_session: dict[tuple, list[dict]] = {}
    for o in xl.observations(data):
        obs_by_session.setdefault((o["sample_id"], o["session"]), []).append(o)
        for ref in o["dia_ids"]:
            obs_by_turn.setdefault((o["sample_id"], ref), []).append(o)
    records, turns = [], {}
    for s in sessions:
        group = f"locomo:{s.sample_id}:{s.number:02d}"
        turns[group] = len(s.turns)
        for cand, agreeing, text in _extract(xl.session_input(s)):
            subject = s.owner if cand.attribution == "user" else (cand.person or "")
            first = cand.evidence.first_index if cand.evidence else -1
            last = cand.evidence.last_index if cand.evidence else -1
            refs = [s.turns[i]["dia_id"] for i in range(first, last + 1) if 0 <= i < len(s.turns)]
            label, match = 0, ""
            for ref in refs:
                for o in obs_by_turn.get((s.sample_id, ref), []):
                    if xb.match_score(o["text"], cand.content, xl._name_tokens(o["person"]))[0] >= THRESHOLD:
                        if subject == o["person"]:
                            label, match = 1, f"obs:{ref}"
                        elif not match:
                            match = f"attribution:{ref}"
            if not label and not match:
                # The observations name one turn; the same fact is often said on a neighbouring one.
                for o in obs_by_session.get((s.sample_id, s.number), []):
                    if (
                        subject == o["person"]
                        and xb.match_score(o["text"], cand.content, xl._name_tokens(o["person"]))[0] >= THRESHOLD
                    ):
                        label, match = 1, f"obs-session:{o['dia_ids'][0] if o['dia_ids'] else ''}"
                        break
            rec = candidate_record(
                cand,
                corroborated=agreeing,
                turn_text=text,
                set="locomo",
                group=group,
                label=label,
                match=match,
                sample_id=s.sample_id,
                session=s.number,
                dia_ids=refs,
                subject_label=subject,
            )
            records.append(rec)
    return {"records": records, "turns": turns}


def known_false(record: dict) -> bool:
    """Do the labels know this candidate is false, or only that it matches nothing? The days' gold and traps are
    what a careful listener would note, so an unmatched day candidate is false; LoCoMo's observations leave out
    many true statements their speakers made (all 16 of its "false" accepts at p ≥ 0.85 over five fold
    assignments, 2026-12-06), so there only a match to another person's observation is known false; a persona
    candidate matching nothing is neutral already. The accept line is judged on known-false negatives
    (``bench/train_gate.py``); the fit and the bench's precision still count every negative."""
    if record.get("label") != 0:
        return True
    return record.get("set") != "locomo" or str(record.get("match", "")).startswith("attribution:")


# --- persona chats ------------------------------------------------------------------------------------------
_LINE = re.compile(r"^\s*User ([12])\s*:\s*(.*)$")


def persona_rows(path: Path = PERSONA_PATH) -> list[dict]:
    """Each conversation as {index, personas: {name: [statements]}, turns: [(name, text)]}."""
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        for i, row in enumerate(csv.DictReader(fh)):
            turns = []
            for line in row["Best Generated Conversation"].splitlines():
                m = _LINE.match(line)
                if m and m.group(2).strip():
                    turns.append((PERSONA_NAMES[int(m.group(1)) - 1], _unplaceholder(m.group(2).strip())))
            personas = {
                PERSONA_NAMES[0]: [p.strip() for p in row["user 1 personas"].splitlines() if p.strip()],
                PERSONA_NAMES[1]: [p.strip() for p in row["user 2 personas"].splitlines() if p.strip()],
            }
            out.append({"index": i, "personas": personas, "turns": turns})
    return out


def _unplaceholder(text: str) -> str:
    """``[User 1's name]`` placeholders → the speaker names used here."""
    text = re.sub(r"\[User 1'?s? name\]", PERSONA_NAMES[0], text, flags=re.I)
    return re.sub(r"\[User 2'?s? name\]", PERSONA_NAMES[1], text, flags=re.I)


def voiced(conv: dict) -> list[dict]:
    """Persona statements a turn of their own speaker voices (reference matcher, containment ≥ 0.5)."""
    from bench import extraction as xb

    out = []
    for name, statements in conv["personas"].items():
        own = [(i, t) for i, (who, t) in enumerate(conv["turns"]) if who == name]
        for k, stmt in enumerate(statements):
            hits = [i for i, t in own if xb.match_score(stmt, t, (name,))[0] >= THRESHOLD]
            if hits:
                out.append({"id": f"{conv['index']:04d}:{name}:{k}", "person": name, "text": stmt, "turns": hits})
    return out


def persona_label(cand, subject: str, gold: list[dict], turns: list[tuple[str, str]]) -> tuple[int | None, str]:
    """(label, match) of one persona candidate against the chat's voiced persona statements.

    The best-matching statement decides: its own speaker's → 1; the other speaker's → 0. That 0 is an attribution
    error (``attribution:``) unless the candidate is what its speaker said of themselves in the first person: the
    dataset's generator sometimes has a speaker voice the other's persona line ("I'm a teacher" from the speaker
    whose persona lacks it). A memory of that turn is about the right person but not in their persona: still a
    false accept, counted apart (``other-persona:``). Labelling those neutral instead let the model accept every
    improvised "I like …" (cross-validated persona strict precision 0.48 → 0.24, LoCoMo 0.95 → 0.87).
    No match → neutral."""
    from bench import extraction as xb

    label, match, best = None, "", 0.0
    for g in gold:
        s = xb.match_score(g["text"], cand.content, PERSONA_NAMES)[0]
        if s >= THRESHOLD and s > best:
            best = s
            label, match = (1, g["id"]) if subject == g["person"] else (0, "attribution:" + g["id"])
    if label == 0 and _said_of_self(cand, subject, turns):
        match = "other-persona:" + match.split(":", 1)[1]
    return label, match


def _said_of_self(cand, subject: str, turns: list[tuple[str, str]]) -> bool:
    """The candidate's subject is the speaker of its turn, named in the first person ("I", "my")."""
    first = cand.evidence.first_index if cand.evidence else -1
    speaker = turns[first][0] if 0 <= first < len(turns) else ""
    return subject == speaker and cand.features.get("grammatical_person") == "first"


def build_persona() -> dict:
    _setup()
    from distill.extraction.base import ConversationIn, DayInput, TurnIn

    records, turns, gold = [], {}, {}
    for conv in persona_rows():
        group = f"persona:{conv['index']:04d}"
        turns[group] = len(conv["turns"])
        gold[group] = voiced(conv)
        utts = [
            TurnIn(index=i, speaker_name=who, is_owner=who == PERSONA_NAMES[0], text=text)
            for i, (who, text) in enumerate(conv["turns"])
        ]
        day = DayInput(
            owner_name=PERSONA_NAMES[0],
            source_kind="chat",
            conversations=[ConversationIn(started_at=None, turns=utts, external_id=group)],
        )
        for cand, agreeing, text in _extract(day):
            subject = PERSONA_NAMES[0] if cand.attribution == "user" else (cand.person or "")
            label, match = persona_label(cand, subject, gold[group], conv["turns"])
            rec = candidate_record(
                cand,
                corroborated=agreeing,
                turn_text=text,
                set="persona",
                group=group,
                label=label,
                match=match,
                subject_label=subject,
            )
            records.append(rec)
    return {"records": records, "turns": turns, "gold": gold}


BUILDERS = {
    "days": (build_days, (DAYS_DIR, WRITTEN_DIR)),
    "locomo": (build_locomo, (LOCOMO_PATH,)),
    "persona": (build_persona, (PERSONA_PATH,)),
}


def code_hash() -> str:
    """The extractor's code and this labelling: a cache made before either changed is never read again (a
    model was once fitted on candidates of an extractor changed since, under the same version string)."""
    h = hashlib.sha256()
    code = [*sorted((ROOT / "distill" / "extraction").glob("*.py")), ROOT / "distill" / "steps" / "candidates.py"]
    for f in [*code, Path(__file__).resolve()]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def load(name: str, *, refresh: bool = False) -> dict:
    """One set's labelled candidates, from the cache when the extractor, its code, the labelling and the file
    are unchanged."""
    build, paths = BUILDERS[name]
    key = f"{name}-{extractor_key()}-{_file_hash(*paths)}"
    path = CACHE_DIR / f"{key}-{code_hash()}.json"
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    started = datetime.now(UTC)
    data = build()
    data["key"] = key
    data["built_at"] = started.isoformat()
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, sort_keys=True, default=str))
    return data


def load_all(*, refresh: bool = False, sets=SETS) -> dict[str, dict]:
    return {name: load(name, refresh=refresh) for name in sets}


if __name__ == "__main__":
    import time

    for name in SETS:
        t = time.perf_counter()
        d = load(name, refresh="--refresh" in sys.argv)
        labels = [r["label"] for r in d["records"]]
        print(
            name,
            len(labels),
            "pos",
            labels.count(1),
            "neg",
            labels.count(0),
            "neutral",
            labels.count(None),
            f"{time.perf_counter() - t:.1f}s",
        )
