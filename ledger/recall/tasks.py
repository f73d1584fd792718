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
    return services.reembed_owner(owner=user)


def reembed_all() -> int:
    """Lazy re-embed schedule: vectors for new rows, and for every row after the embedding space changed."""
    total = 0
    for user in get_user_model().objects.filter(is_active=True):
        total += sum(services.reembed_owner(owner=user).values())
    return total
