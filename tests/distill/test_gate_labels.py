"""How the persona development set labels a candidate (``bench/gate_data.persona_label``): an attribution error is a
memory about the wrong person, not a speaker's own first-person line that the dataset put in the other's persona.

The chat is invented (a glassblower and a ferry mechanic); no development file has it. Pure: no database.
"""

from __future__ import annotations

from bench.gate_data import PERSONA_NAMES, persona_label
from distill.extraction.base import ConversationIn, DayInput, TurnIn
from distill.extraction.deterministic import DeterministicExtractor

FIRST, SECOND = PERSONA_NAMES  # the names the bench gives the file's "User 1" and "User 2"
TURNS = [
    (FIRST, "I blow glass in a studio by the harbour."),
    (SECOND, "I repair ferry engines for a living."),
    (FIRST, "You repair ferry engines? That sounds loud."),
]
# The second speaker's persona lists the glass studio (the generator had the first voice it); the first's lists the
# ferry engines.
GOLD = [
    {"id": f"0001:{SECOND}:0", "person": SECOND, "text": "I blow glass in a studio by the harbour."},
    {"id": f"0001:{FIRST}:0", "person": FIRST, "text": "I repair ferry engines for a living."},
]


def candidates(turns=TURNS):
    utts = [TurnIn(index=i, speaker_name=w, is_owner=w == FIRST, text=t) for i, (w, t) in enumerate(turns)]
    day = DayInput(owner_name=FIRST, source_kind="chat", conversations=[ConversationIn(started_at=None, turns=utts)])
    return DeterministicExtractor().extract(day).candidates


def label_of(turn: int):
    found = [c for c in candidates() if c.evidence and c.evidence.first_index == turn]
    assert found, [(c.evidence.first_index, c.content) for c in candidates()]
    cand = found[0]
    subject = FIRST if cand.attribution == "user" else cand.person
    return persona_label(cand, subject, GOLD, TURNS)


def test_a_speakers_own_line_in_the_other_persona_is_a_false_accept_not_an_attribution_error():
    assert label_of(0) == (0, f"other-persona:0001:{SECOND}:0")
    assert label_of(1) == (0, f"other-persona:0001:{FIRST}:0")


def test_the_speakers_own_line_matching_their_own_persona_is_positive():
    second_gold = [{**GOLD[1], "person": SECOND, "id": f"0001:{SECOND}:1"}]
    cand = next(c for c in candidates() if c.evidence.first_index == 1)
    assert persona_label(cand, SECOND, second_gold, TURNS) == (1, f"0001:{SECOND}:1")


def test_a_claim_about_the_listener_matching_the_other_persona_stays_an_attribution_error():
    # The second speaker never speaks of engines; the first asks "You repair ferry engines?", a claim about the
    # second ("you"), and the line is in the first's persona: the memory names the wrong person.
    turns = [(SECOND, "Morning! Busy day at the harbour."), (FIRST, "You repair ferry engines? That sounds loud.")]
    cand = next(c for c in candidates(turns) if c.evidence.first_index == 1)
    assert cand.features["grammatical_person"] == "second"
    assert persona_label(cand, SECOND, GOLD, turns) == (0, f"attribution:0001:{FIRST}:0")
