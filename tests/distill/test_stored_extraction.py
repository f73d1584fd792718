"""A scope's talk is parsed once: a pass over unchanged talk (a sibling device's new day, a policy change)
re-scores the kept candidates instead of parsing again, and decides exactly as a fresh parse would."""

from __future__ import annotations

import pytest

from distill import policies, writing
from distill.extraction import deterministic
from distill.extraction.base import Candidate, ConversationIn, DayInput, TurnIn
from distill.models import StoredExtraction
from ledger.forget.services import forget_person_names
from ledger.models import Fact
from wearables.models import Source
from wearables.services import memories as services

from .conftest import T0, build_day

pytestmark = pytest.mark.django_db

# Sentences and names from no development file: a harpsichord restorer, glassblowing, rooftop beehives.
TALK = [
    ("user", True, "Morning, Ilse."),
    ("Ilse Haugen", False, "You're restoring the harpsichord for the chapel now."),
    ("user", True, "I teach glassblowing on Thursdays and I keep two beehives on the roof."),
    ("Ilse Haugen", False, "My brother Anselm moved to Graz last spring."),
]
LINES = {"auto_approve_trust": 0.6, "review_trust": 0.25}  # owner-chosen lines: these tests are about mechanics


@pytest.fixture
def parses(monkeypatch):
    """Every day the deterministic extractor parses, in order."""
    seen: list[DayInput] = []
    original = deterministic.DeterministicExtractor.extract

    def counting(self, day):
        seen.append(day)
        return original(self, day)

    monkeypatch.setattr(deterministic.DeterministicExtractor, "extract", counting)
    return seen


def _lines(owner):
    for kind in ("limitless", "bee"):
        policies.update_policy(owner=owner, source_key=f"wearable:{kind}", **LINES)


def _decisions(owner, kind="limitless"):
    rows = Fact.objects.owned_by(owner).filter(tags__contains=[f"wearable:{kind}"]).prefetch_related("evidence")
    return sorted(
        (f.content, f.status, f.evidence.first().details["trust_score"], tuple(f.evidence.first().details["flags"]))
        for f in rows
    )


def test_candidates_survive_being_kept():
    day = DayInput(
        owner_name="Alice Example",
        conversations=[
            ConversationIn(
                started_at=T0,
                turns=[TurnIn(i, name, is_owner, text, T0) for i, (name, is_owner, text) in enumerate(TALK)],
            )
        ],
    )
    candidates = deterministic.DeterministicExtractor().extract(day).candidates
    assert len(candidates) >= 3
    assert [Candidate.from_dict(c.as_dict()) for c in candidates] == candidates


# Told to the owner by a provider-named speaker: about the owner, in the review band until a sibling agrees.
TOLD = [("user", True, "Morning."), ("Ilse Haugen", False, "You work weekends at the botanical archive now.")]


def test_a_sibling_day_rescores_the_other_device_without_parsing_it_again(user, parses):
    _lines(user)
    # the first pass asks whatever the model scores the claim (an accept line no score reaches)
    policies.update_policy(owner=user, source_key="wearable:limitless", auto_approve_trust=0.999, review_trust=0.01)
    services.run_memory_pass(transcript=build_day(user, "limitless", TOLD))
    [fact] = Fact.objects.owned_by(user)
    p = fact.evidence.first().details["trust_score"]
    # The owner's accept line just above what the claim scores alone: only the sibling's agreement carries it.
    policies.update_policy(
        owner=user,
        source_key="wearable:limitless",
        auto_approve_trust=round(p + 0.001, 4),
        review_trust=round(max(p - 0.05, 0.0), 4),
    )
    limitless = Source.objects.get(owner=user, kind="limitless").transcripts.get()
    assert services.run_memory_pass(transcript=limitless).reused_extraction
    fact.refresh_from_db()
    assert fact.status == "pending_review" and len(parses) == 1

    report = services.run_memory_pass(transcript=build_day(user, "bee", TOLD))
    assert report.siblings_rescored == [limitless.pk]
    assert len(parses) == 2  # bee's own day; limitless was re-scored from its kept candidates
    fact.refresh_from_db()
    assert fact.status == "accepted" and fact.status_reason == writing.PROMOTED


