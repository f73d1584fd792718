"""schemathesis against /api/v1/openapi.json, a short seeded run (the long one: ``python bench/fuzz.py``).

Every operation, with a token and without, answers within its own document: never a 500, no status the
operation does not list (a 502 from an unreachable upstream is listed), a body that matches the schema given
for its status, the content type and headers the document names, and every error JSON with a ``detail``.
The seed is fixed, so a failure reproduces on the next run and in CI.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.db import transaction
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from memory_site.wsgi import application

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SEED = 38
EXAMPLES = 5  # the fuzzing phase's examples per operation; the examples phase adds the schema's own


def _schema(**phases) -> schemathesis.schemas.BaseSchema:
    config = {"seed": SEED, "phases": {name: {"enabled": on} for name, on in phases.items()}}
    return schemathesis.openapi.from_wsgi(
        "/api/v1/openapi.json", application, config=SchemathesisConfig.from_dict(config)
    )


# With a token: generated values (fuzzing) and each parameter's boundaries and wrong types (coverage).
schema = _schema(coverage=True)
# Without one the token check answers before any value is read: a few examples per operation say it all.
anonymous_schema = _schema(coverage=False)


def never_500(ctx, response, case) -> None:
    """A 500 is a crash, whatever the request was (a 502 or 503 is checked against the document instead)."""
    assert response.status_code != 500, f"{case.method} {case.path} answered 500: {response.text[:300]}"


def errors_are_json_with_detail(ctx, response, case) -> None:
    if response.status_code < 400:
        return
    content_type = response.headers.get("content-type") or response.headers.get("Content-Type") or [""]
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    assert "json" in content_type, (case.method, case.path, response.status_code, response.text[:200])
    body = response.json()
    assert isinstance(body, dict) and isinstance(body.get("detail"), str) and body["detail"], body


CHECKS = [
    never_500,
    errors_are_json_with_detail,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


def _isolated(call):
    """Run one request in a savepoint and roll it back. In production each statement commits on its own, so a
    value PostgreSQL refuses (answered 422) fails alone; inside the test's one transaction it would abort every
    later request, so each example starts from the same state instead."""
    savepoint = transaction.savepoint()
    try:
        return call()
    finally:
        transaction.savepoint_rollback(savepoint)


@pytest.fixture(autouse=True)
def keep_test_connection():
    """The WSGI app closes the connection after each request; the test transaction needs it (as Client does)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def bearer(user) -> dict:
    """Authorization header with a fresh token for ``user``."""
    from accounts import services

    _, plain = services.create_token(owner=user, name="fuzz")
    return {"Authorization": f"Bearer {plain}"}


HYPOTHESIS = {"deadline": None, "suppress_health_check": list(HealthCheck), "database": None, "derandomize": True}


@schema.parametrize()
@settings(max_examples=EXAMPLES, **HYPOTHESIS)
def test_api_operation_answers_within_its_document_with_a_token(case, bearer):
    response = _isolated(lambda: case.call(headers=bearer))
    case.validate_response(response, headers=bearer, checks=CHECKS)


@anonymous_schema.parametrize()
@settings(max_examples=2, **HYPOTHESIS)
def test_api_operation_without_a_token_answers_401_json(case, db):
    response = _isolated(case.call)
    case.validate_response(response, checks=CHECKS)
    if case.operation.path != "/api/v1/health":
        assert response.status_code in (400, 401, 404, 405, 413, 414, 422), response.status_code
