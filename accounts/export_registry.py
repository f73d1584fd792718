"""What a user's export holds besides the ledger: a registry of owned models, filled by the apps that own them.

A source (chats, screen, …) calls ``register("chats", ["chats.ChatSession", "chats.ChatTurn"])`` from its
``AppConfig.ready()``; ``manage.py export`` writes every registered model's rows for the owner (primary keys
kept, so rows that point at each other, and ledger evidence that points at them, still match after a restore),
and ``manage.py import`` restores them, parents before children, in registration order. Fields named in
``exclude`` (credentials, caches) are left out of the export and get their defaults on restore.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Portable:
    group: str
    models: tuple[str, ...]  # "app_label.ModelName", parents before children
    exclude: dict[str, tuple[str, ...]] = field(default_factory=dict)  # model label -> fields left out


_REGISTRY: dict[str, Portable] = {}


def register(group: str, models: list[str], *, exclude: dict[str, list[str]] | None = None) -> None:
    """Add (or replace) ``group``'s models in the export. Idempotent; call it from ``AppConfig.ready()``."""
    _REGISTRY[group] = Portable(group, tuple(models), {k: tuple(v) for k, v in (exclude or {}).items()})


def registered() -> list[Portable]:
    return list(_REGISTRY.values())
