from __future__ import annotations

from django.core.management.base import BaseCommand

from memory_site.schedules import sync_schedules


class Command(BaseCommand):
    help = "Create or update every django-q2 schedule declared in memory_site/schedules.py (idempotent)."

    def handle(self, *args, **options):
        created, updated = sync_schedules()
        self.stdout.write(f"schedules: {created} created, {updated} updated")
