"""Demo hook for ``make up``: seed the identity layer and report the ledger's state (no servers to run)."""

from __future__ import annotations

from ledger import chain
from ledger.models import Fact, IdentityOverride
from ledger.services import layers


def start(user, first_run: bool, stdout) -> list:
    if first_run and not IdentityOverride.objects.owned_by(user).exists():
        # The display name lives in the site's settings row; read it through the relation, not an import.
        name = getattr(getattr(user, "almanac_settings", None), "display_name", "") or user.get_username()
        layers.set_identity_override(owner=user, key="name", value=name)
    report = chain.verify(user)
    facts = Fact.objects.owned_by(user).count()
    stdout.write(f"Ledger: {facts} facts; {report.line()}")
    return []
