"""Export a user's whole memory to one zip file and restore it into an empty instance.

The zip holds ``manifest.json`` (format, user, counts, chain head, projection digest), ``commits.jsonl`` (the
owner's ledger commits exactly as stored, so every commit id verifies) and ``rows/<app.Model>.jsonl`` for each
model registered in ``accounts.export_registry`` (transcripts, settings, chats, events…). A restore writes
everything in one transaction, then replays the chain into the ledger tables and checks that the chain verifies
and that the projection equals the exported one; any failure rolls the whole restore back.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, connection, transaction

from accounts import export_registry
from accounts.encryption import refill_search_vectors
from accounts.exceptions import DomainError
from ledger import chain
from ledger import mutations as M
from ledger.models import ChainHead, Commit, CommitRef, Fact, PinnedFact

FORMAT = "almanac-export/1"

export_registry.register("accounts", ["accounts.UserSettings"])
export_registry.register("ledger", ["ledger.IdentityOverride", "ledger.Episode"])  # episodes: not in the chain
export_registry.register(
    "wearables",
    [
        "wearables.WearablesSettings",
        "wearables.Source",
        "wearables.Person",
        "wearables.SpeakerIdentity",
        "wearables.SpeakerAssignment",
        "wearables.Correction",
        "wearables.RedactionRule",
        "wearables.DayTranscript",
        "wearables.Conversation",
        "wearables.Utterance",
    ],
    exclude={"wearables.Source": ["credentials"]},  # keys never leave the instance they were entered in
)


class ImportRefused(DomainError):
    status_code = 409


@dataclass
class ImportReport:
    username: str
    commits: int
    rows: dict[str, int]
    verify_line: str
    rebuild_line: str


def _models():
    for entry in export_registry.registered():
        for label in entry.models:
            try:
                yield label, apps.get_model(label), entry.exclude.get(label, ())
            except LookupError:
                continue  # an app that is not installed here


def _owner_field(model) -> str:
    return "owner" if any(f.name == "owner" for f in model._meta.fields) else "user"


def _commit_row(c: Commit) -> dict:
    return {
        "seq": c.seq,
        "commit_id": c.commit_id,
        "parent_commit_id": c.parent_commit_id,
        "author": c.author,
        "author_label": c.author_label,
        "committed_at": c.committed_at.isoformat(),
        "mutations": c.mutations,
    }


def export_user(user) -> bytes:
    """The zip bytes of ``user``'s memory (read in one transaction, so the parts agree with each other)."""
    buffer = io.BytesIO()
    with transaction.atomic(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        commits = Commit.objects.filter(owner=user).order_by("seq")
        lines = (json.dumps(_commit_row(c), cls=DjangoJSONEncoder, sort_keys=True) for c in commits.iterator())
        archive.writestr("commits.jsonl", "".join(line + "\n" for line in lines))
        counts = {}
        for label, model, exclude in _models():
            owned = model.objects.filter(**{_owner_field(model): user}).order_by("pk")
            rows = json.loads(serializers.serialize("json", owned))
            # Recomputed on restore: by the database (generated) or from the plaintext (accounts.fields).
            generated = [f.name for f in model._meta.concrete_fields if f.generated or getattr(f, "derived", False)]
            for row in rows:
                for name in (*exclude, *generated):
                    row["fields"].pop(name, None)
            counts[label] = len(rows)
            archive.writestr(f"rows/{label}.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        pins = _pin_rows(user)
        counts["ledger.PinnedFact"] = len(pins)
        archive.writestr(PINS, "".join(json.dumps(r, sort_keys=True) + "\n" for r in pins))
        head = chain.head(user)
        manifest = {
            "format": FORMAT,
            "username": user.get_username(),
            "commits": head.length,
            "head_commit_id": head.head_commit_id,
            "projection_digest": chain.rebuild(user, write=False).digest,
            "rows": counts,
        }
        archive.writestr("manifest.json", json.dumps(manifest, indent=2, sort_keys=True))
    return buffer.getvalue()


PINS = "rows/ledger.PinnedFact.jsonl"  # pins point at fact rows, which a restore rebuilds with new row ids


def _pin_rows(user) -> list[dict]:
    """The owner's pinned facts, each pointing at its fact by public id (stable across a restore)."""
    rows = json.loads(serializers.serialize("json", PinnedFact.objects.filter(owner=user).order_by("pk")))
    public = {pk: str(pid) for pk, pid in Fact.objects.filter(owner=user).values_list("pk", "public_id")}
    rows = [r for r in rows if r["fields"]["fact"] in public]
    for row in rows:
        row["fields"]["fact"] = public[row["fields"]["fact"]]
    return rows


def _restore_pins(archive: zipfile.ZipFile, user) -> int:
    """Re-pin the rebuilt facts (run after the chain is replayed); pins of facts no longer there are dropped."""
    if PINS not in archive.namelist():
        return 0
    fact_pk = {str(pid): pk for pid, pk in Fact.objects.filter(owner=user).values_list("public_id", "pk")}
    records = [r for r in _read(archive, PINS) if r["fields"]["fact"] in fact_pk]
    for record in records:
        record["pk"] = None
        record["fields"].update(owner=user.pk, fact=fact_pk[record["fields"]["fact"]])
    for obj in serializers.deserialize("json", json.dumps(records)):
        obj.save()
    return len(records)


def _read(archive: zipfile.ZipFile, name: str) -> list[dict]:
    return [json.loads(line) for line in archive.read(name).decode().splitlines() if line.strip()]


def import_user(data: bytes, *, username: str | None = None) -> ImportReport:
    """Restore an export into this instance as a new user (``username`` or the exported one).

    Raises ImportRefused when the user already has memory here, DomainError for an unreadable file or a
    restore that does not verify; nothing is written then.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        manifest = json.loads(archive.read("manifest.json"))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DomainError("not an Almanac export (manifest.json missing or unreadable)") from exc
    if manifest.get("format") != FORMAT:
        raise DomainError(f"unsupported export format {manifest.get('format')!r}")
    name = username or manifest["username"]
    with transaction.atomic():
        user, _ = get_user_model().objects.get_or_create(username=name)
        if Commit.objects.filter(owner=user).exists():
            raise ImportRefused(f"user {name!r} already has memory here; restore into an empty account")
        try:
            rows = _restore_rows(archive, user)
            commits = _restore_commits(archive, user)
        except IntegrityError as exc:
            raise ImportRefused(
                f"rows collide with data already here ({exc.__class__.__name__}); restore into an empty instance"
            ) from exc
        report = chain.rebuild(user)
        rows["ledger.PinnedFact"] = _restore_pins(archive, user)
        check = chain.rebuild(user, write=False)
        verified = chain.verify(user)
        if not verified.ok or not check.identical_before or check.digest != manifest["projection_digest"]:
            raise DomainError(f"restore did not verify: {verified.line()}; {check.line()}")
    return ImportReport(name, commits, rows, verified.line(), report.line())


def _restore_rows(archive: zipfile.ZipFile, user) -> dict[str, int]:
    counts, touched = {}, []
    for label, model, _exclude in _models():
        member = f"rows/{label}.jsonl"
        if member not in archive.namelist():
            continue
        records = _read(archive, member)
        for record in records:
            record["fields"][_owner_field(model)] = user.pk
        for obj in serializers.deserialize("json", json.dumps(records)):
            obj.save()
        counts[label] = len(records)
        touched.append(model)
    refill_search_vectors(models=touched)  # app-kept search vectors are not in the export
    _reset_sequences(touched)
    return counts


def _restore_commits(archive: zipfile.ZipFile, user) -> int:
    rows = _read(archive, "commits.jsonl")
    created = Commit.objects.bulk_create(
        Commit(owner=user, **{k: v for k, v in row.items()}) for row in sorted(rows, key=lambda r: r["seq"])
    )
    CommitRef.objects.bulk_create(
        CommitRef(commit=c, index=i, object_id=oid)
        for c in created
        for i, m in enumerate(c.mutations)
        for oid in M.targets(m)
    )
    if created:
        ChainHead.objects.update_or_create(
            owner=user, defaults={"head_commit_id": created[-1].commit_id, "length": created[-1].seq}
        )
    return len(created)


def _reset_sequences(models) -> None:
    """Rows came with their primary keys: move each id sequence past them so new rows don't collide."""
    if not models:
        return
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)
