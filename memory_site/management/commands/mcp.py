"""manage.py mcp --user NAME: an MCP server on stdin/stdout for a local agent."""

from __future__ import annotations

import json
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory_site.mcp import handle_message


class Command(BaseCommand):
    help = "Serve the Almanac MCP tools (recall, search_memory, remember) over stdio for one user."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="whose memories the agent may use")
        parser.add_argument("--client", default="stdio", help="label recorded on memories the agent proposes")

    def handle(self, *args, user: str, client: str, **options):
        try:
            owner = get_user_model().objects.get(username=user)
        except get_user_model().DoesNotExist as exc:
            raise CommandError(f"No such user: {user}") from exc
        self.serve(owner, sys.stdin, sys.stdout, client)

    def serve(self, owner, stdin, stdout, client: str) -> None:
        for line in stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            else:
                reply = handle_message(owner, message, client_label=client)
            if reply is not None:
                stdout.write(json.dumps(reply, default=str) + "\n")
                stdout.flush()
