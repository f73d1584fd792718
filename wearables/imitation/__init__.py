"""Local imitations of the Limitless, Bee and Omi APIs, speaking their real wire formats on 127.0.0.1.

Used by the tests, the demo (``make up``) and ``python -m wearables.imitation``. Days come in the labeled-days
JSON shape (``/work/shared/bench/labeled-days/README.md``, "File format").
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wearables.imitation.base import ImitationServer, RecordedRequest, Reply
from wearables.imitation.bee import BeeServer
from wearables.imitation.limitless import LimitlessServer
from wearables.imitation.omi import OmiServer

__all__ = [
    "BeeServer",
    "ImitationServer",
    "LimitlessServer",
    "OmiServer",
    "RecordedRequest",
    "Reply",
    "RunningServers",
    "load_days",
    "start_servers",
]


def load_days(directory: str | Path) -> list[dict]:
    """Every ``*.json`` day file in ``directory``, in file-name (date) order. Raises ``ValueError`` on bad JSON."""
    days = []
    for path in sorted(Path(directory).glob("*.json")):
        try:
            days.append(json.loads(path.read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name} is not valid JSON: {exc}") from None
    return days


@dataclass
class RunningServers:
    """The three servers started together; ``credentials[kind]`` and ``base_urls[kind]`` configure a source."""

    limitless: LimitlessServer
    bee: BeeServer
    omi: OmiServer
    credentials: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def servers(self) -> dict[str, ImitationServer]:
        return {"limitless": self.limitless, "bee": self.bee, "omi": self.omi}

    @property
    def base_urls(self) -> dict[str, str]:
        return {kind: server.base_url for kind, server in self.servers.items()}

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()


def start_servers(
    days: Iterable[dict],
    *,
    port_base: int = 0,
    bee_facts: list[dict] | None = None,
    omi_memories: list[dict] | None = None,
    **options: Any,
) -> RunningServers:
    """Start Limitless, Bee and Omi imitations serving ``days``; ports ``port_base``, +1, +2 (0 = any free port).

    Returns the running servers with ready-made credentials: Limitless ``api_key``, Bee none (proxy mode), Omi
    Integration API ``api_key``/``app_id``/``user_id``. ``options`` go to every server (e.g. ``slow_seconds``).
    """
    days = list(days)
    limitless = LimitlessServer(days, port=port_base, **options)
    bee = BeeServer(days, port=port_base + 1 if port_base else 0, facts=bee_facts, **options)
    omi = OmiServer(days, port=port_base + 2 if port_base else 0, memories=omi_memories, **options)
    started: list[ImitationServer] = []
    try:
        for server in (limitless, bee, omi):
            started.append(server.start())
    except OSError:
        for server in started:
            server.stop()
        raise
    return RunningServers(
        limitless=limitless,
        bee=bee,
        omi=omi,
        credentials={
            "limitless": {"api_key": limitless.api_key},
            "bee": {},
            "omi": {"api_key": omi.app_key, "app_id": omi.app_id, "user_id": omi.user_id},
        },
    )