def _owner_neutral(rows, owner):
    first = owner.first_name or owner.username
    return [(content.replace(first.capitalize(), "OWNER"), *rest) for content, *rest in rows]


def test_re_scoring_kept_candidates_decides_as_a_fresh_parse_would(user, other_user):
    for owner in (user, other_user):
        _lines(owner)
        services.run_memory_pass(transcript=build_day(owner, "limitless", TALK))
    StoredExtraction.objects.owned_by(other_user).delete()  # other_user's sibling pass parses limitless afresh
    for owner in (user, other_user):
        services.run_memory_pass(transcript=build_day(owner, "bee", TALK))
    kept, fresh = _owner_neutral(_decisions(user), user), _owner_neutral(_decisions(other_user), other_user)
    assert len(kept) >= 3 and kept == fresh


def test_changed_talk_is_parsed_again_and_one_row_is_kept_per_scope(user, parses):
    _lines(user)
    services.run_memory_pass(transcript=build_day(user, "limitless", TALK))
    changed = [*TALK[:2], ("user", True, "I teach glassblowing on Fridays now.")]
    report = services.run_memory_pass(transcript=build_day(user, "limitless", changed))
    assert len(parses) == 2 and not report.reused_extraction
    [row] = StoredExtraction.objects.owned_by(user)
    assert "Fridays" in str(row.candidates) and "Thursdays" not in str(row.candidates)


def test_a_forgotten_person_leaves_no_kept_candidate(user):
    _lines(user)
    services.run_memory_pass(transcript=build_day(user, "limitless", TALK))
    assert "Anselm" in str(StoredExtraction.objects.owned_by(user).get().candidates)
    forget_person_names(owner=user, names=["Anselm"])
    assert not StoredExtraction.objects.owned_by(user).filter(candidates__icontains="Anselm").exists()
    assert not any("Anselm" in str(r.candidates) for r in StoredExtraction.objects.all())


def test_with_a_key_kept_candidates_hold_no_plaintext_and_still_re_score(user, settings, parses):
    from cryptography.fernet import Fernet
    from django.db import connection

    settings.ALMANAC_ENCRYPTION_KEY = [Fernet.generate_key().decode()]
    _lines(user)
    transcript = build_day(user, "limitless", TALK)
    services.run_memory_pass(transcript=transcript)
    with connection.cursor() as cur:
        cur.execute("SELECT candidates::text FROM distill_storedextraction")
        [(raw,)] = cur.fetchall()
    assert "glassblowing" not in raw and "Anselm" not in raw
    assert services.run_memory_pass(transcript=transcript).reused_extraction and len(parses) == 1


def test_kept_extractions_are_listed_read_only_in_admin(client, user):
    from tests.factories import UserFactory

    _lines(user)
    services.run_memory_pass(transcript=build_day(user, "limitless", TALK))
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    listing = client.get("/admin/distill/storedextraction/")
    assert listing.status_code == 200 and b"wearable:limitless:2026-03-02" in listing.content
    row = StoredExtraction.objects.owned_by(user).get()
    page = client.get(f"/admin/distill/storedextraction/{row.pk}/change/")
    assert page.status_code == 200 and b'name="scope_key"' not in page.content  # shown, never editable


def test_with_an_llm_configured_nothing_is_kept(user, settings, parses):
    from tests.support.openai_server import OpenAIImitation

    server = OpenAIImitation(timeout_seconds=2).start()
    try:
        settings.ALMANAC_LLM_BASE_URL, settings.ALMANAC_LLM_MODEL, settings.ALMANAC_LLM_TIMEOUT = (
            server.base_url,
            "m",
            0.5,
        )
        server.chat_handler = lambda messages: "not json"  # every chunk falls back to the deterministic parse
        _lines(user)
        transcript = build_day(user, "limitless", TALK)
        services.run_memory_pass(transcript=transcript)
        again = services.run_memory_pass(transcript=transcript)
    finally:
        server.stop()
    assert not again.reused_extraction and len(parses) >= 2  # the model's answers are not a function of the talk
    assert not StoredExtraction.objects.owned_by(user).exists()
