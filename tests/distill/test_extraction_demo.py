"""The demo week (`make up`) shows every outcome of the gate: accepted, queued for review and dropped with a reason.
Pure pipeline over the demo days (no database): the same extraction, scoring and decisions the pass makes."""

from __future__ import annotations

from datetime import date

from accounts.timestamps import parse_iso_utc as parse_iso
from distill import pipeline, trust
from distill.extraction.base import ConversationIn, DayInput, TurnIn
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
                    utts.append(TurnIn(n, u["speaker"], u["is_wearer"], u["text"], parse_iso(u["start"])))
                    n += 1
                convs.append(ConversationIn(started_at=parse_iso(c["started_at"]), turns=utts))
            inp = pipeline.PassInput(day=DayInput(WEARER, convs, rec["source"]), policy=trust.Policy(), use_judge=False)
            out += pipeline.run(inp).scored
    return out


def test_the_demo_week_gives_the_gate_its_cases_with_reasons(settings):
    scored = demo_decisions(settings)
    by_content = {s.candidate.content: s for s in scored}
    allergy = by_content.get(f"{WEARER.split()[0]} is allergic to penicillin.")
    assert allergy is not None and allergy.candidate.kind == "health" and allergy.candidate.ceiling == ""
    assert any(text.startswith("Helen Park is a retired botanist") for text in by_content)
    tv_line = [s for s in scored if "allergic to the sea" in s.candidate.content]
    assert len(tv_line) == 1 and tv_line[0].candidate.features["reported"] is True
    assert tv_line[0].decision != trust.ACCEPTED
    assert len(scored) >= 20
    assert all(s.reason for s in scored)
