"""What a database holds, described so that another release (or a restored backup) can be compared with it.

    python -m tests.deploy.release describe            # JSON on stdout
    python -m tests.deploy.release compare MANIFEST    # JSON {"problems": [...], "checked": {...}}

Run against ``DATABASE_URL``. The description covers every model of every Almanac app: its row count and, for
models with text, a few rows' text by primary key; and every owner's ledger chain: its length, its head commit,
whether it verifies and whether the projection equals a replay of it. ``compare`` reports what an upgraded or
restored database lost or changed: a table with fewer or more rows, a text that is gone or different, a chain
that is shorter, has another head or no longer verifies.
"""

from __future__ import annotations

import json
import sys

PACKAGES = ["accounts", "ledger", "distill", "wearables", "chats", "screen", "review", "memory_site"]
TEXT_SAMPLES = 2  # rows per model whose text is kept


def _models():
    """Every model of an Almanac app (the sub-apps ``ledger.recall`` and ``ledger.llm`` included)."""
    from django.apps import apps

    for config in apps.get_app_configs():
        if config.name.split(".")[0] not in PACKAGES:
            continue
        for model in config.get_models():
            if model._meta.proxy or not model._meta.managed:
                continue
            yield model


def _text_field(model) -> str | None:
    """The model's first free-text field (a TextField, or a long CharField without choices)."""
    from django.db import models

    for f in model._meta.concrete_fields:
        if isinstance(f, models.TextField) or (
            isinstance(f, models.CharField) and not f.choices and (f.max_length or 0) >= 200
        ):
            return f.name
    return None


def _samples(model, field: str) -> list[list]:
    rows = model.objects.order_by("pk").values_list("pk", field)[:200]
    texts = [[pk, value] for pk, value in rows if isinstance(value, str) and len(value) >= 12]
    texts.sort(key=lambda row: -len(row[1]))
    return texts[:TEXT_SAMPLES]


def _chains() -> dict[str, dict]:
    from ledger import chain
    from ledger.models import ChainHead

    out = {}
    for head in ChainHead.objects.select_related("owner").order_by("owner__username"):
        report = chain.verify(head.owner)
        out[head.owner.get_username()] = {
            "length": report.length,
            "head": report.head_commit_id,
            "verifies": report.ok,
            "projection_equals_replay": chain.rebuild(head.owner, write=False).identical_before,
        }
    return out


def describe() -> dict:
    tables, texts = {}, {}
    for model in _models():
        tables[model._meta.label] = model.objects.count()
        field = _text_field(model)
        if field and (samples := _samples(model, field)):
            texts[model._meta.label] = {"field": field, "rows": samples}
    return {"tables": tables, "texts": texts, "chains": _chains()}


def compare(manifest: dict) -> dict:
    """Every way the current database differs from ``manifest`` (a ``describe()`` of the database it came from)."""
    now = describe()
    problems = []
    for label, count in manifest["tables"].items():
        if label not in now["tables"]:
            problems.append(f"{label}: the model is gone")
        elif now["tables"][label] != count:
            problems.append(f"{label}: {now['tables'][label]} rows, the release had {count}")
    from django.apps import apps

    for label, sample in manifest["texts"].items():
        model = apps.get_model(label)
        for pk, text in sample["rows"]:
            stored = model.objects.filter(pk=pk).values_list(sample["field"], flat=True).first()
            if stored != text:
                problems.append(f"{label} #{pk}.{sample['field']}: {'missing' if stored is None else 'changed'}")
    for owner, before in manifest["chains"].items():
        after = now["chains"].get(owner)
        if after is None:
            problems.append(f"{owner}: the chain is gone")
        elif after != {**before, "verifies": True, "projection_equals_replay": True}:
            problems.append(f"{owner}: chain {after}, the release had {before}")
    checked = {
        "models": len(manifest["tables"]),
        "rows": sum(manifest["tables"].values()),
        "texts": sum(len(s["rows"]) for s in manifest["texts"].values()),
        "apps_with_text": sorted({label.split(".")[0] for label in manifest["texts"]}),
        "chains": len(manifest["chains"]),
        "commits": sum(c["length"] for c in manifest["chains"].values()),
    }
    return {"problems": problems, "checked": checked}


def main(argv: list[str]) -> None:
    import django

    django.setup()
    if argv[0] == "describe":
        out = describe()
    else:
        with open(argv[1], encoding="utf-8") as f:
            out = compare(json.load(f))
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
