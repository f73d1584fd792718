"""Gate policies at /api/v1/distill/: one per source key ("wearable:omi", "chat:claude-code", "agent:mcp")."""

from __future__ import annotations

import re

from ninja import Router, Status

from accounts.schemas import ErrorOut
from distill import policies
from distill.models import GatePolicy
from distill.schemas import PolicyIn, PolicyOut

router = Router(tags=["distill"])
ERRORS = {400: ErrorOut, 404: ErrorOut, 422: ErrorOut}
SOURCE_KEY = re.compile(r"^[a-z][a-z0-9_-]*(?::[A-Za-z0-9_.-]+)*$")


def _key(source_key: str) -> str:
    if len(source_key) > 100 or not SOURCE_KEY.match(source_key):
        raise policies.PolicyError('source_key must look like "family:name", e.g. "chat:claude-code"')
    return source_key


@router.get("/policies", response=list[PolicyOut])
def list_policies(request):
    """The owner's gate policies (sources without a row use the defaults)."""
    return list(GatePolicy.objects.owned_by(request.auth))


@router.get("/policies/{source_key}", response={200: PolicyOut, **ERRORS})
def get_policy(request, source_key: str):
    """A stored policy; 404 until the source is set up (reading never creates a row)."""
    found = GatePolicy.objects.owned_by(request.auth).filter(source_key=_key(source_key)).first()
    if found is None:
        return Status(404, {"detail": f"No gate policy for {source_key!r} yet; PUT one to create it"})
    return found


@router.put("/policies/{source_key}", response={200: PolicyOut, **ERRORS})
def put_policy(request, source_key: str, payload: PolicyIn):
    changes = payload.model_dump(exclude_none=True)
    return policies.update_policy(owner=request.auth, source_key=_key(source_key), **changes)
