"""Importing files: idempotent by (path, modification time); each session is stored and distilled."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from accounts.exceptions import DomainError
from chats.importers import FORMATS
from chats.models import ImportedFile
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
    errors: list[str] = field(default_factory=list)


def import_path(
    *, owner, path: str | Path, fmt: str, distill_now: bool = True, label: str | None = None
) -> ImportReport:
    """Import every session file of format ``fmt`` under ``path``. ``label`` names an uploaded file (its
    temporary path changes each time; the label and size/mtime make re-uploads idempotent)."""
    if fmt not in FORMATS:
        raise ImportError_(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    root = Path(path).expanduser()
    if not root.exists():
        raise ImportError_(f"no such file or folder: {root}")
    spec, report = FORMATS[fmt], ImportReport()
    for file in spec.files(root):
        report.files_seen += 1
        key = label or str(file.resolve())
        mtime = file.stat().st_mtime if label is None else float(file.stat().st_size)
        seen = ImportedFile.objects.owned_by(owner).filter(path=key).first()
        if seen is not None and seen.mtime == mtime and seen.format == fmt:
            report.files_skipped += 1
            continue
        try:
            sessions = spec.parse(file)
        except (ValueError, OSError) as exc:
            report.errors.append(f"{file.name}: {type(exc).__name__}")
            continue
        for data in sessions:
            stored = store_session(owner=owner, data=data)
            report.sessions += 1
            report.turns_added += stored.added
            outcome = "unchanged"
            if distill_now and (stored.added or stored.replaced):
                stored.session.refresh_from_db()
                outcome = distilling.distill_session(session=stored.session).split(":")[0]
            report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
        with transaction.atomic():
            ImportedFile.objects.update_or_create(
                owner=owner, path=key[:1000], defaults={"format": fmt, "mtime": mtime, "sessions": len(sessions)}
            )
    return report
