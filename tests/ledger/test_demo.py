from __future__ import annotations

from io import StringIO

import pytest

from ledger import demo
from ledger.models import IdentityOverride
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def test_demo_seeds_the_identity_name_once_and_reports_the_chain(user):
    FactFactory(owner=user, content="Demo fact")
    out = StringIO()
    assert demo.start(user=user, first_run=True, stdout=out) == []
    assert IdentityOverride.objects.get(owner=user, key="name").value == "Alice Example"
    assert "Ledger: 1 facts; ok: 1 commits verified" in out.getvalue()
    demo.start(user=user, first_run=True, stdout=StringIO())
    assert IdentityOverride.objects.filter(owner=user).count() == 1
