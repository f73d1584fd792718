"""What every management command needs to know about users: which one a `--user` option means."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError


def resolve_user(username: str | None):
    """The user named by ``--user``, or the only user when none is named (a single-user install).

    Raises CommandError with one readable line when the name is unknown or several users exist.
    """
    users = get_user_model().objects
    if username:
        found = users.filter(username=username).first()
        if found is None:
            raise CommandError(f"No user {username!r}")
        return found
    first_two = list(users.order_by("pk")[:2])
    if len(first_two) != 1:
        raise CommandError("Several users exist (or none): pass --user USERNAME")
    return first_two[0]
