from __future__ import annotations

from ninja import Schema


class ErrorOut(Schema):
    detail: str


class SettingsOut(Schema):
    username: str
    display_name: str
    timezone: str


class SettingsIn(Schema):
    display_name: str | None = None
    timezone: str | None = None


class HealthOut(Schema):
    status: str
    database: dict
    worker: dict
    tasks: dict
