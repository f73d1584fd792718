"""Owner scoping: every user-data model inherits ``OwnedModel`` and every read goes through ``owned_by``.

Lives in accounts (the lowest layer) so that every app, ledger included, can use it without importing upward.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.http import Http404


class OwnedQuerySet(models.QuerySet):
    def owned_by(self, user) -> OwnedQuerySet:
        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(owner=user)


class OwnedModel(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="%(app_label)s_%(class)s_set"
    )

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True


def get_owned_or_404(queryset_or_model, owner, **lookups):
    """Fetch one row that belongs to ``owner``; anything else (missing, someone else's) is a 404."""
    qs = queryset_or_model if isinstance(queryset_or_model, models.QuerySet) else queryset_or_model.objects.all()
    try:
        return qs.filter(owner=owner).get(**lookups)
    except (qs.model.DoesNotExist, ValueError, TypeError) as exc:
        raise Http404(f"{qs.model._meta.verbose_name} not found") from exc
    except Exception as exc:  # e.g. a malformed uuid in the URL
        from django.core.exceptions import ValidationError

        if isinstance(exc, ValidationError):
            raise Http404(f"{qs.model._meta.verbose_name} not found") from exc
        raise
