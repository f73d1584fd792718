"""Days written for the gate's training (``bench/written_days.py``): a plain text day renders to the labelled-day
format each provider's transcript would give, its labels point at the right utterance of every device, a mistake in
the file is one readable line, and a written day is never a held-out fold.

The day below is invented (a beekeeper and a sign-writer); no development file has it. Pure: no database.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bench import train_turn_model
from bench.written_days import WRITTEN_DIR, DayError, load_written_days, parse, render

DAY = """
date: 2025-10-02
timezone: America/Halifax
wearer: Odile Fournier
called: Odie
notes: a made-up day for the converter's tests

=== c1 23:10 bee,omi
@: Um, the the hives are wrapped for winter now. {f1}
@: All twelve of them.
Hamish: I paint signs for the ferry terminal, been doing it years. {f2}
~Hamish: I'm off to Sable Island in May. {t1}
@: Oh nice. || Oh, nice one.

=== c2 09:30 limitless
known: Hamish
Hamish: Card number's 4 0 1 2, 8 8 8 8, 8 8 8 8, 1 8 8 1. {t2}
Clerk: Thank you.

[facts]
f1 | wearer | other | normal | Odie wrapped her twelve hives for winter
f2 | Hamish | work | normal | Hamish paints signs for the ferry terminal

[traps]
t1 | other speaker's claim wrongly attributable to wearer | wearer | Odie is going to Sable Island in May | the device gave Hamish's line to Odie
t2 | sensitive number that must be redacted | Hamish | Hamish's card is 4012 8888 8888 1881 | read aloud at a counter

[redact]
4 0 1 2, 8 8 8 8, 8 8 8 8, 1 8 8 1
"""


def rendered(text: str = DAY) -> dict:
    return render(parse(text))


def conversations(day: dict, source: str) -> list[dict]:
    return next(r["conversations"] for r in day["recordings"] if r["source"] == source)


def test_each_device_gets_its_providers_speaker_labels():
    day = rendered()
    (limitless,) = conversations(day, "limitless")
    assert [u["speaker"] for u in limitless["utterances"]] == ["Hamish", "Unknown"]  # only known names show
    omi = conversations(day, "omi")[0]["utterances"]
    assert {u["speaker"] for u in omi} <= {"SPEAKER_00", "SPEAKER_01"}
    assert len({u["speaker"] for u in omi}) == 2


def test_bee_merges_a_speakers_consecutive_turns_and_the_evidence_follows():
    day = rendered()
    bee = conversations(day, "bee")[0]["utterances"]
    # The wearer's first two turns merge into one; Hamish's two stay apart (the slip gives one to the wearer).
    assert len(bee) == 4
    assert "All twelve of them." in bee[0]["text"]
    f1 = next(f for f in day["gold_facts"] if f["id"] == "f1")
    bee_ev = [e for e in f1["evidence"] if e["source"] == "bee"]
    assert [e["utterance_index"] for e in bee_ev] == [0]
    assert f1["corroborated_by_other_device"] is True


def test_a_slip_fools_only_the_first_device():
    day = rendered()
    bee = conversations(day, "bee")[0]["utterances"]
    omi = conversations(day, "omi")[0]["utterances"]
    assert next(u for u in bee if "Sable" in u["text"])["is_wearer"] is True
    assert next(u for u in omi if "Sable" in u["text"])["is_wearer"] is False


def test_the_second_device_hears_its_own_text_and_a_late_conversation_stays_on_the_local_day():
    day = rendered()
    omi = conversations(day, "omi")[0]
    assert omi["utterances"][-1]["text"] == "Oh, nice one."
    start = datetime.fromisoformat(omi["started_at"].replace("Z", "+00:00"))
    assert start.date().isoformat() == "2025-10-03"  # 23:10 in Halifax is the next UTC day
    assert start.astimezone(ZoneInfo("America/Halifax")).date().isoformat() == "2025-10-02"


def test_labels_carry_the_shared_formats_fields():
    day = rendered()
    t1, t2 = day["traps"]
    assert t1["text_in_transcript"] == "I'm off to Sable Island in May."
    assert t2["false_about"] == "third_party" and t2["false_who"] == "Hamish"
    f2 = day["gold_facts"][1]
    assert (f2["about"], f2["who"]) == ("third_party", "Hamish")
    assert day["redaction_expected"] == ["4 0 1 2, 8 8 8 8, 8 8 8 8, 1 8 8 1"]
    assert day["called"] == "Odie" and day["written"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.replace(" {f2}", ""), "f2 is marked on no utterance"),
        (lambda d: d.replace("Clerk: Thank you.", "Clerk: Thank you. {f7}"), "marks with no item"),
        (lambda d: d.replace("| hypothetical", "").replace("| sensitive number", "| secret number"), "a trap is"),
        (lambda d: d.replace("[redact]\n4 0 1 2", "[redact]\n9 9 9 9"), "is not in any utterance"),
        (
            lambda d: d.replace("=== c2 09:30", "=== c2 23:59").replace("Thank you.", "and then " * 100),
            "runs past the local day",
        ),
        (lambda d: d.replace("bee,omi", "bee,fitbit"), "devices are one or two of"),
        (lambda d: d.replace("| other | normal", "| hobby | normal"), "kind is one of"),
    ],
)
def test_a_mistake_is_one_readable_problem(change, message):
    with pytest.raises(DayError, match=message):
        rendered(change(DAY))


def test_every_written_day_renders_with_evidence_on_its_own_utterances():
    days = load_written_days(WRITTEN_DIR)
    assert days, "no written training day in bench/data/written-days"
    for day in days:
        utts = {(r["source"], c["id"]): c["utterances"] for r in day["recordings"] for c in r["conversations"]}
        for item in day["gold_facts"] + day["traps"] + day["also_true"]:
            for ev in item["evidence"]:
                assert ev["utterance_index"] < len(utts[(ev["source"], ev["conversation"])]), (day["date"], item)
        for trap in day["traps"]:
            first = trap["evidence"][0]
            said = utts[(first["source"], first["conversation"])][first["utterance_index"]]["text"]
            assert trap["text_in_transcript"] in said, (day["date"], trap["id"])


def test_a_written_day_is_trained_on_in_every_fold_and_never_held_out():
    days_by_date = {
        "2026-01-01": {"wearer": "Shared One"},
        "2026-01-02": {"wearer": "Shared Two"},
        "2025-01-01": {"wearer": "Written Three", "written": "2025-01-01.day"},
    }
    turns = [{"set": "days", "day": d} for d in days_by_date] + [{"set": "persona", "group": "persona:0001"}]
    wearers, units = train_turn_model.fold_keys(turns, [], days_by_date)
    assert wearers == ["Shared One", "Shared Two"]
    assert units["turn"][2] == train_turn_model.WRITTEN
    ctx = {"wearers": wearers, "units": units}
    assert train_turn_model.training_units(ctx) == ["Shared One", "Shared Two", train_turn_model.WRITTEN]
