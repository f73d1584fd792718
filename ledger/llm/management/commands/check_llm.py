"""manage.py check_llm: probe the configured model server now and say whether calls will work."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ledger.llm import config, dialects, health


class Command(BaseCommand):
    help = (
        "Probe the configured LLM server (GET /v1/models, then one short request per structured-output form until "
        "one is accepted) and print the form it speaks; exits non-zero when calls will fail."
    )

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=60.0, help="seconds for each probe answer")

    def handle(self, *args, timeout: float, **options):
        if not (config.base_url() or config.model_name()):
            self.stdout.write("No model configured: every step runs its deterministic path.")
            return
        problems = health.probe(answer_timeout=timeout)
        dialect = health.known_dialect()
        self.stdout.write(f"Model {config.model_name()!r} at {config.base_url()}")
        if dialect:
            self.stdout.write(f"Structured output: {dialects.Dialect(dialect).label}")
        if problems:
            raise CommandError("; ".join(problems))
        self.stdout.write(self.style.SUCCESS("Calls will work."))
