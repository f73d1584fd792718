"""Where a recalled or searched item comes from, read from its citation: one answer for every path that shows an
agent memories (the prompt hook, the memory proxy, the MCP tools), so a project's knowledge stays in its project.

- ``chat:<session>#<turn>``: a turn of that chat session; ``episode:<id>``: a session's summary or one of its
  moments (episode key ``chat:<session>…``); both belong to the session's project.
- ``fact:<id>``: a lesson's fact belongs to the lesson's project (and is marked a lesson: lessons reach agents
  through their own project-scoped path, never through recall). Another fact belongs to the projects of the chat
  sessions it was learned in when *all* its live evidence comes from chat sessions and it is not about the
  owner: that is a project's knowledge ("the checkout service retries webhooks twice"). A fact about the owner,
  or with any evidence from elsewhere (a wearable, a general chat, an agent's ``remember``), is the person's
  knowledge and shown everywhere.

An item with no origin here (wearable turns, screen events, identity lines) belongs to no project. Four small
queries at most, whatever the number of citations.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from chats.models import AgentProject, ChatSession, Lesson
from ledger.choices import SubjectKind
from ledger.models import Episode, Evidence
from ledger.recall.planner import RecallItem


@dataclass(frozen=True)
class SessionInfo:
    """The chat session an item comes from."""

    source_key: str
    project_id: int | None
    external_id: str

    def is_agent_session(self, session_id: str) -> bool:
        """Whether this is the stored copy of an agent's session (hooks and the importer prefix a file tag)."""
        return bool(session_id) and (self.external_id == session_id or self.external_id.endswith(f":{session_id}"))


@dataclass(frozen=True)
class Origin:
    """The projects an item belongs to (``None``: no project), the session behind it, whether it is a lesson."""

    projects: frozenset[int | None]
    session: SessionInfo | None = None
    lesson: bool = False

    def visible_in(self, project: AgentProject | None) -> bool:
        return any(shown_in(project, p) for p in self.projects)


def shown_in(project: AgentProject | None, project_id: int | None) -> bool:
    """Whether what belongs to ``project_id`` (None: no project) may be shown inside ``project`` (None: outside
    every project): what belongs to no project everywhere, a project's own only inside it."""
    return project_id is None or (project is not None and project_id == project.pk)


def citation(item: RecallItem) -> str:
    """An item's citation (``fact:…``, ``episode:…``, ``chat:…#n``); a pinned fact is cited as its fact."""
    return item.source_ref.strip() or f"{item.kind}:{item.id}"


def _uuid(text) -> str | None:
    try:
        return str(uuid.UUID(str(text)))
    except ValueError:
        return None


def _session_of_key(key: str) -> str | None:
    kind, _, rest = key.partition(":")
    return _uuid(rest.split(":", 1)[0]) if kind == "chat" else None


def origins(owner, citations: Iterable[str]) -> dict[str, Origin]:
    """{citation: Origin} for the citations that come from a chat session or a lesson, or are a project's
    knowledge (see the module doc); citations not in the answer belong to no project."""
    wanted: dict[str, dict[str, list[str]]] = {"fact": {}, "episode": {}, "chat": {}}
    for cite in citations:
        kind, _, rest = cite.partition(":")
        public_id = _uuid(rest.split("#", 1)[0]) if kind in wanted else None
        if public_id:
            wanted[kind].setdefault(public_id, []).append(cite)
    by_session = {sid: list(cites) for sid, cites in wanted["chat"].items()}  # session id -> citations
    episodes = Episode.objects.owned_by(owner).filter(public_id__in=list(wanted["episode"]))
    for public_id, key in episodes.values_list("public_id", "key"):
        if sid := _session_of_key(key):
            by_session.setdefault(sid, []).extend(wanted["episode"][str(public_id)])
    out: dict[str, Origin] = {}
    facts = wanted["fact"]
    lessons = Lesson.objects.owned_by(owner).filter(fact_public_id__in=list(facts))
    for fact_id, project_id in lessons.values_list("fact_public_id", "agent_project_id"):
        out.update(dict.fromkeys(facts.pop(str(fact_id)), Origin(frozenset([project_id]), lesson=True)))
    fact_sessions = _chat_only_facts(owner, list(facts))
    sessions = _sessions(owner, set(by_session) | {s for ids in fact_sessions.values() for s in ids})
    for sid, cites in by_session.items():
        if (info := sessions.get(sid)) is not None:
            out.update(dict.fromkeys(cites, Origin(frozenset([info.project_id]), session=info)))
    for fact_id, sids in fact_sessions.items():
        # A session gone (pruned by retention) no longer says where the fact was learned: no project.
        projects = frozenset(sessions[s].project_id if s in sessions else None for s in sids)
        out.update(dict.fromkeys(facts[fact_id], Origin(projects)))
    return out


def _chat_only_facts(owner, fact_ids: list[str]) -> dict[str, set[str]]:
    """{fact id: the chat sessions of its evidence} for the facts not about the owner whose every live evidence
    comes from a chat session."""
    if not fact_ids:
        return {}
    rows = (
        Evidence.objects.owned_by(owner)
        .live()
        .filter(fact__public_id__in=fact_ids)
        .exclude(fact__subject_kind=SubjectKind.USER)
        .values_list("fact__public_id", "source_type", "source_ref__session")
    )
    found: dict[str, set[str]] = {}
    elsewhere: set[str] = set()
    for fact_id, source_type, session in rows:
        sid = _uuid(session) if source_type == "chat" and session else None
        if sid is None:
            elsewhere.add(str(fact_id))
        else:
            found.setdefault(str(fact_id), set()).add(sid)
    return {f: sids for f, sids in found.items() if f not in elsewhere}


def _sessions(owner, session_ids: set[str]) -> dict[str, SessionInfo]:
    if not session_ids:
        return {}
    rows = ChatSession.objects.owned_by(owner).filter(public_id__in=list(session_ids))
    return {str(pid): SessionInfo(source, project, external) for pid, source, project, external in
            rows.values_list("public_id", "source_key", "agent_project_id", "external_id")}  # fmt: skip
