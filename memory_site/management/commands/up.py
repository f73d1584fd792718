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
            subprocess.Popen([python, str(settings.BASE_DIR / "manage.py"), "runserver", addr, "--noreload"]),
            subprocess.Popen([python, str(settings.BASE_DIR / "manage.py"), "qcluster"]),
        ]
        self.stdout.write(self.style.SUCCESS(f"Almanac is running on http://{addr}/  (Ctrl-C stops it)"))
        stop_signal = None

        def stop(signum, _frame):
            nonlocal stop_signal
            stop_signal = signum

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while stop_signal is None and all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            # Ctrl-C already reached every process in the terminal's group; signalling again would interrupt
            # their clean shutdown. Otherwise ask them: runserver stops cleanly on SIGINT, qcluster on SIGTERM.
            if stop_signal != signal.SIGINT:
                for child, sig in zip(children, (signal.SIGINT, signal.SIGTERM), strict=True):
                    if child.poll() is None:
                        child.send_signal(sig)
            # The worker may be finishing a task; the web server has nothing worth waiting long for.
            for child, grace in zip(children, (5, 30), strict=True):
                try:
                    child.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    child.terminate()
                    try:
                        child.wait(timeout=5)
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
