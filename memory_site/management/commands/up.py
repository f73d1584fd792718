"""manage.py up: migrate, prepare the demo, then run the web server and the worker together until Ctrl-C."""

from __future__ import annotations

import importlib
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from memory_site import services
from memory_site.scheduling import sync_schedules

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "almanac-demo"
DEMO_APPS = ["wearables", "screen", "ledger"]


class Command(BaseCommand):
    help = "Run Almanac: web server on 127.0.0.1:8000 and the background worker, with demo data on first run."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--no-demo", action="store_true", help="skip the demo user and demo data")

    def handle(self, *args, addr: str, no_demo: bool, **options):
        call_command("migrate", interactive=False, verbosity=0)
        sync_schedules()
        demo_handles = [] if no_demo or not settings.ALMANAC_DEMO else self._prepare_demo()

        python = sys.executable
        children = [
            subprocess.Popen([python, "manage.py", "runserver", addr, "--noreload"]),
            subprocess.Popen([python, "manage.py", "qcluster"]),
        ]
        self.stdout.write(self.style.SUCCESS(f"Almanac is running on http://{addr}/  (Ctrl-C stops it)"))
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGINT if child is children[0] else signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
            for handle in demo_handles:
                handle.stop()
            self.stdout.write("Almanac stopped.")

    def _prepare_demo(self) -> list:
        user, created = services.ensure_user(
            username=DEMO_USERNAME,
            password=DEMO_PASSWORD,
            display_name="Dana Whitfield",
            timezone_name="America/Denver",
        )
        if created:
            self.stdout.write(self.style.WARNING(f"Demo login: {DEMO_USERNAME} / {DEMO_PASSWORD}"))
        else:
            self.stdout.write(f"Demo login: {DEMO_USERNAME} (password unchanged)")
        handles = []
        for app in DEMO_APPS:
            try:
                module = importlib.import_module(f"{app}.demo")
            except ModuleNotFoundError as exc:
                if exc.name != f"{app}.demo":
                    raise
                continue
            handles.extend(module.start(user=user, first_run=created, stdout=self.stdout) or [])
        return handles
