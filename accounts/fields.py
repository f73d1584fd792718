"""Model fields for encryption at rest (``accounts.crypto``) and the search vectors that must outlive it.

- ``EncryptedTextField``: a TextField stored as ``enc1:<token>`` when ``ALMANAC_ENCRYPTION_KEY`` is set; reads
  return plaintext (legacy plaintext rows read as they are). SQL on the column (``icontains``, ``ts_headline``,
  ordering, equality) sees ciphertext: filter in Python or on a search vector instead.
- ``EncryptedJSONField``: a JSONField whose values under ``keys`` (anywhere in the document) are stored encrypted;
  ``keys=None`` encrypts the whole document as ``{"enc1": "<token>"}`` (no JSON lookups on it then).
- ``PlaintextSearchVectorField``: a tsvector column filled by the application from the plaintext of
  ``source_fields`` on every insert and ``save()`` (``bulk_create`` included), replacing a ``GeneratedField``
  that PostgreSQL would compute from ciphertext. ``QuerySet.update()`` of a source field must also set it:
  ``update(text=t, search=search_vector(t))``.
"""

from __future__ import annotations

import json

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Func, Value

from accounts import crypto


class EncryptedTextField(models.TextField):
    description = "Text, encrypted at rest when ALMANAC_ENCRYPTION_KEY is set"

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or not isinstance(value, str):
            return value
        return crypto.encrypt(value)

    def from_db_value(self, value, expression, connection):
        return crypto.decrypt(value)


def _walk(value, keys: frozenset, fn):
    if isinstance(value, dict):
        return {k: (fn(v) if k in keys else _walk(v, keys, fn)) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, keys, fn) for v in value]
    return value


def _seal(value):
    if value is None or value == "" or crypto.is_encrypted(value) or not crypto.enabled():
        return value
    return crypto.encrypt(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _open(value):
    return json.loads(crypto.decrypt(value)) if crypto.is_encrypted(value) else value


WHOLE = "enc1"  # the one key of a whole-document ciphertext


class EncryptedJSONField(models.JSONField):
    description = "JSON with selected values encrypted at rest when ALMANAC_ENCRYPTION_KEY is set"

    def __init__(self, *args, keys=None, **kwargs):
        self.encrypted_keys = tuple(keys) if keys else None
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if self.encrypted_keys:
            kwargs["keys"] = list(self.encrypted_keys)
        return name, path, args, kwargs

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or hasattr(value, "resolve_expression") or not crypto.enabled():
            return value
        if self.encrypted_keys:
            return _walk(value, frozenset(self.encrypted_keys), _seal)
        if isinstance(value, dict) and set(value) == {WHOLE}:
            return value
        return {WHOLE: crypto.encrypt(json.dumps(value, ensure_ascii=False, sort_keys=True))}

    def from_db_value(self, value, expression, connection):
        value = super().from_db_value(value, expression, connection)
        return self.reveal(value)

    def reveal(self, value):
        """The plaintext document of a stored one (legacy plaintext passes through)."""
        if self.encrypted_keys:
            return _walk(value, frozenset(self.encrypted_keys), _open)
        if isinstance(value, dict) and set(value) == {WHOLE} and crypto.is_encrypted(value[WHOLE]):
            return json.loads(crypto.decrypt(value[WHOLE]))
        return value

    def needs_encryption(self, stored) -> bool:
        """True when a stored (raw) document still holds plaintext that this field encrypts."""
        if stored is None:
            return False
        if not self.encrypted_keys:
            return not (isinstance(stored, dict) and set(stored) == {WHOLE})
        found = []
        _walk(stored, frozenset(self.encrypted_keys), lambda v: found.append(v) or v)
        return any(v not in (None, "") and not crypto.is_encrypted(v) for v in found)


def search_vector(text: str, config: str = "english") -> Func:
    """``to_tsvector(config, text)`` with ``text`` as a parameter: what a GENERATED column would have held."""
    return Func(
        Value(text or ""),
        function="to_tsvector",
        template=f"to_tsvector('{config}'::regconfig, %(expressions)s::text)",
        output_field=SearchVectorField(),
    )


class PlaintextSearchVectorField(SearchVectorField):
    """A tsvector kept by the application from the plaintext of ``source_fields`` (joined by a space)."""

    derived = True  # computed from other columns: left out of exports, recomputed on restore

    def __init__(self, *args, source_fields=("text",), config="english", **kwargs):
        self.source_fields = tuple(source_fields)
        self.config = config
        kwargs.setdefault("null", True)
        kwargs.setdefault("blank", True)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["source_fields"] = list(self.source_fields)
        kwargs["config"] = self.config
        for k, default in (("null", True), ("blank", True), ("editable", False)):
            if kwargs.get(k, not default) == default:
                kwargs.pop(k, None)
        return name, path, args, kwargs

    def plaintext(self, instance) -> str:
        return " ".join(str(getattr(instance, f) or "") for f in self.source_fields)

    def pre_save(self, model_instance, add):
        return search_vector(self.plaintext(model_instance), self.config)


def contains_any(qs, field: str, words) -> models.Q:
    """``Q(field__icontains=w1) | ...`` over ``qs``; with encryption at rest (the column holds ciphertext), the
    rows of ``qs`` whose decrypted ``field`` contains a word, matched in Python, as ``Q(pk__in=[...])``."""
    words = [w for w in words if w]
    if not words:
        return models.Q(pk__in=[])
    if not crypto.enabled():
        q = models.Q(pk__in=[])
        for w in words:
            q |= models.Q(**{f"{field}__icontains": w})
        return q
    lowered = [w.casefold() for w in words]
    pks = [
        pk
        for pk, value in qs.values_list("pk", field).iterator(chunk_size=2000)
        if value and any(w in value.casefold() for w in lowered)
    ]
    return models.Q(pk__in=pks)


class EncryptedBinaryField(models.BinaryField):
    """Bytes stored as ``b"enc1:" + token`` when ``ALMANAC_ENCRYPTION_KEY`` is set; reads return ``bytes``."""

    description = "Bytes, encrypted at rest when ALMANAC_ENCRYPTION_KEY is set"

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or hasattr(value, "resolve_expression") or not crypto.enabled():
            return value
        data = bytes(value)
        if not data or data.startswith(crypto.PREFIX.encode()):
            return data
        return crypto.encrypt_bytes(data)

    def from_db_value(self, value, expression, connection):
        return None if value is None else crypto.decrypt_bytes(bytes(value))
