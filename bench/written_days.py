"""Training days written for this repository, in a plain authoring format, rendered to the labelled-day format.

The labelled days in ``../shared/bench/labeled-days`` are six wearers. The gate's day model learns from five of them
in each fold, so it sees few voices. The days under ``bench/data/written-days/`` are more wearers, written here
(new people, places, dialects and devices; see the gate's data card). They are training data only: the held-out
figures are always measured on the shared days.

A ``.day`` file is one local day (format: ``docs/trust-gate.md``, "Written training days"). This module renders
it to exactly what a shared day file holds: one recording per device, each with the provider's own speaker labels
(Limitless ``user``/display name/``Unknown``; Bee opaque numbers, consecutive turns merged; Omi ``SPEAKER_nn``),
UTC timestamps, diarization slips, and labels whose evidence points at each device's utterance index.

    python bench/written_days.py check FILE...     # one line per problem, else the day's counts
    python bench/written_days.py show FILE         # the rendered JSON
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ROOT = Path(__file__).resolve().parent.parent
WRITTEN_DIR = ROOT / "bench" / "data" / "written-days"
DEVICES = ("limitless", "bee", "omi")
KINDS = {"work", "identity", "preference", "relationship", "place", "plan", "commitment", "decision", "health", "other"}
IMPORTANCE = {"low", "normal", "high"}
TRAP_KINDS = {
    "hypothetical",
    "joke/sarcasm",
    "quoting a TV show",
    "ASR mis-hearing",
    "other speaker's claim wrongly attributable to wearer",
    "off-the-record span",
    "plan later cancelled in the same day",
    "sensitive number that must be redacted",
}
FILLERS = re.compile(r"\b(?:um+|uh+|erm),?\s+", re.IGNORECASE)
MARKS = re.compile(r"\s*\{([a-z]\d+(?:\s*,\s*[a-z]\d+)*)\}\s*$")


class DayError(ValueError):
    """A problem in a ``.day`` file, with its line number."""


@dataclass
class Line:
    number: int
    speaker: str  # "@" for the wearer
    text: str
    alt: str = ""
    slip: bool = False
    marks: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    id: str
    start: str
    devices: list[str]
    known: set[str] = field(default_factory=set)
    lines: list[Line] = field(default_factory=list)


@dataclass
class Written:
    header: dict
    conversations: list[Conversation]
    sections: dict[str, list[tuple[int, list[str]]]]


def parse(text: str) -> Written:
    header: dict = {}
    convs: list[Conversation] = []
    sections: dict[str, list[tuple[int, list[str]]]] = {"facts": [], "traps": [], "also": [], "redact": []}
    section = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("==="):
            parts = line[3:].split()
            if len(parts) != 3 or not re.fullmatch(r"\d\d:\d\d", parts[1]):
                raise DayError(f"line {n}: a conversation starts '=== <id> <HH:MM> <device[,device]>'")
            convs.append(Conversation(parts[0], parts[1], parts[2].split(",")))
            section = "talk"
        elif re.fullmatch(r"\[(facts|traps|also|redact)\]", line):
            section = line[1:-1]
        elif section == "talk" and line.startswith("known:") and not convs[-1].lines:
            convs[-1].known = {k.strip() for k in line[6:].split(",") if k.strip()}
        elif section == "talk":
            convs[-1].lines.append(_utterance(n, line))
        elif section == "redact":
            sections["redact"].append((n, [line]))
        elif section:
            sections[section].append((n, [p.strip() for p in line.split("|")]))
        elif ":" in line:
            key, value = line.split(":", 1)
            header[key.strip()] = value.strip()
        else:
            raise DayError(f"line {n}: not a header line, conversation or section: {line[:60]!r}")
    return Written(header, convs, sections)


def _utterance(n: int, line: str) -> Line:
    slip = line.startswith("~")
    line = line.lstrip("~").strip()
    speaker, sep, rest = line.partition(":")
    if not sep or not speaker.strip() or not rest.strip():
        raise DayError(f"line {n}: an utterance is 'Speaker: text' ('@: text' for the wearer)")
    text, _, alt = rest.partition("||")
    marks: list[str] = []
    m = MARKS.search(text)
    if m:
        marks = [x.strip() for x in m.group(1).split(",")]
        text = text[: m.start()]
    if "{" in text or "}" in text:
        raise DayError(f"line {n}: item marks go at the end of the text, before any '||': {{f1}} or {{f1,t2}}")
    return Line(n, speaker.strip(), text.strip(), alt.strip(), slip, marks)


# --- rendering ----------------------------------------------------------------------------------------------
def _stamp(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _second_hearing(line: Line, rng: random.Random) -> str:
    if line.alt:
        return line.alt
    text = FILLERS.sub("", line.text) if rng.random() < 0.6 else line.text
    return text[:1].upper() + text[1:] if text else line.text


def _labels(device: str, speakers: list[str], known: set[str], rng: random.Random) -> dict[str, str]:
    if device == "limitless":
        return {s: "user" if s == "@" else (s if s in known else "Unknown") for s in speakers}
    order = list(range(len(speakers)))
    if rng.random() < 0.5:
        rng.shuffle(order)
    prefix = "SPEAKER_" if device == "omi" else ""
    return {s: (f"{prefix}{i:02d}" if prefix else str(i)) for s, i in zip(speakers, order, strict=True)}


def _device_turns(conv: Conversation, device: str, first: bool, start: datetime, rng: random.Random):
    """(utterances, index of each written line) for one device's transcript of one conversation."""
    speakers = list(dict.fromkeys(line.speaker for line in conv.lines))
    labels = _labels(device, speakers, conv.known, rng)
    utts: list[dict] = []
    index: list[int] = []
    t = start
    for line in conv.lines:
        text = line.text if first else _second_hearing(line, rng)
        seconds = max(0.9, len(text.split()) / rng.uniform(2.3, 3.1))
        is_wearer = (line.speaker == "@") != (line.slip and first)
        label = labels[line.speaker]
        if device == "limitless" and line.slip and first:
            label = "user" if is_wearer else (line.speaker if line.speaker in conv.known else "Unknown")
        merge = device == "bee" and utts and utts[-1]["speaker"] == label and utts[-1]["is_wearer"] == is_wearer
        if merge:
            utts[-1]["text"] += " " + text
            utts[-1]["end"] = _stamp(t + timedelta(seconds=seconds))
        else:
            utts.append(
                {
                    "speaker": label,
                    "is_wearer": is_wearer,
                    "start": _stamp(t),
                    "end": _stamp(t + timedelta(seconds=seconds)),
                    "text": text,
                }
            )
        index.append(len(utts) - 1)
        t += timedelta(seconds=seconds + rng.uniform(0.15, 1.1))
    return utts, index


