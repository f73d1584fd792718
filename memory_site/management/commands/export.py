"""manage.py export USER PATH: the user's whole memory as one zip (commits JSONL, transcripts, chats, events)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory_site.portability import export_user


class Command(BaseCommand):
    help = "Export USER's memory to PATH (a zip; restore it with `manage.py import PATH`)."

    def add_arguments(self, parser):
        parser.add_argument("user")
        parser.add_argument("path")

    def handle(self, *args, user: str, path: str, **options):
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(f"no user {user!r}")
        data = export_user(owner)
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        try:
            partial.write_bytes(data)  # then renamed: a full disk leaves no half-written export behind
            partial.replace(target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"could not write {target}: {exc.strerror or exc}") from exc
        self.stdout.write(f"exported {user} to {target} ({len(data)} bytes)")
