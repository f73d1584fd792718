"""Omi source settings."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr

INTEGRATION = "integration"
DEVELOPER = "developer"


class OmiConf(BaseModel):
    """``api_key`` (``sk_…`` app key or ``omi_dev_…`` developer key); ``app_id`` and ``user_id`` for the
    Integration API; ``api`` forces a surface when the key prefix is not telling; ``page_limit`` per page."""

    model_config = ConfigDict(extra="ignore")

    api_key: SecretStr = Field(validation_alias=AliasChoices("api_key", "key", "token"), min_length=1)
    app_id: str | None = None
    user_id: str | None = Field(default=None, validation_alias=AliasChoices("user_id", "uid"))
    api: Literal["integration", "developer"] | None = None
    page_limit: int = Field(default=100, ge=1, le=1000)

    def surface(self) -> str:
        """Which API to use: explicit ``api``, else the key prefix, else Integration when app and user are set."""
        if self.api:
            return self.api
        key = self.api_key.get_secret_value()
        if key.startswith("omi_dev_"):
            return DEVELOPER
        if key.startswith("sk_") or (self.app_id and self.user_id):
            return INTEGRATION
        return DEVELOPER
