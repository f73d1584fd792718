"""The demo seed behind ``make up``: several days of sessions, lessons and a morning report; idempotent."""

from __future__ import annotations

import io

import pytest

from chats import demo
from chats.models import ChatSession, Lesson, SleepReport

pytestmark = pytest.mark.django_db


def test_demo_seed_fills_the_chats_page_and_is_idempotent(user):
    demo.start(user, True, io.StringIO())
    assert ChatSession.objects.filter(owner=user).count() == 5
    assert len({s.started_at.date() for s in ChatSession.objects.filter(owner=user)}) >= 3
    active = Lesson.objects.filter(owner=user, status="active")
    assert active.filter(kind="correction").exists() and active.filter(kind="error").exists()
    assert SleepReport.objects.filter(owner=user).exists()
    assert demo.seed(user) == 0
    assert ChatSession.objects.filter(owner=user).count() == 5


def test_the_agents_proposals_wait_for_review_and_are_made_once(user):
    from ledger.choices import Status
    from ledger.models import Fact

    assert demo.propose_from_agents(user) == len(demo.AGENT_PROPOSALS) == 3
    proposed = Fact.objects.owned_by(user).filter(tags__overlap=["agent:claude-code", "agent:codex"])
    assert proposed.count() == 3
    assert set(proposed.values_list("status", flat=True)) == {Status.PENDING_REVIEW}
    assert demo.propose_from_agents(user) == 0 and proposed.count() == 3
