"""manage.py import PATH [--username NAME]: restore an export into this (empty) instance, verified."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts.exceptions import DomainError
from memory_site.portability import import_user


class Command(BaseCommand):
    help = "Restore an export made by `manage.py export` (chain verified, projection compared), as one transaction."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--username", default=None, help="restore as this user (default: the exported one)")

    def handle(self, *args, path: str, username: str | None, **options):
        try:
            report = import_user(Path(path).read_bytes(), username=username)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        rows = ", ".join(f"{label} {n}" for label, n in report.rows.items() if n)
        self.stdout.write(f"restored {report.username}: {report.commits} commits; {rows}")
        self.stdout.write(f"ledger verify: {report.verify_line}")
        self.stdout.write(f"projection: {report.rebuild_line}")
        self.stdout.write("Set a password with: manage.py changepassword " + report.username)
