"""Demo hook for ``make up``: a few days of coding-agent sessions and assistant chats, distilled, so the Chats
page has sessions, episodes, lessons and a morning report. Idempotent (sessions are keyed by their ids)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.utils import timezone

from chats.models import Lesson, SleepReport
from chats.services import sleep
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from distill import services as distill_services

PROJECT = "/home/dana/src/seedbank"


def _refused(command: str) -> dict:
    return {"id": "t", "name": "Bash", "input": {"command": command}, "is_error": True,
            "result": "The user doesn't want to proceed with this tool use. The tool use was rejected."}  # fmt: skip


def _failed(command: str, error: str) -> dict:
    return {"id": "t", "name": "Bash", "input": {"command": command}, "is_error": True, "result": error}


def _ran(command: str, output: str) -> dict:
    return {"id": "t", "name": "Bash", "input": {"command": command}, "is_error": False, "result": output}


def _missing_module(test: str) -> list[dict]:
    """A failure that mattered: the tests fail on a missing module, the agent installs it, the tests pass."""
    return [
        _failed(test, "E   ModuleNotFoundError: No module named 'freezegun'"),
        _ran("pip install freezegun", "Successfully installed freezegun-1.5.1"),
        _ran(test, "12 passed"),
    ]


def _sessions() -> list[tuple[int, str, str, str, list]]:
    """(days ago, source, id, title, [(role, text, tool_calls)])."""
    return [
        (3, "chat:claude-code", "demo-cc-1", "Seed inventory export", [
            ("user", "Add a CSV export of the seed inventory to the admin, with germination rates per variety.", []),
            ("assistant", "I'll install the csv helper first.", [_refused("npm install csv-writer")]),
            ("user", "No, this is a Django project: use Python's csv module, never npm packages here.", []),
            ("assistant", "Done: the admin has an Export CSV action using the csv module; let's add tests next.", []),
        ]),
        (2, "chat:claude-code", "demo-cc-2", "Fix flaky germination test", [
            ("user", "The germination rate test fails every other run on CI, can you find out why?", []),
            ("assistant", "Running it locally.", _missing_module("pytest tests/test_rates.py")),
            ("assistant", "freezegun is missing from the dev extra; added it and pinned the clock in the test.", []),
            ("user", "Great. Turns out CI runs the tests in UTC while my laptop is on Mountain time.", []),
        ]),
        (1, "chat:codex", "demo-codex-1", "Staging migrations", [
            ("user", "Run the pending migrations against staging and tell me which ones are new.", []),
            ("assistant", "Trying pytest first.", _missing_module("pytest -q")),
            ("assistant", "Two migrations are pending: 0031_lot_numbers and 0032_drop_legacy_prices.", []),
            ("user", "Surprisingly staging still has the legacy prices table; I thought we dropped it in spring.", []),
        ]),
        (1, "chat:openai", "demo-chatgpt-1", "Tomato seedlings", [
            ("user", "My tomato seedlings are getting leggy under the grow light. I start them in March in the garage.", []),
            ("assistant", "Lower the light to 5 cm above the leaves and run a small fan; 16 hours of light is plenty.", []),
            ("user", "Thanks, I'll lower it tonight and remember to buy a clip fan tomorrow.", []),
        ]),
        (0, "chat:claude-code", "demo-cc-3", "Lot number labels", [
            ("user", "Print lot numbers on the seed packet labels, using the new lot_numbers field.", []),
            ("assistant", "Adding a dependency for label layout.", [_refused("npm install label-maker")]),
            ("user", "Don't use npm packages in this Django project, the csv and reportlab modules are enough.", []),
            ("assistant", "Labels now include the lot number, rendered with reportlab.", []),
        ]),
    ]  # fmt: skip


# What the coding agent asked to remember over MCP (``remember``) in those sessions, with the user's words it rests
# on. An agent's proposal is never accepted on its own: these wait on the Review page.
AGENT_PROPOSALS = [
    ("agent:claude-code", "Dana's seedbank project uses Python's csv and reportlab modules, never npm packages.",
     "Don't use npm packages in this Django project, the csv and reportlab modules are enough."),
    ("agent:claude-code", "Dana's CI runs the tests in UTC while Dana's laptop is on Mountain time.",
     "Turns out CI runs the tests in UTC while my laptop is on Mountain time."),
    ("agent:codex", "Staging still has the legacy prices table.",
     "Surprisingly staging still has the legacy prices table; I thought we dropped it in spring."),
]  # fmt: skip


def propose_from_agents(user) -> int:
    """The agents' ``remember`` calls, as the MCP tool makes them (a proposal already made is a duplicate)."""
    made = 0
    for source, text, quote in AGENT_PROPOSALS:
        result = distill_services.remember(owner=user, text=text, source_key=source, quote=quote)
        made += result.outcome not in ("duplicate", "dropped", "off")
    return made


def seed(user, now: datetime | None = None) -> int:
    now = now or timezone.now()
    written = 0
    for days_ago, source, sid, title, turns in _sessions():
        day = timezone.localdate(now) - timedelta(days=days_ago)
        start = timezone.make_aware(datetime.combine(day, time(10, 0)))
        items = [TurnIn(role=r, text=t, speaker=r, is_owner=r == "user", tool_calls=c,
                        at=start + timedelta(minutes=2 * i)) for i, (r, t, c) in enumerate(turns)]  # fmt: skip
        data = SessionIn(source_key=source, external_id=sid, title=title, started_at=start, turns=items,
                         project=PROJECT if source != "chat:openai" else "")  # fmt: skip
        stored = store_session(owner=user, data=data)
        if stored.added:
            stored.session.refresh_from_db()
            distill_session(session=stored.session)
            written += 1
    if written or not SleepReport.objects.filter(owner=user).exists():
        sleep.sleep(owner=user, now=now)
    return written


def start(user, first_run: bool, stdout) -> list:
    seed(user)
    propose_from_agents(user)
    lessons = Lesson.objects.owned_by(user).active().exclude(fact_public_id__isnull=True).count()
    stdout.write(f"Chats: demo sessions ready, {lessons} lesson(s); page at /chats/")
    return []
