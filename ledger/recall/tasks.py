"""Background work for recall (django-q2). Thin: take ids, reload, call one service."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from ledger.recall import consolidation, services


def consolidate_user(user_id: int, trigger: str = "manual") -> dict | None:
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return None
    return consolidation.consolidate(owner=user, trigger=trigger).counts


def consolidate_all() -> int:
    """Daily schedule: every active user, then one purge of old task logs."""
    users = list(get_user_model().objects.filter(is_active=True))
    for n, user in enumerate(users):
        consolidation.consolidate(owner=user, trigger="schedule", purge_logs=(n == len(users) - 1))
    return len(users)


def reembed_user(user_id: int) -> dict | None:
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return None
    return {**services.reembed_owner(owner=user), "anchors": services.index_anchors(owner=user)}


def reembed_all() -> int:
    """Lazy re-embed schedule: vectors for new rows, and for every row after the embedding space changed; new
    evidence linked to the turns it rests on (fact-augmented keys)."""
    total = 0
    for user in get_user_model().objects.filter(is_active=True):
        total += sum(services.reembed_owner(owner=user).values()) + services.index_anchors(owner=user)
    return total


def record_usage(user_id: int, refs: list, at: str) -> int:
    """Usage feedback queued by a recall call: (kind, ref_id, public id) of each surfaced item, and when."""
    from datetime import datetime

    from ledger.recall.planner import RecallItem

    user = get_user_model().objects.filter(pk=user_id).first()
    if user is None:
        return 0
    items = [RecallItem(id=str(item_id), kind=kind, text="", ref_id=int(ref_id)) for kind, ref_id, item_id in refs]
    return services.record_usage(owner=user, items=items, now=datetime.fromisoformat(at))
