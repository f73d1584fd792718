"""Project scope: which project (repository or folder) a coding agent works in, so that one project's lessons and
session summaries never reach another project's context.

A hook call names where the agent works with ``ProjectRef``: the working directory, the repository root the hook
client found above it and the repository's remote URL (read by the client on the agent's machine; the server
never looks at its own disk for them). An imported session names only its working directory (Codex rollouts
also the remote). ``resolve_project`` turns that into one ``AgentProject`` row per owner:

- a remote URL is the strongest name (``repo:github.com/owner/name``): every clone and worktree of the repository
  is the same project, wherever it is checked out;
- else the repository root, else the working directory, is the project's folder; a working directory inside a
  known project's folder belongs to that project (the innermost one);
- a project found later by its root absorbs the folder projects made earlier for folders inside it (sessions
  imported from a sub-folder before the first hook call), so a repository is one scope, not one per folder.

Reads that other apps use (MCP tools): ``find_project`` (never creates a row), ``Lesson.objects.visible_in`` and
``ChatSession.objects.in_project``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from chats.models import AgentProject, ChatSession, Lesson

MAX_PATH = 1000


@dataclass(frozen=True)
class ProjectRef:
    """Where an agent works, as the agent's side reported it (any field may be empty)."""

    cwd: str = ""
    root: str = ""  # the repository root above cwd (the folder holding .git), when there is one
    repository: str = ""  # the repository's remote URL (credentials are dropped by ``normalise_remote``)

    @classmethod
    def from_payload(cls, payload: dict) -> ProjectRef:
        """From a hook payload: ``cwd`` (Claude Code's) and the ``almanac_project`` object the hook client adds."""
        extra = payload.get("almanac_project") if isinstance(payload.get("almanac_project"), dict) else {}
        return cls(
            cwd=_text(payload.get("cwd")), root=_text(extra.get("root")), repository=_text(extra.get("repository"))
        )

    @property
    def empty(self) -> bool:
        return not (self.cwd or self.root or self.repository)


def _text(value) -> str:
    return value.strip()[:MAX_PATH] if isinstance(value, str) else ""


def normalise_path(path: str) -> str:
    """An absolute folder path in one spelling: forward slashes, no trailing slash, no ``.``/``..`` parts.
    A relative path means nothing on another machine: "" (no project)."""
    path = (path or "").strip().replace("\\", "/")
    if not path:
        return ""
    drive = re.match(r"^[A-Za-z]:(?=/)", path)
    prefix, rest = (path[:2], path[2:]) if drive else ("", path)
    if not rest.startswith("/"):
        return ""
    parts: list[str] = []
    for part in rest.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return (prefix + "/" + "/".join(parts))[:MAX_PATH]


_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).+)$")  # git@github.com:owner/name.git


def normalise_remote(url: str) -> str:
    """A repository's remote URL as ``host/path`` in lower case, without scheme, user, password, port or ``.git``
    (``https://user:token@GitHub.com/Owner/Name.git`` → ``github.com/owner/name``); "" when it is not a URL."""
    url = (url or "").strip()
    if not url or url.startswith(("/", ".", "file:")):
        return ""  # a local path remote names a folder on the agent's machine, not a repository everywhere
    if "://" in url:
        rest = url.split("://", 1)[1]
        hostpart, _, path = rest.partition("/")
        host = hostpart.rsplit("@", 1)[-1].split(":", 1)[0]
    else:
        m = _SCP_LIKE.match(url)
        if not m:
            return ""
        host, path = m.group("host"), m.group("path")
    path = re.sub(r"\.git/?$", "", path.strip("/")).strip("/")
    if not host or not path:
        return ""
    return f"{host.lower()}/{path.lower()}"[:480]


def _name_of(key_path: str) -> str:
    return key_path.rstrip("/").rsplit("/", 1)[-1][:200] or key_path[:200]


@dataclass(frozen=True)
class ProjectKey:
    key: str
    name: str
    root: str


