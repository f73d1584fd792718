"""Off-the-record elision (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from wearables.pipeline import Convo, Turn
from wearables.pipeline.off_record import elide_off_record

T0 = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)


def convo(*texts, speakers=("a", "b")):
    return Convo(
        source="omi",
        external_id="c1",
        started_at=T0,
        turns=[Turn(text=t, speaker_label=speakers[i % len(speakers)]) for i, t in enumerate(texts)],
    )


def texts(c):
    return [t.text for t in c.turns]


def test_span_between_markers_is_removed_across_speakers():
    c = convo(
        "Okay. Um. Off the record?",
        "Sure. Dana is leaving in March.",
        "Wow. Okay. Back on the record.",
        "So, the budget.",
    )
    (out,) = elide_off_record([c])
    assert texts(out) == ["Okay. Um.", "So, the budget."]  # "Wow. Okay." was still inside the span
    assert "Dana" not in " ".join(texts(out))


def test_text_after_back_on_the_record_in_the_same_turn_is_kept():
    c = convo("Off the record, I hate this job.", "Back on the record. How's your ankle?")
    (out,) = elide_off_record([c])
    assert texts(out) == ["How's your ankle?"]


def test_a_span_that_never_closes_removes_the_rest_of_the_conversation():
    c = convo("Fine.", "Off the record: the merger is Tuesday.", "Really?", "Yes, the 14th.")
    (out,) = elide_off_record([c])
    assert texts(out) == ["Fine."]


def test_span_does_not_leak_into_the_next_conversation():
    a = convo("Off the record, secret plans.")
    b = Convo(source="omi", external_id="c2", started_at=T0, turns=[Turn(text="Public talk.", speaker_label="a")])
    out = elide_off_record([a, b])
    assert texts(out[0]) == [] and texts(out[1]) == ["Public talk."]


def test_fillers_inside_the_marker_phrase_still_count():
    (out,) = elide_off_record([convo("Off the, uh, record: the code is blue.", "On the record again, hi.")])
    assert "blue" not in " ".join(texts(out))


def test_custom_phrases_and_disabling():
    c = convo("Just between us, I'm quitting.", "End of secret. Lunch?")
    (out,) = elide_off_record([c], off_phrases=["just between us"], on_phrases=["end of secret"])
    assert texts(out) == ["Lunch?"]
    (kept,) = elide_off_record([convo("Off the record, x y z.")], enabled=False)
    assert texts(kept) == ["Off the record, x y z."]


def test_elided_stretches_are_recorded_and_drop_another_devices_turns():
    from datetime import timedelta

    from wearables.pipeline.off_record import elide_windows

    def timed(texts, offset=0):
        return Convo(
            source="x",
            external_id="c",
            started_at=T0,
            turns=[
                Turn(
                    text=t,
                    speaker_label="a",
                    started_at=T0 + timedelta(seconds=10 * i + offset),
                    ended_at=T0 + timedelta(seconds=10 * i + offset + 8),
                )
                for i, t in enumerate(texts)
            ],
            title="Quoted secret",
        )

    talk = ["Hello.", "Off the record?", "Dana is leaving.", "Back on the record.", "Lunch?"]
    (heard,) = elide_off_record([timed(talk)])
    assert len(heard.elided) == 1
    # The other device mis-heard the marker, and its clock is 3 seconds off.
    misheard = timed(
        ["Hello.", "Off the wreck hurt?", "Dana is leaving.", "Back on the wreck hurt.", "Lunch?"], offset=3
    )
    out = elide_windows(misheard, heard.elided)
    assert [t.text for t in out.turns] == ["Hello.", "Lunch?"] and out.title == ""
