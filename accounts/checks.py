"""System checks: a key that cannot read the stored data stops ``migrate`` (so ``make up``) with one clear line."""

from __future__ import annotations

from django.core import checks
from django.db import DatabaseError


@checks.register(checks.Tags.database)
def encryption_key_check(app_configs=None, databases=None, **kwargs):
    """Runs with the database checks (``migrate``, ``check --database default``), never at import time."""
    if not databases:
        return []
    from accounts import crypto

    try:
        problem = crypto.check_key()
    except DatabaseError:
        return []  # before the first migrate: no data key table yet, so nothing can be encrypted
    if problem:
        return [checks.Error(problem, hint="See README: Encryption at rest.", id="accounts.E001")]
    return []
