from __future__ import annotations

from ninja import Schema


class HealthOut(Schema):
    status: str
    database: dict
    worker: dict
    tasks: dict
