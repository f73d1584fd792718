"""Importing files: idempotent by (path, modification time); each session is stored and distilled.

Conversation ids are namespaced by the file they came from (``base.file_tag``), so two files that reuse an id
never replace each other's turns. A file that cannot be read at all is an error naming its line and column; a
file read with no sessions in the named format gets a hint naming the format it looks like.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from accounts.exceptions import DomainError
from chats.importers import FORMATS, FileReport, UnreadableFile, detect, detect_tree
from chats.importers.base import file_tag
from chats.models import ImportedFile
from chats.privacy import EntryPoint, filtered
from chats.services import distilling
from chats.services.store import store_session

logger = logging.getLogger(__name__)


class ImportError_(DomainError):
    status_code = 422


@dataclass
class ImportReport:
    files_seen: int = 0
    files_skipped: int = 0  # unchanged since the last import
    sessions: int = 0
    turns_added: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # files that could not be read: "path:line:col: why"
    hints: list[str] = field(default_factory=list)  # files that look like another format
    empty: list[str] = field(default_factory=list)  # files of this format holding no conversation with the owner
    lines_skipped: Counter = field(default_factory=Counter)  # reason -> count, over all files
    private_removed: int = 0  # <private> spans removed before anything was stored

    @property
    def ok(self) -> bool:
        """Nothing unreadable, nothing in another format, and something was found (or was already imported)."""
        return not self.errors and not self.hints and (self.sessions > 0 or self.files_skipped > 0)

    def problem(self, path, fmt: str) -> str:
        """One line saying why the import did not succeed ("" when it did)."""
        if self.ok:
            return ""
        if self.errors or self.hints:
            return f"{len(self.errors)} file(s) unreadable, {len(self.hints)} in another format"
        if not self.files_seen:
            return f"no {fmt} session files under {path}"
        return f"no conversation with a message from you in {self.files_seen} {fmt} file(s): nothing was imported"


def _hint(file: Path, fmt: str, shown: Path | None = None) -> str | None:
    guess = detect(file)
    shown = shown or file
    if guess and guess != fmt:
        return f"{shown}: no {fmt} sessions found; this looks like a {guess} file (try --format {guess})"
    if guess is None:
        return f"{shown}: no {fmt} sessions found and the file matches no known format"
    return None


def _store_all(owner, sessions, tag_of, report: ImportReport, distill_now: bool) -> None:
    for data in sessions:
        tag = tag_of(data)
        data.external_id = f"{tag}:{data.external_id}"[:200]
        if data.parent_external_id:
            data.parent_external_id = f"{tag}:{data.parent_external_id}"[:200]
        _, private = filtered(owner, EntryPoint.IMPORT, lambda f, data=data: f.session(data))
        report.private_removed += private
        stored = store_session(owner=owner, data=data)
        report.sessions += 1
        report.turns_added += stored.added
        if stored.added or stored.replaced:
            outcome = "stored"
            if distill_now:
                stored.session.refresh_from_db()
                outcome = distilling.distill_session(session=stored.session).split(":")[0]
            else:
                distilling.mark_due(session=stored.session, delay=0)  # the idle sweeper distils it
                outcome = "queued"
        else:
            outcome = "unchanged"
        report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1


def _tagger(spec, file: Path, label: str | None):
    """Each session's id is namespaced by its file's tag (an upload's label; a subagent's parent file)."""
    if label is not None:
        return lambda data: file_tag(label)
    return lambda data: file_tag(str(spec.tag_path(file, data).resolve()))


def import_path(
    *, owner, path: str | Path, fmt: str | None = None, distill_now: bool = True, label: str | None = None
) -> ImportReport:
    """Import every session file of format ``fmt`` (None: detect it from the file) under ``path``. ``label``
    names an uploaded file (its temporary path changes each time; the label and size make re-uploads
    idempotent). Raises ImportError_ for an unknown format or a missing path; unreadable files are listed in
    ``report.errors`` and the others are still imported."""
    root = Path(path).expanduser()
    if not root.exists():
        raise ImportError_(f"no such file or folder: {root}")
    if fmt is None:
        fmt = detect_tree(root)
        if fmt is None:
            raise ImportError_(f"cannot tell the format of {root}; name it with --format ({', '.join(FORMATS)})")
    if fmt not in FORMATS:
        raise ImportError_(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    spec, report = FORMATS[fmt], ImportReport()
    for file in spec.files(root):
        report.files_seen += 1
        key = label or str(file.resolve())
        mtime = file.stat().st_mtime if label is None else float(file.stat().st_size)
        seen = ImportedFile.objects.owned_by(owner).filter(path=key[:1000]).first()
        if seen is not None and seen.mtime == mtime and seen.format == fmt:
            report.files_skipped += 1
            continue
        lines = FileReport()
        try:
            sessions = spec.parse(file, lines)
        except UnreadableFile as exc:
            report.errors.append(str(exc))
            continue
        except (ValueError, OSError, TypeError, AttributeError) as exc:  # never let one file stop a folder
            logger.warning("import of %s failed", file, exc_info=True)
            report.errors.append(f"{file}:0:0: {type(exc).__name__}: {exc}")
            continue
        report.lines_skipped.update(lines.skipped)
        if not sessions:
            shown = Path(label.split(":", 2)[-1]) if label else file  # an upload's own name, not its temporary path
            hint = _hint(file, fmt, shown)
            if hint:
                report.hints.append(hint)
            else:
                why = ", ".join(f"{n} {reason}" for reason, n in sorted(lines.skipped.items())) or "nothing readable"
                report.empty.append(f"{shown}: read as {fmt}, but no conversation had a message from you ({why})")
        _store_all(owner, sessions, _tagger(spec, file, label), report, distill_now)
        with transaction.atomic():
            ImportedFile.objects.update_or_create(
                owner=owner, path=key[:1000], defaults={"format": fmt, "mtime": mtime, "sessions": len(sessions)}
            )
    return report
