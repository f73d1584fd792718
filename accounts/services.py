"""Account services: tokens and settings. The only writers of ApiToken and UserSettings."""

from __future__ import annotations

import hashlib
import secrets
import zoneinfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts.exceptions import DomainError
from accounts.models import ApiToken, UserSettings

TOKEN_PREFIX = "alm_"


class SettingsError(DomainError):
    status_code = 422


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(*, owner, name: str = "default") -> tuple[ApiToken, str]:
    """Create a token for ``owner``; returns the row and the plain token, which is never stored or shown again."""
    name = (name or "default").strip()[:100] or "default"
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(owner=owner, name=name, prefix=plain[:10], token_hash=hash_token(plain))
    return token, plain


def revoke_token(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def authenticate_token(plain: str):
    """Return the user owning an active token, or None. Touches last_used_at at most once a minute."""
    if not plain or not plain.startswith(TOKEN_PREFIX):
        return None
    token = ApiToken.objects.active().select_related("owner").filter(token_hash=hash_token(plain)).first()
    if token is None or not token.owner.is_active:
        return None
    now = timezone.now()
    if token_expired(token, now):
        return None
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.owner


def token_expired(token: ApiToken, now) -> bool:
    """True when the token sat unused past ALMANAC_TOKEN_IDLE_DAYS or is older than ALMANAC_TOKEN_MAX_AGE_DAYS."""
    idle_days = getattr(settings, "ALMANAC_TOKEN_IDLE_DAYS", 0)
    max_age_days = getattr(settings, "ALMANAC_TOKEN_MAX_AGE_DAYS", 0)
    if idle_days and (now - (token.last_used_at or token.created_at)).days >= idle_days:
        return True
    return bool(max_age_days and (now - token.created_at).days >= max_age_days)


def get_settings(user) -> UserSettings:
    obj, _ = UserSettings.objects.get_or_create(user=user, defaults={"display_name": user.get_username()})
    return obj


def user_timezone(user) -> zoneinfo.ZoneInfo:
    return get_settings(user).zoneinfo


def owner_name(owner) -> str:
    """What the owner is called in their own memories: their display name, else their username."""
    return get_settings(owner).display_name or owner.get_username()


def update_settings(*, user, display_name: str | None = None, timezone_name: str | None = None) -> UserSettings:
    obj = get_settings(user)
    if display_name is not None:
        display_name = display_name.strip()
        if not display_name or len(display_name) > 100:
            raise SettingsError("display_name must be 1 to 100 characters")
        obj.display_name = display_name
    if timezone_name is not None:
        if timezone_name not in zoneinfo.available_timezones():
            raise SettingsError(f"Unknown timezone: {timezone_name!r}")
        obj.timezone = timezone_name
    obj.save()
    return obj


def ensure_user(*, username: str, password: str, display_name: str = "", timezone_name: str = "UTC"):
    """Create the user if missing (used by the demo); returns (user, created)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username)
    if created:
        user.set_password(password)
        user.save()
        update_settings(user=user, display_name=display_name or username, timezone_name=timezone_name)
    return user, created
