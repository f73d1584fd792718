"""The bench's report on generated sessions: every category it promises, and failures grouped by kind and family
(pure: verdicts built by hand, no database, no server)."""

from __future__ import annotations

from screen.imitation.generator import DEV, generate
from screen.imitation.generator.check import EventVerdict, Verdict
from screen.imitation.generator.report import _failure_kind, print_report

SEED = 91


def _verdicts(failing: set[int]) -> list[Verdict]:
    out = []
    for g in generate(SEED, 12, DEV):
        events = [EventVerdict(e) for e in g.expected]
        if g.index in failing:
            events[0].failures.append("outcome 'win', expected 'loss'")
        out.append(Verdict(g, events, observed=len(g.expected)))
    return out


def test_the_report_prints_rates_per_family_surface_distractor_and_midnight(capsys):
    verdicts = _verdicts(failing={0, 5})
    print_report(verdicts, seed=SEED, partition=DEV, seconds=12.0, failures=True)
    out = capsys.readouterr().out
    assert "| sessions passing | 83.3 % (10/12) |" in out
    for heading in ("| activity family |", "| surface |", "| distractor |", "| local midnight |", "| failure |"):
        assert heading in out, heading
    for surface in ("browser", "native", "fullscreen", "phone"):
        assert f"\n| {surface} |" in out
    family = verdicts[0].session.expected[0].family
    assert f"| outcome ({family}) |" in out
    assert f"- {verdicts[5].session.name} (" in out


def test_failures_are_grouped_by_kind_and_family():
    assert _failure_kind("#1 game.match: outcome 'win', expected 'loss'") == "outcome (game.match)"
    assert _failure_kind("#0 travel.check_in: local date 2026-03-03, expected 2026-03-02") == (
        "local date (travel.check_in)"
    )
    assert _failure_kind("#0 game.match: outcome evidence 'x' does not show 'y'") == "outcome evidence (game.match)"
    assert _failure_kind("#2 meeting.call: 'I will send it' as ['other_person'], expected user_authored (Ana)") == (
        "said with the wrong role (meeting.call)"
    )
    assert _failure_kind("extra event: news.article none 'Headline'") == "extra event (news.article)"
    assert _failure_kind("count: 3 events for 2 expected") == "count"
    assert _failure_kind("extra event: not the owner's text shown as theirs: 'x' in 'y'") == (
        "not the owner's text shown as theirs"
    )


def _owner_says(text: str):
    """A generated session with a call in which the owner says ``text``, which another person says elsewhere."""
    import dataclasses

    from screen.imitation.generator.model import Said

    g = next(s for s in generate(SEED, 40, DEV) if any(e.family == "meeting.call" for e in s.expected))
    call = next(e for e in g.expected if e.family == "meeting.call")
    call.said = [*call.said, Said(text, "", "user_authored")]
    return dataclasses.replace(g, others_said=[*g.others_said, text]), call


def test_words_the_owner_says_in_one_call_and_another_person_in_another_are_the_owners_there():
    from screen.imitation.generator.check import judge

    session, call = _owner_says("Can we leave the rota until Monday?")
    mine = {"content_role": "user_authored", "text": "You said: Can we leave the rota until Monday?", "evidence": []}
    event = {"family": call.family, "started_at": call.start.isoformat(), "assertions": [mine]}
    event.update(title="", outcome="", polarity="", user_actions=[], evidence=[], attributes={}, summary="")
    event.update(outcome_subject="", ended_at=None, local_date="")
    verdict = judge(session, [event])
    assert not any("another person's words" in x for x in verdict.extra), verdict.extra
    # the others' words the owner never says stay checked
    session.others_said.append("Nobody says this but Ilse")
    mine["text"] += " Nobody says this but Ilse"
    assert any("another person's words" in x for x in judge(session, [event]).extra)
