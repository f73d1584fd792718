"""Project scope in MCP: what a call made inside one project (a working directory or a repository) may see.

A project's lessons, its sessions' turns and its session summaries (chat episodes) are shown only inside that
project; lessons and sessions of no project (general chats, lessons learned outside any project) are shown
everywhere. A call that names no project, or one Almanac does not know, sees only what belongs to no project:
one project's work never reaches another project's context, nor a general one.

The project is named by the tool's ``project`` argument, else by the connection (``manage.py mcp --project``, the
``X-Almanac-Project`` header): an absolute folder (a folder inside a known project's folder belongs to it), a
repository remote URL, or a project's name. ``chats.projects.find_project`` resolves it and never creates one.
Items are told apart by their citation (``fact:<id>``, ``episode:<id>``, ``chat:<session>#<turn>``), read by
``chats.origins`` (the same reading the hooks and the memory proxy use): a fact learned only in another project's
sessions, and not about the person, is that project's knowledge too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from accounts.services import user_timezone
from chats.models import AgentProject
from chats.origins import citation, origins, shown_in
from chats.projects import ProjectRef, find_project, normalise_path, normalise_remote
from ledger.recall.planner import RecallItem, pack_sections

# Which block section an item of each kind is packed in when a block is packed again without hidden items.
SECTION_OF = {"pinned": "pinned", "fact": "facts", "episode": "episodes", "utterance": "transcript",
              "chat_turn": "transcript", "event": "events"}  # fmt: skip


@dataclass(frozen=True)
class View:
    """The project a call works in (None: no project, or one Almanac does not know)."""

    project: AgentProject | None

    def shows(self, project_id: int | None) -> bool:
        return shown_in(self.project, project_id)


def view_for(owner, text: str) -> View:
    text = (text or "").strip()
    if not text:
        return View(None)
    if normalise_path(text):
        ref = ProjectRef(cwd=text)
    elif normalise_remote(text):
        ref = ProjectRef(repository=text)
    else:  # a project's name ("shop"), when exactly one of the owner's projects has it
        named = list(AgentProject.objects.owned_by(owner).filter(name=text)[:2])
        return View(named[0] if len(named) == 1 else None)
    return View(find_project(owner, ref))


def hidden(owner, view: View, citations: Iterable[str]) -> set[str]:
    """The citations (``fact:…``, ``episode:…``, ``chat:…#n``) that ``view`` may not show: another project's
    session turns, session summaries, lessons and facts learned only in its sessions (``chats.origins``)."""
    return {c for c, origin in origins(owner, citations).items() if not origin.visible_in(view.project)}


def visible_items(owner, view: View, items: list[RecallItem]) -> list[RecallItem]:
    out = hidden(owner, view, [citation(i) for i in items])
    return [i for i in items if citation(i) not in out]


def repack(owner, result, kept: list[RecallItem]) -> None:
    """A recall block packed again from ``kept`` (its items less the hidden ones), in the same sections, its
    times in the owner's zone as recall shows them."""
    sections: dict[str, list[RecallItem]] = {}
    for item in kept:
        if item.kind != "identity":
            sections.setdefault(SECTION_OF.get(item.kind, "facts"), []).append(item)
    identity = [i for i in kept if i.kind == "identity"]
    sections_in_order = [(name, rows, 1.0) for name, rows in sections.items()]
    packed = pack_sections(identity, sections_in_order, result.budget_tokens, user_timezone(owner))
    result.block, result.items, result.tokens = packed.block, packed.items, packed.tokens
