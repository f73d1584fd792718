"""Gate policies: one per (owner, source key), created with the defaults on first use."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.exceptions import DomainError
from distill.models import GatePolicy, MinImportance, Mode, NativeMode
from distill.trust import Policy

POLICY_FIELDS = (
    "mode",
    "source_trust",
    "auto_approve_trust",
    "review_trust",
    "min_importance",
    "max_memories_per_day",
    "min_confidence",
    "native_mode",
)
UNIT_FIELDS = ("source_trust", "auto_approve_trust", "review_trust", "min_confidence")


class PolicyError(DomainError):
    status_code = 422


def get_policy(owner, source_key: str) -> GatePolicy:
    """The owner's policy for ``source_key``; created with the defaults the first time (race-safe)."""
    source_key = (source_key or "").strip()[:100]
    if not source_key:
        raise PolicyError("A gate policy needs a source key")
    found = GatePolicy.objects.owned_by(owner).filter(source_key=source_key).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return GatePolicy.objects.create(owner=owner, source_key=source_key)
    except IntegrityError:  # another worker created it first
        return GatePolicy.objects.get(owner=owner, source_key=source_key)


def update_policy(*, owner, source_key: str, labels: dict[str, str] | None = None, **changes) -> GatePolicy:
    """Validate and save policy changes (unknown names rejected; trust values in 0..1; review ≤ auto-approve).

    ``labels`` renames fields in error messages for a caller whose form or API uses other names
    (the Sources page says "memory_mode" for ``mode``). Raises ``PolicyError`` (422); nothing is saved then.
    """
    label = {name: name for name in POLICY_FIELDS} | (labels or {})
    unknown = set(changes) - set(POLICY_FIELDS)
    if unknown:
        raise PolicyError(f"Unknown policy field(s): {', '.join(sorted(unknown))}")
    gate = get_policy(owner, source_key)
    for name in UNIT_FIELDS:
        if name in changes:
            try:
                value = float(changes[name])
            except (TypeError, ValueError) as exc:
                raise PolicyError(f"{label[name]} must be a number from 0 to 1") from exc
            if not 0 <= value <= 1:
                raise PolicyError(f"{label[name]} must be a number from 0 to 1")
            changes[name] = value
    choices = {"mode": Mode.values, "native_mode": NativeMode.values, "min_importance": MinImportance.values}
    for name, allowed in choices.items():
        if name in changes and changes[name] not in allowed:
            raise PolicyError(f"{label[name]} must be one of {', '.join(allowed)}")
    if "max_memories_per_day" in changes:
        try:
            changes["max_memories_per_day"] = int(changes["max_memories_per_day"])
        except (TypeError, ValueError) as exc:
            raise PolicyError(f"{label['max_memories_per_day']} must be a whole number") from exc
        if changes["max_memories_per_day"] < 0:
            raise PolicyError(f"{label['max_memories_per_day']} must be 0 (no limit) or more")
    review = changes.get("review_trust", gate.review_trust)
    auto = changes.get("auto_approve_trust", gate.auto_approve_trust)
    if float(review) > float(auto):
        raise PolicyError(f"{label['review_trust']} must not be above {label['auto_approve_trust']}")
    for name, value in changes.items():
        setattr(gate, name, value)
    gate.save()
    return gate


def as_trust_policy(gate: GatePolicy, *, native: bool = False) -> Policy:
    """The pure ``trust.Policy`` the pipeline scores with. Native memories: their own switch, a lower prior."""
    policy = Policy(
        mode=gate.mode,
        source_trust=gate.source_trust,
        auto_approve_trust=gate.auto_approve_trust,
        review_trust=gate.review_trust,
        min_importance=gate.min_importance,
        max_memories_per_day=gate.max_memories_per_day,
        min_confidence=gate.min_confidence,
    )
    if native:
        policy.mode = gate.native_mode
        policy.source_trust = round(gate.source_trust * 0.9, 4)
    return policy
