"""Bee source settings."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr


class BeeConf(BaseModel):
    """``api_token`` is optional: the local ``bee proxy`` injects it. ``page_limit`` conversations per list page;
    ``date_filter`` sends ``from``/``to`` (server-side, on ``created_at``) to narrow the listing."""

    model_config = ConfigDict(extra="ignore")

    api_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("api_token", "token", "api_key"))
    page_limit: int = Field(default=100, ge=1, le=1000)
    date_filter: bool = True
