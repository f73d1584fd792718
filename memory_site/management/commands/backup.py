"""manage.py backup [--output PATH]: a pg_dump of the whole database (restore it with `manage.py restore PATH`)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memory_site.backup import BackupError, backup_database, default_path


class Command(BaseCommand):
    help = (
        "Back up the whole database (every user, every app) with pg_dump, while Almanac keeps running. "
        "Default: ALMANAC_HOME/backups/almanac-<time>.dump. Restore with `manage.py restore PATH`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="where to write the backup (a .dump file)")

    def handle(self, *args, output: Path | None, **options):
        try:
            done = backup_database(path=output or default_path())
        except BackupError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"backed up to {done.path} ({done.size / 2**20:.1f} MB, {done.seconds:.1f} s)")
