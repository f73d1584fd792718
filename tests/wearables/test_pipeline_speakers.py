"""Speaker labeling (pure): device flags, user corrections, registry, two-device alignment, text cues, fallback."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from wearables.pipeline import Convo, KnownPerson, PipelineConfig, Turn
from wearables.pipeline.speakers import label_conversation

T0 = datetime(2026, 6, 12, 21, 31, tzinfo=UTC)
DIALOGUE = [
    ("Thanks for coming over, the new kitchen looks great.", False),
    ("It took three months but the counters finally arrived on Monday.", True),
    ("Are you still planning the housewarming party for July?", False),
    ("Yes, the twelfth of July, I already invited my whole team.", True),
    ("Then I will bring the lemon cake everybody liked last year.", False),
    ("Perfect, Theo will handle the grill and the music playlist.", True),
]


def convo(source, lines, *, labels=("0", "1"), flags=False, start=T0, ext="c1", names=None, person_ids=None):
    turns = []
    for i, (text, wearer) in enumerate(lines):
        label = labels[1] if wearer else labels[0]
        turns.append(
            Turn(
                text=text,
                speaker_label=label,
                is_wearer=wearer if flags else None,
                speaker_name=(names or {}).get(label, ""),
                person_id=(person_ids or {}).get(label),
                started_at=start + timedelta(seconds=5 * i),
                ended_at=start + timedelta(seconds=5 * i + 4),
            )
        )
    return Convo(
        source=source,
        external_id=ext,
        started_at=start,
        ended_at=start + timedelta(seconds=5 * len(lines)),
        turns=turns,
    )


CFG = PipelineConfig(user_name="Alice Example")


def test_device_flag_decides_and_the_wearer_renders_as_you():
    out = label_conversation(convo("limitless", DIALOGUE, labels=("Priya", "user"), flags=True), CFG)
    assert out.wearer_method == "provider" and out.wearer_label == "user"
    assert {t.speaker_name for t in out.turns if t.is_wearer} == {"Alice Example (you)"}
    assert {t.speaker_name for t in out.turns if not t.is_wearer} == {"Priya"}


def test_bee_wearer_comes_from_another_devices_recording_even_when_it_is_not_label_0():
    reference = convo("limitless", DIALOGUE, labels=("Priya", "user"), flags=True, start=T0 - timedelta(seconds=3))
    # Bee recorded the same talk with the wearer as "0" this time, and slightly different words.
    bee_lines = [(t.replace("great", "grand"), w) for t, w in DIALOGUE]
    bee = convo("bee", bee_lines, labels=("1", "0"))
    out = label_conversation(bee, PipelineConfig(user_name="Alice Example", reference=[reference]))
    assert out.wearer_method == "other_device"
    assert out.wearer_label == "0"
    assert out.wearer_confidence >= 0.8
    assert all(t.is_wearer == (t.speaker_label == "0") for t in out.turns)


def test_alignment_survives_one_diarization_slip_on_the_other_device():
    slipped = [(t, (not w) if i == 2 else w) for i, (t, w) in enumerate(DIALOGUE)]
    reference = convo("omi", slipped, labels=("SPEAKER_00", "SPEAKER_01"), flags=True)
    out = label_conversation(
        convo("bee", DIALOGUE, labels=("0", "1")), PipelineConfig(user_name="Alice", reference=[reference])
    )
    assert (out.wearer_method, out.wearer_label) == ("other_device", "1")


def test_a_recording_at_another_time_is_not_used_for_alignment():
    reference = convo("limitless", DIALOGUE, labels=("Priya", "user"), flags=True, start=T0 + timedelta(hours=3))
    out = label_conversation(
        convo("bee", DIALOGUE, labels=("1", "0")), PipelineConfig(user_name="Alice", reference=[reference])
    )
    assert out.wearer_method != "other_device"


def test_text_cues_find_who_answers_to_the_users_name():
    lines = [
        ("You must be Alice! I'm Carla, we spoke on the phone.", False),
        ("Hi! Yes, nice to meet you.", True),
        ("Come on in, the unit is on the fourth floor and the elevator is new.", False),
        ("Great.", True),
        ("The laundry room is in the basement, and the gym is next to it, open all night long.", False),
    ]
    out = label_conversation(convo("bee", lines, labels=("0", "1")), CFG)
    assert (out.wearer_method, out.wearer_label) == ("text_cues", "1")
    assert 0.5 <= out.wearer_confidence < 0.9


def test_text_cues_use_a_caller_introducing_themselves_by_another_name():
    lines = [
        (
            "Thank you for calling Lakeshore Fiber, this is Dion, how can I help you today, and what is the account?",
            False,
        ),
        ("Hi, I need internet at my new place.", True),
        ("Sure, I can help with that, what is the new address and the unit number please?", False),
        ("Twenty-six fifty North Kedzie.", True),
        ("Perfect, we have fiber in that building already so the install is quick and easy.", False),
    ]
    out = label_conversation(convo("bee", lines, labels=("0", "1")), CFG)
    assert (out.wearer_method, out.wearer_label) == ("text_cues", "1")


def test_without_any_evidence_the_most_talkative_speaker_is_a_low_confidence_guess():
    lines = [("Short.", False), ("A much longer sentence with many more words in it than the other one.", True)]
    out = label_conversation(convo("bee", lines, labels=("0", "1")), CFG)
    assert out.wearer_method == "most_talkative" and out.wearer_label == "1"
    assert out.wearer_confidence < 0.5


def test_the_users_correction_for_one_conversation_beats_the_device_flag():
    me = KnownPerson(pk=1, name="Alice Example", is_self=True)
    cfg = PipelineConfig(user_name="Alice Example", assignments={("c1", "SPEAKER_00"): me}, self_person=me)
    out = label_conversation(convo("omi", DIALOGUE, labels=("SPEAKER_00", "SPEAKER_01"), flags=True), cfg)
    assert out.wearer_method == "user" and out.wearer_label == "SPEAKER_00"
    assert all(t.is_wearer == (t.speaker_label == "SPEAKER_00") for t in out.turns)
    assert all(t.person_pk == 1 for t in out.turns if t.is_wearer)


def test_the_registry_names_stable_identities_everywhere():
    sam = KnownPerson(pk=7, name="Sam Ortiz")
    cfg = PipelineConfig(user_name="Alice", identities={("person_id", "p-42"): sam})
    c = convo("omi", DIALOGUE, labels=("SPEAKER_03", "SPEAKER_00"), flags=True, person_ids={"SPEAKER_03": "p-42"})
    out = label_conversation(c, cfg)
    others = {(t.speaker_name, t.person_pk) for t in out.turns if not t.is_wearer}
    assert others == {("Sam Ortiz", 7)}


def test_a_speaker_the_device_names_with_the_users_own_name_is_the_wearer():
    c = convo(
        "omi", DIALOGUE, labels=("SPEAKER_01", "SPEAKER_00"), names={"SPEAKER_00": "Alice Example", "SPEAKER_01": "Ben"}
    )
    out = label_conversation(c, CFG)
    assert out.wearer_method == "registry" and out.wearer_label == "SPEAKER_00"
    assert {t.speaker_name for t in out.turns if not t.is_wearer} == {"Ben"}