def _conversation_id(device: str, day: str, conv: Conversation, seed: str) -> str:
    h = hashlib.sha256(f"{seed}:{device}:{conv.id}".encode()).hexdigest()
    if device == "limitless":
        return f"ll-{day.replace('-', '')}-{h[:4]}"
    if device == "omi":
        return f"omi-{h[:8]}"
    return str(int(h[:7], 16))


def render(written: Written, name: str = "") -> dict:
    """The labelled-day dict (the shared format) for one written day; raises ``DayError`` on a problem."""
    h = written.header
    for key in ("date", "timezone", "wearer"):
        if not h.get(key):
            raise DayError(f"header: '{key}:' is missing")
    try:
        zone = ZoneInfo(h["timezone"])
        day = date.fromisoformat(h["date"])
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise DayError(f"header: {exc}") from None
    seed = f"{h['date']}:{h['wearer']}"
    rng = random.Random(seed)
    recordings: dict[str, list[dict]] = {}
    where: dict[str, list[tuple[str, str, int, str]]] = {}  # mark -> (device, conversation id, index, text)
    for conv in written.conversations:
        bad = [d for d in conv.devices if d not in DEVICES]
        if bad or not conv.devices or len(conv.devices) > 2 or len(set(conv.devices)) != len(conv.devices):
            raise DayError(f"conversation {conv.id}: devices are one or two of {', '.join(DEVICES)}")
        if not conv.lines:
            raise DayError(f"conversation {conv.id}: no utterances")
        hh, mm = map(int, conv.start.split(":"))
        start = datetime(day.year, day.month, day.day, hh, mm, rng.randint(0, 59), rng.randint(0, 999) * 1000, zone)
        for i, device in enumerate(conv.devices):
            offset = timedelta(seconds=rng.uniform(1.5, 7.0)) if i else timedelta(0)
            utts, index = _device_turns(conv, device, i == 0, start + offset, rng)
            cid = _conversation_id(device, h["date"], conv, seed)
            recordings.setdefault(device, []).append(
                {
                    "id": cid,
                    "started_at": utts[0]["start"][:19] + "Z",
                    "ended_at": utts[-1]["end"][:19] + "Z",
                    "utterances": utts,
                }
            )
            for line, k in zip(conv.lines, index, strict=True):
                for mark in line.marks:
                    where.setdefault(mark, []).append((device, cid, k, utts[k]["text"]))
        end = datetime.fromisoformat(recordings[conv.devices[0]][-1]["ended_at"].replace("Z", "+00:00"))
        if end.astimezone(zone).date() != day:
            raise DayError(f"conversation {conv.id}: runs past the local day")
    out = {
        "date": h["date"],
        "timezone": h["timezone"],
        "wearer": h["wearer"],
        "called": h.get("called") or h["wearer"].split()[0],
        "recordings": [{"source": d, "conversations": recordings[d]} for d in DEVICES if d in recordings],
        "notes": h.get("notes", ""),
        "written": name or h["date"],
    }
    out.update(_labels_of(written, where))
    _check_day(out, written)
    return out


