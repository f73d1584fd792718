"""The OpenAPI document names every answer an operation can give, not only the ones its handler declares.

Some answers come from layers in front of every handler: the request limits (400 NUL bytes or an unreadable
body, 413 too large, 414 query too long, 422 too long a field or an invalid value), the token check (401) and a
database that is restarting (503 with ``Retry-After``). A client generated from the document, or a fuzzer
checking answers against it (``tests/hardening/test_api_fuzz.py``), must find them there; each operation gets
the ones that apply to it, as ``ErrorOut``, unless it declares its own.
"""

from __future__ import annotations

from ninja import NinjaAPI

from accounts.schemas import ErrorOut

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
RETRY_AFTER = {
    "Retry-After": {"description": "seconds to wait before trying again", "schema": {"type": "integer"}},
}
COMMON = {
    "400": "Refused as a whole: NUL characters, or a body that is not readable JSON",
    "414": "Query string too long",
    "422": "Invalid input: a value of the wrong type or format, out of range or too long",
    "503": "The database is unavailable (restarting or unreachable): try again after Retry-After seconds",
}
WITH_BODY = {"413": "Request body too large"}
SECURED = {"401": "No valid token or browser session"}


def _error(description: str, status: str) -> dict:
    answer = {"description": description, "content": {"application/json": {"schema": ERROR_REF}}}
    if status == "503":
        answer["headers"] = RETRY_AFTER
    return answer


def document_common_errors(schema: dict) -> dict:
    """Add the front layers' error answers to every operation of ``schema`` (in place; returns it)."""
    schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
        "ErrorOut", ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")
    )
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            answers = {**COMMON}
            if "requestBody" in operation:
                answers |= WITH_BODY
            if operation.get("security"):
                answers |= SECURED
            responses = operation.setdefault("responses", {})
            for status, description in sorted(answers.items()):
                responses.setdefault(status, _error(description, status))
    return schema


class AlmanacAPI(NinjaAPI):
    """NinjaAPI whose OpenAPI document also lists the answers of the layers in front of the handlers."""

    def get_openapi_schema(self, *, path_prefix: str | None = None, path_params: dict | None = None):
        return document_common_errors(super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params))
