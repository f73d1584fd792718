"""Accounts: per-user API tokens and settings."""

from __future__ import annotations

import uuid
import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from accounts.owned import OwnedModel, OwnedQuerySet
from accounts.timestamps import zone_or_utc


class ApiTokenQuerySet(OwnedQuerySet):
    def active(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(OwnedModel):
    """A bearer token for the API and agents. Only its sha256 is stored; the token is shown once.

    States: active (revoked_at null) -> revoked (revoked_at set). Revocation is final.
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=16, help_text="First characters, to tell tokens apart")
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        db_table = "memory_site_apitoken"  # created by memory_site before the accounts app existed

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"Unknown timezone: {value!r}")


class UserSettings(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="almanac_settings")
    display_name = models.CharField(max_length=100, blank=True)
    timezone = models.CharField(max_length=64, default="UTC", validators=[validate_timezone])
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "user settings"
        db_table = "memory_site_usersettings"  # created by memory_site before the accounts app existed

    def __str__(self) -> str:
        return f"settings for {self.user}"

    @property
    def zoneinfo(self) -> zoneinfo.ZoneInfo:
        """The owner's zone; UTC when the stored name is one this machine's tz database lacks."""
        return zone_or_utc(self.timezone)


class DataKey(models.Model):
    """The data key that encrypts stored text (``accounts.crypto``), kept only wrapped by the key-encryption key
    from ``ALMANAC_ENCRYPTION_KEY``. One row per instance; rotation re-wraps it in place."""

    name = models.CharField(max_length=20, default="default")
    wrapped = models.TextField(help_text="Fernet token of the data key under the key-encryption key")
    kek_fingerprint = models.CharField(max_length=16, help_text="Which key wrapped it (sha256-derived, not the key)")
    created_at = models.DateTimeField(auto_now_add=True)
    rotated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["name"], name="accounts_datakey_unique_name")]

    def __str__(self) -> str:
        return f"data key {self.name} (wrapped by {self.kek_fingerprint})"
