"""Row-level operations for encryption at rest: find the encrypted columns, encrypt legacy rows in batches
(idempotent), write everything back as plaintext, count what is encrypted, refill search vectors.

Every operation goes through the models' own fields (``accounts.fields``), so it covers any app that uses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db import transaction
from django.db.models import F, Q, TextField
from django.db.models.functions import Cast

from accounts import crypto
from accounts.fields import (
    EncryptedBinaryField,
    EncryptedJSONField,
    EncryptedTextField,
    PlaintextSearchVectorField,
    search_vector,
)

BATCH = 500


@dataclass(frozen=True)
class Column:
    model: type
    field: EncryptedTextField | EncryptedJSONField | EncryptedBinaryField

    @property
    def label(self) -> str:
        return f"{self.model._meta.label}.{self.field.name}"


def encrypted_columns() -> list[Column]:
    return [
        Column(model, f)
        for model in apps.get_models()
        for f in model._meta.concrete_fields
        if isinstance(f, (EncryptedTextField, EncryptedJSONField, EncryptedBinaryField))
    ]


# How a stored value starts, as text: bytea casts to hex ("\\x656e63313a" is b"enc1:").
_BINARY_PREFIX = "\\x" + crypto.PREFIX.encode().hex()


def _raw_rows(col: Column, after_pk, batch: int):
    """(pk, stored value as the database holds it) — a text cast bypasses the field's decryption."""
    qs = col.model._base_manager.filter(pk__gt=after_pk).order_by("pk")
    rows = qs.annotate(_raw=Cast(F(col.field.attname), TextField())).values_list("pk", "_raw")[:batch]
    return list(rows)


def _stored_needs_encryption(col: Column, raw) -> bool:
    if raw is None:
        return False
    if isinstance(col.field, EncryptedTextField):
        return raw != "" and not crypto.is_encrypted(raw)
    if isinstance(col.field, EncryptedBinaryField):
        return raw != "\\x" and not raw.startswith(_BINARY_PREFIX)
    return col.field.needs_encryption(json.loads(raw))


def _stored_is_encrypted(col: Column, raw) -> bool:
    if raw is None:
        return False
    if isinstance(col.field, EncryptedTextField):
        return crypto.is_encrypted(raw)
    if isinstance(col.field, EncryptedBinaryField):
        return raw.startswith(_BINARY_PREFIX)
    return crypto.PREFIX in raw


def _rewrite(col: Column, select: Callable, *, batch: int) -> int:
    """Re-save (through the field) every row whose stored value ``select`` picks; batch by batch, each in its
    own transaction, so a long run can be interrupted and resumed."""
    changed, after = 0, 0
    manager = col.model._base_manager
    while True:
        rows = _raw_rows(col, after, batch)
        if not rows:
            return changed
        after = rows[-1][0]
        picked = [pk for pk, raw in rows if select(col, raw)]
        if not picked:
            continue
        with transaction.atomic():
            for pk, value in manager.filter(pk__in=picked).select_for_update().values_list("pk", col.field.name):
                manager.filter(pk=pk).update(**{col.field.name: value})
                changed += 1


def encrypt_existing(*, batch: int = BATCH) -> dict[str, int]:
    """Encrypt every stored plaintext value of every encrypted column. Running it again changes nothing."""
    if not crypto.enabled():
        raise crypto.EncryptionUnavailable("ALMANAC_ENCRYPTION_KEY is not set: nothing to encrypt with.")
    return {col.label: _rewrite(col, _stored_needs_encryption, batch=batch) for col in encrypted_columns()}


def decrypt_all(*, batch: int = BATCH) -> dict[str, int]:
    """Write every encrypted value back as plaintext (before removing the key for good)."""
    with crypto.plaintext_writes():
        return {col.label: _rewrite(col, _stored_is_encrypted, batch=batch) for col in encrypted_columns()}


def status() -> dict[str, dict[str, int]]:
    """Per column: rows holding encrypted values and rows still holding plaintext (that encryption would cover)."""
    out = {}
    for col in encrypted_columns():
        qs = col.model._base_manager.annotate(_raw=Cast(F(col.field.attname), TextField()))
        if isinstance(col.field, (EncryptedTextField, EncryptedBinaryField)):
            prefix, empty = (
                (crypto.PREFIX, "") if isinstance(col.field, EncryptedTextField) else (_BINARY_PREFIX, "\\x")
            )
            enc = qs.filter(_raw__startswith=prefix).count()
            plain = qs.exclude(Q(_raw__startswith=prefix) | Q(_raw=empty) | Q(_raw__isnull=True)).count()
        else:
            enc = qs.filter(_raw__contains=crypto.PREFIX).count()
            plain = sum(1 for raw in qs.values_list("_raw", flat=True).iterator() if _stored_needs_encryption(col, raw))
        out[col.label] = {"encrypted": enc, "plaintext": plain}
    return out


def refill_search_vectors(*, models=None, only_missing: bool = True, batch: int = BATCH) -> dict[str, int]:
    """Recompute application-kept search vectors from the plaintext (rows restored from an export, or all)."""
    out = {}
    for model in apps.get_models() if models is None else models:
        for f in model._meta.concrete_fields:
            if not isinstance(f, PlaintextSearchVectorField):
                continue
            qs = model._base_manager.order_by("pk")
            if only_missing:
                qs = qs.filter(**{f"{f.name}__isnull": True})
            n = 0
            for obj in qs.only("pk", *f.source_fields).iterator(chunk_size=batch):
                model._base_manager.filter(pk=obj.pk).update(**{f.name: search_vector(f.plaintext(obj), f.config)})
                n += 1
            out[f"{model._meta.label}.{f.name}"] = n
    return out
