"""manage.py chats import PATH --format F | hook EVENT | setup | sleep

import   read agent sessions or chat exports (claude-code, codex, openai, anthropic, gemini)
hook     a Claude Code hook run against this installation's database (the plugin's stdlib client is faster)
setup    print the Claude Code settings snippet that registers the hooks (and the MCP server)
sleep    run the nightly lesson pass now and print the morning report
"""

from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from accounts.commands import resolve_user
from accounts.exceptions import DomainError
from chats.agent_plugin.hook_client import EVENTS
from chats.importers import FORMATS


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
        setup = sub.add_parser("setup", help="register the hooks and the MCP server with Claude Code (and Codex)")
        setup.add_argument("--user")
        setup.add_argument("--scope", choices=["project", "user"], default="project")
        setup.add_argument("--project-dir", default=".", help="the project folder (scope project)")
        setup.add_argument("--url", default="http://127.0.0.1:8000", help="the running Almanac server")
        setup.add_argument("--token", help="an existing API token of the user (checked); default: one per place")
        setup.add_argument("--rotate", action="store_true", help="replace the place's token (the old one is revoked)")
        setup.add_argument("--no-check", action="store_true", help="do not ask the server whether the token works")
        setup.add_argument("--codex", action="store_true", help="also print the Codex config.toml section")
        setup.add_argument(
            "--plugin",
            action="store_true",
            help="for the Claude Code plugin: print a new token to paste when it asks (writes no file)",
        )
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
        if report.private_removed:
            self.stdout.write(f"removed {report.private_removed} <private> span(s) before storing")
        for reason, n in sorted(report.lines_skipped.items()):
            self.stdout.write(f"skipped {n} line(s): {reason}")
        for hint in report.hints:
            self.stderr.write(f"hint: {hint}")
        for note in report.empty:
            self.stderr.write(f"note: {note}")
        for err in report.errors:
            self.stderr.write(f"error: {err}")
        if not report.ok:
            raise CommandError(report.problem(path, format or "detected"))

    def do_hook(self, *, event, user=None, **_):
        """The same exchange as the stdlib client, in process: the transcript lines and the project are read
        here (this command runs on the agent's machine), then handed to the service like a request body."""
        from chats import tasks
        from chats.agent_plugin import hook_client
        from chats.services import agent_hooks

        try:
            payload = json.loads(sys.stdin.read() or "{}")
        except ValueError:
            payload = {}  # a hook must never break the agent: bad input prints nothing
        if not isinstance(payload, dict):
            payload = {}
        sent, piece = hook_client.prepare(event, payload)
        answer = agent_hooks.run_hook(owner=resolve_user(user), event=event, payload=sent,
                                      enqueue_import=tasks.enqueue_transcript_import)  # fmt: skip
        if piece is not None and answer.transcript_offset is not None:
            agent_id = piece["agent_id"]
            hook_client.write_offset(piece["path"], str(payload.get("session_id") or ""), agent_id,
                                     answer.transcript_offset)  # fmt: skip
        if answer.output:
            self.stdout.write(answer.output)

    def do_setup(self, *, user=None, scope="project", project_dir=".", url="", token=None, rotate=False,
                 no_check=False, codex=False, plugin=False, **_):  # fmt: skip
        from pathlib import Path

        from chats.services import agent_setup

        owner = resolve_user(user)
        if plugin:
            place = agent_setup.plugin_place()
        else:
            place = agent_setup.place_for(scope=scope, project_dir=Path(project_dir).resolve(), home=Path.home())
        token, how = agent_setup.choose_token(owner=owner, place=place, given=token, rotate=rotate or plugin)
        self.stdout.write(how)
        if not no_check:
            problem = agent_setup.check_server(url, token)
            self.stdout.write(f"warning: {problem}" if problem else f"checked: {url} accepts the token")
        if plugin:
            self.stdout.write(agent_setup.plugin_instructions(url=url, token=token))
            return
        result = agent_setup.setup_claude(place=place, url=url, token=token)
        for path in result.written:
            self.stdout.write(f"wrote {path}")
        for path in result.unchanged:
            self.stdout.write(f"unchanged {path}")
        for note in result.notes:
            self.stdout.write(note)
        for command in result.commands:
            self.stdout.write(f"run: {command}")
        if codex:
            self.stdout.write("# ~/.codex/config.toml\n" + agent_setup.codex_toml(username=owner.get_username()))

    def do_sleep(self, *, user=None, **_):
        from chats.services.sleep import report_markdown, sleep

        self.stdout.write(report_markdown(sleep(owner=resolve_user(user))))
