"""The OpenAPI document names every schema once: two classes with one name would make the docs describe the
wrong body for one of the routes (ninja keeps only one of them under components)."""

from __future__ import annotations

import typing
from collections import defaultdict

import pydantic

from memory_site.api import api


def _models(annotation) -> list[type[pydantic.BaseModel]]:
    found = []
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        found.append(annotation)
    for arg in typing.get_args(annotation) or ():
        found.extend(_models(arg))
    return found


def _schema_classes() -> dict[str, set[str]]:
    names: dict[str, set[str]] = defaultdict(set)
    seen: set[type] = set()
    todo: list[type] = []
    for _prefix, router in api._routers:
        for path_view in router.path_operations.values():
            for operation in path_view.operations:
                todo.extend(operation.models)
                for response in (operation.response_models or {}).values():
                    todo.extend(_models(response) if response is not None else [])
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        if model.__module__.startswith("ninja."):
            continue  # ninja's generated wrappers (input/response containers), not part of the document
        names[model.__name__].add(f"{model.__module__}.{model.__qualname__}")
        for field in model.model_fields.values():
            todo.extend(_models(field.annotation))
    return names


def test_every_schema_class_behind_the_api_has_its_own_name():
    names = _schema_classes()
    assert len(names) > 20  # the walk found the API's schemas
    shared = {name: sorted(classes) for name, classes in names.items() if len(classes) > 1}
    assert shared == {}, f"rename per STYLE R12 (<App><Thing>In/Out): {shared}"


def test_openapi_document_lists_each_schema_name_once_and_builds(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    components = response.json()["components"]["schemas"]
    for name in ("WearablesSettingsIn", "SettingsIn", "ReviewDecisionIn", "LedgerSourceOut", "SourceOut"):
        assert name in components, name
