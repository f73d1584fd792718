"""Was something decided? Sentences from conversations no generated call holds: a renovation, a band, a
wedding, a school trip, a garden allotment."""

from __future__ import annotations

import pytest

from screen.events.decisions import decides, decision_in


@pytest.mark.parametrize(
    "sentence",
    [
        "Right, we're going with the slate tiles for the bathroom.",
        "The committee approved the coach for the school trip.",
        "Okay, we've settled on the Saturday slot for the gig.",
        "Let's go ahead with the oak floor.",
        "We agreed to move the wedding to June.",
        "Plot nine it is then.",
        "Decision: the band rehearses on Thursdays.",
        "Fine, let's lock in the second quote.",
    ],
)
def test_a_decision_made_is_recognised(sentence):
    assert decides(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "We can decide about the tiles after the plumber has been.",
        "I haven't decided between the two venues yet.",
        "What if we went with the smaller hall?",
        "Let's not choose anything until the quotes are in.",
        "I'll send the floor plan to everyone tonight.",
        "Could we agree on a budget next week?",
        "Nobody has approved the coach yet.",
        "We should pick a date before the end of the month.",
    ],
)
def test_proposals_deferrals_and_commitments_are_not_decisions(sentence):
    assert not decides(sentence)


def test_the_first_decision_said_is_found_among_other_talk():
    talk = ["Can you all hear me?", "What about the blue paint?", "Blue it is.", "I'll buy it tomorrow."]
    assert decision_in(talk) == 2
    assert decision_in(talk[:2] + talk[3:]) is None
