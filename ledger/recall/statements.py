"""Ranking SQL written once per provider and shape, then run with parameters: no ORM work per question.

Building a ranking queryset and compiling it (joins, select lists, the score expression) cost more Python per
question than PostgreSQL spent answering it. So the ORM builds each statement once, from a queryset made with
placeholders: an owner whose pk is a sentinel and marker strings for the lexemes, weights and tsqueries.
Compiling it shows where each placeholder landed among the parameters; later calls pass their real values in
those places (everything else, e.g. the policy's statuses, stays as compiled) and add ``LIMIT``. Django's
converters for the selected columns (JSON, floats, encrypted text...) are kept from that compilation and applied
to every row, so rows read exactly as the queryset would read them.

Contract (see providers.py): a provider's ``queryset(owner)`` uses the owner only as a filter value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import QuerySet

OWNER_SLOT = "owner"
_OWNER_PK = -770_000_000_001  # never a real primary key
_MARK = "\x1frecall-slot:"


def slot(name: str) -> str:
    """The placeholder value that stands for parameter ``name`` while the statement is built."""
    return f"{_MARK}{name}\x1f"


@dataclass
class Statement:
    sql: str
    params: list[tuple[bool, Any]]  # (True, slot name) or (False, constant as compiled)
    columns: list[str]
    converters: dict  # {position: ([converter, ...], expression)}, as SQLCompiler.get_converters gives them

    def rows(self, values: dict[str, Any], limit: int) -> list[dict[str, Any]]:
        """Rows (as {column: value}) for these slot values, at most ``limit``."""
        params = [values[v] if is_slot else v for is_slot, v in self.params]
        with connection.cursor() as cur:
            cur.execute(f"{self.sql} LIMIT %s", [*params, int(limit)])
            rows = cur.fetchall()
        columns, converters = self.columns, self.converters.items()
        out = []
        # As SQLCompiler.apply_converters, with this thread's connection (the statement may have been built on
        # another thread's).
        for row in rows:
            if converters:
                row = list(row)
                for pos, (functions, expression) in converters:
                    value = row[pos]
                    for convert in functions:
                        value = convert(value, expression, connection)
                    row[pos] = value
            out.append(dict(zip(columns, row, strict=True)))
        return out


_statements: dict[tuple, Statement] = {}


def statement(key: tuple, build: Callable[[Any], QuerySet], *, outer: str = "", columns=()) -> Statement:
    """The statement cached under ``key``, built on first use by ``build(owner)``: a ``values_list`` queryset,
    unsliced, made with ``slot(...)`` markers for its varying values.

    ``outer`` wraps it (``{inner}`` marks where), e.g. to aggregate its rows; ``columns`` then names the outer
    statement's columns (read as PostgreSQL returns them).
    """
    st = _statements.get(key)
    if st is None:
        qs = build(get_user_model()(pk=_OWNER_PK))
        compiler = qs.query.get_compiler(using=qs.db)
        sql, params = compiler.as_sql()
        if outer:
            sql = outer.replace("{inner}", sql)
        slots = []
        for p in params:
            if isinstance(p, str) and p.startswith(_MARK):
                slots.append((True, p[len(_MARK) : -1]))
            elif type(p) is int and p == _OWNER_PK:
                slots.append((True, OWNER_SLOT))
            elif isinstance(p, str) and _MARK in p:
                raise ValueError(f"a recall slot was folded into a larger parameter: {p!r}")
            else:
                slots.append((False, p))
        if outer:
            st = Statement(sql, slots, list(columns), {})
        else:
            if (True, OWNER_SLOT) not in slots:
                # A statement that returns rows must be scoped to its owner, whoever runs it next.
                raise ValueError(f"recall statement {key!r} does not filter by its owner")
            selected = compiler.select[: compiler.col_count]  # (expression, sql, alias): in the statement's order
            fields = [expr for expr, _sql, _alias in selected]
            names = [alias for _expr, _sql, alias in selected]
            st = Statement(sql, slots, names, compiler.get_converters(fields))
        if len(_statements) > 2000:  # shapes are few (provider × lexeme count × variant); never grows unbounded
            _statements.clear()
        _statements[key] = st
    return st


def forget_statements() -> None:
    _statements.clear()