def _evidence(where: dict, item: str, n: int) -> list[dict]:
    if item not in where:
        raise DayError(f"line {n}: {item} is marked on no utterance (end a line with {{{item}}})")
    return [{"source": d, "conversation": c, "utterance_index": k} for d, c, k, _ in where[item]]


def _subject(about: str) -> dict:
    return {"about": "wearer"} if about == "wearer" else {"about": "third_party", "who": about}


def _labels_of(written: Written, where: dict) -> dict:
    facts, traps, also = [], [], []
    for n, p in written.sections["facts"]:
        if len(p) not in (5, 6) or not re.fullmatch(r"f\d+", p[0]):
            raise DayError(f"line {n}: a fact is 'fN | about | kind | importance | fact [| supersedes DATE:fN]'")
        if p[2] not in KINDS or p[3] not in IMPORTANCE:
            raise DayError(f"line {n}: kind is one of {sorted(KINDS)}; importance one of {sorted(IMPORTANCE)}")
        ev = _evidence(where, p[0], n)
        fact = {
            "id": p[0],
            **_subject(p[1]),
            "fact": p[4],
            "kind": p[2],
            "importance": p[3],
            "evidence": ev,
            "corroborated_by_other_device": len({e["source"] for e in ev}) > 1,
        }
        if len(p) == 6:
            m = re.fullmatch(r"supersedes\s+(\d{4}-\d\d-\d\d:f\d+)", p[5])
            if not m:
                raise DayError(f"line {n}: the sixth field is 'supersedes YYYY-MM-DD:fN'")
            fact["supersedes"] = m.group(1)
        facts.append(fact)
    for n, p in written.sections["traps"]:
        if len(p) != 5 or not re.fullmatch(r"t\d+", p[0]) or p[1] not in TRAP_KINDS:
            raise DayError(
                f"line {n}: a trap is 'tN | why | false_about | false_claim | explanation', why one of "
                + "; ".join(sorted(TRAP_KINDS))
            )
        ev = _evidence(where, p[0], n)
        trap = {
            "id": p[0],
            "text_in_transcript": where[p[0]][0][3],
            "why_not_a_fact": p[1],
            "explanation": p[4],
            "false_claim": p[3],
            "false_about": "wearer" if p[2] == "wearer" else "third_party",
            "evidence": ev,
        }
        if p[2] != "wearer":
            trap["false_who"] = p[2]
        traps.append(trap)
    for n, p in written.sections["also"]:
        if len(p) != 3 or not re.fullmatch(r"a\d+", p[0]):
            raise DayError(f"line {n}: an also-true item is 'aN | about | fact'")
        also.append({"id": p[0], **_subject(p[1]), "fact": p[2], "evidence": _evidence(where, p[0], n)})
    return {
        "gold_facts": facts,
        "traps": traps,
        "also_true": also,
        "redaction_expected": [p[0] for _, p in written.sections["redact"]],
    }


def _check_day(day: dict, written: Written) -> None:
    ids = [x["id"] for k in ("gold_facts", "traps", "also_true") for x in day[k]]
    if len(ids) != len(set(ids)):
        raise DayError(f"an id is used twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    marked = {m for c in written.conversations for line in c.lines for m in line.marks}
    if marked - set(ids):
        raise DayError(f"marks with no item in a section: {sorted(marked - set(ids))}")
    if len(day["recordings"]) > 3:
        raise DayError("at most three devices a day")
    text = " ".join(u["text"] for r in day["recordings"] for c in r["conversations"] for u in c["utterances"])
    for s in day["redaction_expected"]:
        if s not in text:
            raise DayError(f"[redact] {s!r} is not in any utterance")


def load(path: Path) -> dict:
    try:
        return render(parse(path.read_text()), path.name)
    except DayError as exc:
        raise DayError(f"{path.name}: {exc}") from None


def load_written_days(directory: Path = WRITTEN_DIR) -> list[dict]:
    """Every written day, rendered, in date order (training only: never a held-out set)."""
    return sorted((load(p) for p in sorted(directory.glob("*.day"))), key=lambda d: d["date"])


def counts(day: dict) -> str:
    first = {r["source"]: r for r in day["recordings"]}
    utts = sum(len(c["utterances"]) for r in day["recordings"] for c in r["conversations"])
    traps: dict[str, int] = {}
    for t in day["traps"]:
        traps[t["why_not_a_fact"]] = traps.get(t["why_not_a_fact"], 0) + 1
    return (
        f"{day['date']} {day['wearer']}: devices {','.join(first)}; utterances {utts} (all devices); "
        f"facts {len(day['gold_facts'])}; traps {len(day['traps'])} {traps}; also {len(day['also_true'])}; "
        f"redact {len(day['redaction_expected'])}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("check", "show"))
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    failed = 0
    for path in args.files:
        try:
            day = load(path)
        except (DayError, OSError) as exc:
            print(f"problem: {exc}")
            failed += 1
            continue
        print(json.dumps(day, indent=1, ensure_ascii=False) if args.command == "show" else counts(day))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