def project_key(ref: ProjectRef) -> ProjectKey | None:
    """The key a reference resolves to without looking at stored projects (None: no project at all)."""
    root = normalise_path(ref.root) or normalise_path(ref.cwd)
    remote = normalise_remote(ref.repository)
    if remote:
        return ProjectKey(f"repo:{remote}", _name_of(remote), root)
    if root:
        return ProjectKey(root, _name_of(root), root)
    return None


def find_project(owner, ref: ProjectRef) -> AgentProject | None:
    """The stored project ``ref`` belongs to, or None; never writes (for read-only callers such as MCP tools)."""
    wanted = project_key(ref)
    if wanted is None:
        return None
    rows = AgentProject.objects.owned_by(owner)
    if wanted.key.startswith("repo:"):
        found = rows.filter(key=wanted.key).first()
        if found is not None:
            return found
    return rows.containing(wanted.root).first() if wanted.root else None


def resolve_project(*, owner, ref: ProjectRef) -> AgentProject | None:
    """The project ``ref`` belongs to, created when it is new (None when ``ref`` names no absolute folder and no
    repository). Idempotent under concurrent calls (the unique key decides)."""
    wanted = project_key(ref)
    if wanted is None:
        return None
    rows = AgentProject.objects.owned_by(owner)
    knows_root = bool(normalise_path(ref.root))
    renamed = False
    if wanted.key.startswith("repo:"):
        project = rows.filter(key=wanted.key).first()
        if project is None:
            project = _name_folder_project(rows, wanted)
            renamed = project is not None
    else:
        inside = rows.containing(wanted.root).first()
        if inside is not None and (inside.root == wanted.root or not knows_root):
            return inside  # a folder inside a known project, or a known root named again
        project = rows.filter(key=wanted.key).first()
    changed = project is None or renamed or bool(wanted.root and project.root != wanted.root)
    if project is None:
        try:
            with transaction.atomic():
                project = AgentProject.objects.create(owner=owner, key=wanted.key, name=wanted.name, root=wanted.root)
        except IntegrityError:  # created by a concurrent call
            project = rows.get(key=wanted.key)
    elif changed:
        AgentProject.objects.filter(pk=project.pk).update(root=wanted.root)
        project.root = wanted.root
    if knows_root and changed:  # folder projects inside appear only before their repository root is known
        absorb_folders(owner=owner, project=project)
    return project


def _name_folder_project(rows, wanted: ProjectKey) -> AgentProject | None:
    """The folder project at the repository's root, renamed to the repository key (its remote was not known when
    it was made); None when there is none."""
    same = rows.filter(root=wanted.root).exclude(key__startswith="repo:").first() if wanted.root else None
    if same is not None:
        AgentProject.objects.filter(pk=same.pk).update(key=wanted.key, name=wanted.name)
        same.key, same.name = wanted.key, wanted.name
    return same


def absorb_folders(*, owner, project: AgentProject) -> int:
    """Move the sessions and lessons of folder projects lying inside ``project``'s folder into it (they were made
    before the repository root was known) and delete those folder projects; returns how many were absorbed."""
    if not project.root:
        return 0
    inner = list(
        AgentProject.objects.owned_by(owner)
        .filter(root__startswith=project.root + "/")
        .exclude(pk=project.pk)
        .exclude(key__startswith="repo:")
    )
    if not inner:
        return 0
    with transaction.atomic():
        ChatSession.objects.filter(owner=owner, agent_project__in=inner).update(agent_project=project)
        Lesson.objects.filter(owner=owner, agent_project__in=inner).update(agent_project=project)
        AgentProject.objects.filter(pk__in=[p.pk for p in inner]).delete()
    return len(inner)


def project_of_session(owner, *, cwd: str, repository: str = "") -> AgentProject | None:
    """The project an imported or ingested session belongs to (its working directory, a remote when known)."""
    if not cwd and not repository:
        return None
    return resolve_project(owner=owner, ref=ProjectRef(cwd=cwd, repository=repository))
