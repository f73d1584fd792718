"""manage.py restore PATH [--replace]: load a `manage.py backup` file, migrate it, verify every chain."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memory_site.backup import BackupError, restore_database


class Command(BaseCommand):
    help = (
        "Restore a backup written by `manage.py backup` into the configured database (empty, unless --replace), "
        "upgrade it to this release and verify every ledger chain. Stop the web server and the worker first."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--replace", action="store_true", help="drop what the database holds first")

    def handle(self, *args, path: Path, replace: bool, **options):
        try:
            done = restore_database(path=path, replace=replace)
        except BackupError as exc:
            raise CommandError(exc.message) from exc
        summary = f"restored {path} in {done.seconds:.1f} s: {done.owners} chains, {done.commits} commits"
        if done.problems:
            raise CommandError(f"{summary}; verification FAILED: " + "; ".join(done.problems))
        self.stdout.write(f"{summary}, every chain verifies and every projection equals its replay")
