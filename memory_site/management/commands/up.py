"""manage.py up: migrate, prepare the demo, then run the web server and the worker together until Ctrl-C."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from accounts import services
from ledger import llm
from memory_site.schedules import sync_schedules

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "almanac-demo"
DEMO_APPS = ["wearables", "screen", "ledger", "chats"]


class Command(BaseCommand):
    help = (
        "Run Almanac: gunicorn on ALMANAC_BIND (default 127.0.0.1:8000) and the background worker, with demo "
        "data on first run. --dev serves with Django's development server instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--addr", default=os.environ.get("ALMANAC_BIND", "127.0.0.1:8000"))
        parser.add_argument("--no-demo", action="store_true", help="skip the demo user and demo data")
        parser.add_argument("--dev", action="store_true", help="Django's runserver (development only)")

    def handle(self, *args, addr: str, no_demo: bool, dev: bool, **options):
        call_command("migrate", interactive=False, verbosity=0)
        sync_schedules()
        llm.report_at_startup()  # configuration problems, once, before anything runs (the probe never blocks)
        with llm.offline("demo seeding"):  # the demo must serve at once: seeding never waits on a model
            demo_handles = [] if no_demo or not settings.ALMANAC_DEMO else self._prepare_demo()

        python = sys.executable
        manage = str(settings.BASE_DIR / "manage.py")
        web = [python, manage, "runserver", addr, "--noreload"] if dev else web_server_command(addr)
        # Own sessions: Ctrl-C reaches only this process, which then asks each child for a graceful stop
        # (gunicorn treats SIGINT as "quit now" but SIGTERM as "finish in-flight requests first").
        children = [
            subprocess.Popen(web, cwd=settings.BASE_DIR, start_new_session=True),
            subprocess.Popen([python, manage, "qcluster"], cwd=settings.BASE_DIR, start_new_session=True),
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
            # Graceful stops: gunicorn and qcluster finish in-flight work on SIGTERM (runserver stops on it too).
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child, grace in zip(children, (35, 60), strict=True):
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
            module = importlib.import_module(f"{app}.demo")
            handles.extend(module.start(user=user, first_run=created, stdout=self.stdout) or [])
        return handles


def web_server_command(addr: str) -> list[str]:
    """The production web server: gunicorn with memory_site/gunicorn_conf.py, bound to ``addr``."""
    conf = str(settings.BASE_DIR / "memory_site" / "gunicorn_conf.py")
    return [sys.executable, "-m", "gunicorn", "-c", conf, "--bind", addr]
