"""Every piece of text the database holds, two ways: the raw columns (what is on disk, search vectors included)
and every text field of every model read through the ORM (encrypted fields decrypted). Privacy tests scan both.
"""

from __future__ import annotations

import json

from django.apps import apps
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchVectorField
from django.db import connection, models
from pgvector.django import VectorField

RAW_TYPES = ("text", "character varying", "json", "jsonb", "tsvector")


def raw_values() -> list[tuple[str, str]]:
    """(table.column, value as text) for every text, JSON and tsvector column of every table."""
    out = []
    with connection.cursor() as cur:
        for table in connection.introspection.table_names():
            cur.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s AND data_type = ANY(%s)",
                [table, list(RAW_TYPES)],
            )
            columns = [r[0] for r in cur.fetchall()]
            if not columns:
                continue
            cur.execute("SELECT {} FROM {}".format(", ".join(f'"{c}"::text' for c in columns), f'"{table}"'))
            for row in cur.fetchall():
                out += [(f"{table}.{c}", v) for c, v in zip(columns, row, strict=True) if v]
    return out


def holds_text(field: models.Field) -> bool:
    """CharField, TextField, JSONField (and every subclass: e-mail, slugs, the encrypted fields), arrays of
    text, search vectors and embeddings (both made from text)."""
    if isinstance(field, ArrayField):
        return holds_text(field.base_field)
    return isinstance(field, models.CharField | models.TextField | models.JSONField | SearchVectorField | VectorField)


def text_fields() -> list[tuple[type[models.Model], models.Field]]:
    """Every concrete field of every (non-proxy) model that can hold text."""
    return [
        (model, field)
        for model in apps.get_models()
        if not model._meta.proxy
        for field in model._meta.concrete_fields
        if holds_text(field)
    ]


def model_values() -> list[tuple[str, str]]:
    """(app.Model.field, value) for every text field of every row, read through the ORM (decrypted)."""
    out = []
    for model, field in text_fields():
        if isinstance(field, SearchVectorField | VectorField):
            continue  # read raw (a tsvector) or not text at all (a vector)
        for value in model._default_manager.values_list(field.attname, flat=True).iterator():
            if value in (None, "", [], {}):
                continue
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            out.append((f"{model._meta.label}.{field.name}", text))
    return out


def everything() -> list[tuple[str, str]]:
    return raw_values() + model_values()
