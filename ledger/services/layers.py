"""Memory layers: identity (overrides + derived narrative), pinned facts and episodes.

Plain rows, not commits: they are written here directly.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.exceptions import DomainError
from ledger import permitted_uses
from ledger.forget.hooks import run_forget_hooks
from ledger.models import Episode, Fact, IdentityNarrative, IdentityOverride, PinnedFact
from ledger.validation import check_choice, check_owner, clamp01


def _delete_episodes(owner, pks: list[int]) -> int:
    if not pks:
        return 0
    run_forget_hooks(owner=owner, episode_ids=pks)
    return Episode.objects.filter(owner=owner, pk__in=pks).delete()[0]


def set_identity_override(*, owner, key: str, value: str) -> IdentityOverride:
    """Create or replace one user-authored identity statement."""
    key, value = (key or "").strip()[:100], (value or "").strip()
    if not key or not value:
        raise DomainError("Both a key and a value are required")
    obj, _ = IdentityOverride.objects.update_or_create(owner=owner, key=key, defaults={"value": value})
    return obj


def delete_identity_override(*, owner, key: str) -> None:
    IdentityOverride.objects.owned_by(owner).filter(key=key).delete()


def set_identity_narrative(*, owner, text: str, fact_ids=()) -> IdentityNarrative:
    obj, _ = IdentityNarrative.objects.update_or_create(
        owner=owner, defaults={"text": text, "fact_ids": [str(f) for f in fact_ids], "derived_at": timezone.now()}
    )
    return obj


def pin_fact(*, owner, fact: Fact, salience: float = 0.5, source_count: int = 1, pinned_by: str = "user") -> PinnedFact:
    """Pin (or re-pin) a fact in the pinned layer."""
    check_owner(fact, owner, "Fact")
    salience = clamp01(salience, "salience")
    obj, _ = PinnedFact.objects.update_or_create(
        owner=owner,
        fact=fact,
        defaults={"salience": salience, "source_count": max(1, int(source_count)), "pinned_by": pinned_by[:50]},
    )
    return obj


def update_pinned(
    *, owner, pinned: PinnedFact, salience: float | None = None, source_count: int | None = None
) -> PinnedFact:
    check_owner(pinned, owner, "Pinned fact")
    if salience is not None:
        pinned.salience = clamp01(salience, "salience")
    if source_count is not None:
        pinned.source_count = max(1, int(source_count))
    pinned.save(update_fields=["salience", "source_count", "updated_at"])
    return pinned


def unpin_fact(*, owner, pinned: PinnedFact) -> None:
    check_owner(pinned, owner, "Pinned fact")
    pinned.delete()


def record_usage(*, owner, pinned_ids=(), episode_ids=(), now: datetime | None = None) -> None:
    """Items surfaced to an agent: bump use count and last used (feeds consolidation)."""
    now = now or timezone.now()
    if pinned_ids:
        PinnedFact.objects.owned_by(owner).filter(public_id__in=list(pinned_ids)).update(
            use_count=F("use_count") + 1, last_used_at=now
        )
    if episode_ids:
        Episode.objects.owned_by(owner).filter(public_id__in=list(episode_ids)).update(updated_at=now)


EPISODE_FIELDS = (
    "title", "summary", "kind", "status", "topics", "entities", "decisions", "action_items", "salience",
    "started_at", "ended_at", "source_label", "source_type", "source_ref",
)  # fmt: skip


def upsert_episode(*, owner, key: str, summary: str, **fields) -> Episode:
    """Create or update the episode ``key`` (idempotent per key)."""
    key = (key or "").strip()
    if not key:
        raise DomainError("An episode needs a key")
    unknown = set(fields) - set(EPISODE_FIELDS)
    if unknown:
        raise DomainError(f"Unknown episode field(s): {', '.join(sorted(unknown))}")
    if "status" in fields:
        check_choice(fields["status"], permitted_uses.STATUSES, "status")
    if "salience" in fields:
        fields["salience"] = clamp01(fields["salience"], "salience")
    obj, _ = Episode.objects.update_or_create(owner=owner, key=key[:200], defaults={"summary": summary, **fields})
    return obj


def update_episode(*, owner, episode: Episode, **fields) -> Episode:
    check_owner(episode, owner, "Episode")
    unknown = set(fields) - set(EPISODE_FIELDS)
    if unknown:
        raise DomainError(f"Unknown episode field(s): {', '.join(sorted(unknown))}")
    for k, v in fields.items():
        setattr(episode, k, v)
    episode.save()
    return episode


def delete_episode(*, owner, episode: Episode) -> None:
    check_owner(episode, owner, "Episode")
    with transaction.atomic():
        _delete_episodes(owner, [episode.pk])


NARRATIVE_MAX_FACTS = 12


def derive_identity_narrative(*, owner, now: datetime | None = None) -> IdentityNarrative:
    """Rebuild the derived narrative from accepted, currently valid facts about the user (most important and
    most believed first). Deterministic; no LLM."""
    now = now or timezone.now()
    order = {name: i for i, name in enumerate(reversed(permitted_uses.IMPORTANCE_ORDER))}
    facts = list(
        Fact.objects.owned_by(owner)
        .licensed_for(permitted_uses.ANSWERS)
        .filter(subject_kind="user")
        .valid_at(now)
        .only("public_id", "content", "importance", "veracity", "recorded_at")
    )
    facts.sort(key=lambda f: (order.get(f.importance, 9), -f.veracity, f.recorded_at))
    chosen = facts[:NARRATIVE_MAX_FACTS]
    sentences = [f.content.strip().rstrip(".") + "." for f in chosen if f.content.strip()]
    return set_identity_narrative(owner=owner, text=" ".join(sentences), fact_ids=[f.public_id for f in chosen])
