from __future__ import annotations

from django.utils import timezone


def heartbeat() -> str:
    """A trivial task: proves the worker picks up scheduled work (its result shows in admin)."""
    return timezone.now().isoformat()
