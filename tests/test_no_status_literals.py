"""One definition for each status and mode: production code compares and sets them through their TextChoices,
never through the string literal. An AST scan of every app fails on a new literal with its file and line.

A literal counts when it is one of the vocabulary's values and stands where a status or mode is compared or set:
either side of a comparison with something named ``*status*``/``*mode*`` (``x.status == "accepted"``,
``mode in ("review", "auto")``), a keyword argument, a parameter default, an assignment target, a dict key or
the key of ``setdefault``/``get`` of that name, also as either branch of a conditional expression. The definitions themselves (TextChoices class bodies) and migrations are not scanned.
"""

from __future__ import annotations

import ast
from pathlib import Path

from distill.models import Mode
from ledger.choices import Status

ROOT = Path(__file__).resolve().parents[1]
APPS = ("accounts", "chats", "distill", "ledger", "memory_site", "review", "screen", "wearables")
VOCABULARIES = {"status": frozenset(Status.values), "mode": frozenset(Mode.values)}


def _name_of(node: ast.AST) -> str:
    """The name a status/mode lives under: ``status``, ``fact.status``, ``row["status"]``, ``status__in``."""
    if isinstance(node, ast.Name):
        return node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value.lower()
    if isinstance(node, ast.Call):
        return _name_of(node.func)
    return ""


def _literals(node: ast.AST | None) -> list[ast.Constant]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [c for element in node.elts for c in _literals(element)]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def _vocabulary(name: str) -> frozenset[str]:
    return frozenset().union(*(values for key, values in VOCABULARIES.items() if key in name))


class _Scan(ast.NodeVisitor):
    def __init__(self, path: Path):
        self.where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        self.found: list[str] = []

    def _check(self, name: str, value: ast.AST | None) -> None:
        allowed = _vocabulary(name)
        for literal in _literals(value) if allowed else []:
            if literal.value in allowed:
                self.found.append(f"{self.where}:{literal.lineno}: {literal.value!r} ({name})")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if any(_name_of(base).endswith("choices") for base in node.bases):
            return  # a vocabulary's own definition
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        for operand in operands:
            name = _name_of(operand)
            for other in operands:
                if other is not operand:
                    self._check(name, other)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        """``fields.setdefault("status", "accepted")``, ``row.get("mode", "auto")``: the key names the value."""
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("setdefault", "get") and len(node.args) == 2:
            key = node.args[0]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self._check(key.value.lower(), node.args[1])
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self._check((node.arg or "").lower(), node.value)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            for element in target.elts if isinstance(target, ast.Tuple) else [target]:
                self._check(_name_of(element), node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check(_name_of(node.target), node.value)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self._check(key.value.lower(), value)
        self.generic_visit(node)

    def visit_arguments(self, node: ast.arguments) -> None:
        positional = [*node.posonlyargs, *node.args]
        for arg, default in zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True):
            self._check(arg.arg.lower(), default)
        for arg, default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
            self._check(arg.arg.lower(), default)
        self.generic_visit(node)


def _scan(path: Path) -> list[str]:
    scan = _Scan(path)
    scan.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return scan.found


def _production_files() -> list[Path]:
    return sorted(p for app in APPS for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts)


def test_no_status_or_mode_literal_outside_its_definition():
    files = _production_files()
    assert len(files) > 100, "the scan found too few modules to mean anything"
    found = [hit for path in files for hit in _scan(path)]
    assert not found, "use the TextChoices member, not the literal:\n" + "\n".join(found)


def test_the_scan_catches_each_way_a_literal_can_slip_in(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(fact, rows, status='rejected', *, mode='auto'):\n"
        "    if fact.status == 'accepted' or rows['status'] in ('dropped', 'pending'):\n"
        "        fact.status = 'superseded'\n"
        "    query(status__in=['pending_review'])\n"
        "    fields.setdefault('status', 'pending_review' if fact else 'accepted')\n"
        "    return {'status': 'retracted', 'mode': 'review', 'kind': 'accepted'}\n"
    )
    found = _scan(sample)
    assert [hit.split(": ", 1)[1] for hit in found] == [
        "'rejected' (status)",
        "'auto' (mode)",
        "'accepted' (status)",
        "'dropped' (status)",
        "'pending' (status)",
        "'superseded' (status)",
        "'pending_review' (status__in)",
        "'pending_review' (status)",
        "'accepted' (status)",
        "'retracted' (status)",
        "'review' (mode)",
    ]
