"""Limitless source settings."""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr


class LimitlessConf(BaseModel):
    """``api_key`` (required); ``page_limit`` lifelogs per page (the documented maximum is 10; some hosts allow 100)."""

    model_config = ConfigDict(extra="ignore")

    api_key: SecretStr = Field(validation_alias=AliasChoices("api_key", "key", "token"), min_length=1)
    page_limit: int = Field(default=10, ge=1, le=100)
