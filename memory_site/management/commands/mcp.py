"""manage.py mcp --user NAME: the Almanac MCP server (official SDK) on stdin/stdout for a local agent."""

from __future__ import annotations

import anyio
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from memory_site import mcp


class Command(BaseCommand):
    requires_system_checks: list[str] = []  # agents spawn this per session: start fast, speak only protocol
    help = "Serve the Almanac MCP tools (recall, search_memory, remember, lessons, …) over stdio for one user."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="whose memories the agent may use")
        parser.add_argument("--client", default="stdio", help="label recorded on memories the agent proposes")
        parser.add_argument(
            "--project",
            default="",
            help="the working directory or repository the agent works in: other projects' lessons and sessions "
            "stay out (a tool's own project argument wins)",
        )

    def handle(self, *args, user: str, client: str, project: str, **options):
        try:
            owner = get_user_model().objects.get(username=user)
        except get_user_model().DoesNotExist as exc:
            raise CommandError(f"No such user: {user}") from exc
        mcp.current_owner.set(owner)
        mcp.current_client.set(client)
        mcp.current_project.set(project.strip()[: mcp.PROJECT_MAX])
        anyio.run(mcp.server.run_stdio_async)
