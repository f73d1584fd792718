"""The demo week (`make up`) shows every outcome of the gate: accepted, queued for review and dropped with a reason.
Pure pipeline over the demo days (no database): the same extraction, scoring and decisions the pass makes."""

from __future__ import annotations

from datetime import date

from accounts.timestamps import parse_iso_utc as parse_iso
from distill import pipeline, trust
from distill.extraction.base import ConversationIn, DayInput, UtteranceIn
from wearables.imitation.demo_data import WEARER, build_demo_days


def demo_decisions(settings) -> list[trust.Scored]:
    settings.ALMANAC_LLM_BASE_URL = ""
    out: list[trust.Scored] = []
    for day in build_demo_days(date(2026, 11, 29)):
        for rec in day["recordings"]:
            convs, n = [], 0
            for c in rec["conversations"]:
                utts = []
                for u in c["utterances"]:
                    utts.append(UtteranceIn(n, u["speaker"], u["is_wearer"], u["text"], parse_iso(u["start"])))
                    n += 1
                convs.append(ConversationIn(started_at=parse_iso(c["started_at"]), utterances=utts))
            inp = pipeline.PassInput(day=DayInput(WEARER, convs, rec["source"]), policy=trust.Policy(), use_judge=False)
            out += pipeline.run(inp).scored
    return out


def test_the_demo_week_has_accepted_queued_and_dropped_memories_with_reasons(settings):
    scored = demo_decisions(settings)
    by = {d: [s for s in scored if s.decision == d] for d in (trust.ACCEPTED, trust.PENDING, trust.DROPPED)}
    assert len(by[trust.ACCEPTED]) >= 4 and len(by[trust.PENDING]) >= 8 and len(by[trust.DROPPED]) >= 4
    accepted = {s.candidate.content for s in by[trust.ACCEPTED]}
    assert "Dana is allergic to penicillin." in accepted
    assert any(text.startswith("Helen Park is a retired botanist") for text in accepted)
    reasons = {s.reason for s in by[trust.DROPPED]}
    assert any(r.startswith("not a claim: quote") for r in reasons)  # the TV line
    assert all(s.reason for s in scored)
    assert not any(s.candidate.content.startswith("Dana is allergic to the sea") for s in by[trust.ACCEPTED])
