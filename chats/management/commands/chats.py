"""manage.py chats import PATH --format F | hook EVENT | setup | sleep

import   read agent sessions or chat exports (claude-code, codex, openai, anthropic, gemini)
hook     a Claude Code hook: reads the hook JSON on stdin, prints the lessons that bear on it
setup    print the Claude Code settings snippet that registers the hooks (and the MCP server)
sleep    run the nightly lesson pass now and print the morning report
"""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from accounts.commands import resolve_user
from accounts.exceptions import DomainError
from chats.importers import FORMATS

EVENTS = ("session-start", "user-prompt-submit", "pre-tool-use", "stop", "pre-compact", "session-end")


class Command(BaseCommand):
    requires_system_checks: list[str] = []  # agents spawn this per session: start fast, speak only protocol
    help = "Chats and coding agents: import sessions, Claude Code hooks, settings snippet, sleep pass."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        imp = sub.add_parser("import", help="import sessions or exports from a file or folder")
        imp.add_argument("path")
        imp.add_argument("--format", choices=sorted(FORMATS), help="default: detected from the file")
        imp.add_argument("--user", help="whose memory (default: the only user)")
        imp.add_argument("--no-distill", action="store_true", help="store only; the idle sweeper distils later")
        hook = sub.add_parser("hook", help="run as a Claude Code hook (JSON on stdin)")
        hook.add_argument("event", choices=EVENTS)
        hook.add_argument("--user")
        hook.add_argument("--memory-dir", help="also write lessons into this project memory folder")
        setup = sub.add_parser("setup", help="register the hooks and the MCP server with Claude Code (and Codex)")
        setup.add_argument("--user")
        setup.add_argument("--scope", choices=["project", "user"], default="project")
        setup.add_argument("--project-dir", default=".", help="the project folder (scope project)")
        setup.add_argument("--url", default="http://127.0.0.1:8000", help="the running Almanac server")
        setup.add_argument("--token", help="an API token (default: create one named 'coding agents')")
        setup.add_argument("--codex", action="store_true", help="also print the Codex config.toml section")
        sleep = sub.add_parser("sleep", help="run the nightly lesson pass now")
        sleep.add_argument("--user")

    def handle(self, *args, action: str, **opts):
        try:
            getattr(self, f"do_{action}")(**opts)
        except DomainError as exc:
            raise CommandError(exc.message) from exc

    def do_import(self, *, path, format=None, user=None, no_distill=False, **_):
        from chats.services.imports import import_path

        report = import_path(owner=resolve_user(user), path=path, fmt=format, distill_now=not no_distill)
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items())) or "none"
        self.stdout.write(
            f"{report.files_seen} file(s), {report.files_skipped} unchanged, {report.sessions} session(s), "
            f"{report.turns_added} turn(s) added; outcomes: {outcomes}"
        )
        for reason, n in sorted(report.lines_skipped.items()):
            self.stdout.write(f"skipped {n} line(s): {reason}")
        for hint in report.hints:
            self.stderr.write(f"hint: {hint}")
        for err in report.errors:
            self.stderr.write(f"error: {err}")
        if not report.ok:
            raise CommandError(f"{len(report.errors)} file(s) unreadable, {len(report.hints)} in another format")

    def do_hook(self, *, event, user=None, memory_dir=None, **_):
        from chats.services import agent_hooks

        try:
            payload = json.loads(sys.stdin.read() or "{}")
        except ValueError:
            payload = {}  # a hook must never break the agent: bad input prints nothing
        if not isinstance(payload, dict):
            payload = {}
        text = agent_hooks.run_hook(owner=resolve_user(user), event=event, payload=payload, memory_dir=memory_dir)
        if text:
            self.stdout.write(text)

    def do_setup(self, *, user=None, scope="project", project_dir=".", url="", token=None, codex=False, **_):
        from pathlib import Path

        from accounts.services import create_token
        from chats.services import agent_setup

        owner = resolve_user(user)
        if not token:
            _, token = create_token(owner=owner, name="coding agents")
        result = agent_setup.setup_claude(scope=scope, url=url, token=token,
                                          project_dir=Path(project_dir).resolve(), home=Path.home())  # fmt: skip
        for path in result.written:
            self.stdout.write(f"wrote {path}")
        for path in result.unchanged:
            self.stdout.write(f"unchanged {path}")
        for command in result.commands:
            self.stdout.write(f"run: {command}")
        if codex:
            self.stdout.write("# ~/.codex/config.toml\n" + agent_setup.codex_toml(username=owner.get_username()))

    def do_sleep(self, *, user=None, **_):
        from chats.services.sleep import report_markdown, sleep

        self.stdout.write(report_markdown(sleep(owner=resolve_user(user))))
