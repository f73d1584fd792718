"""Admin: the commit log and projection are browsable but read-only."""

from __future__ import annotations

import pytest

from ledger import services
from ledger.models import Commit
from tests.factories import FactFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    return client


@pytest.mark.parametrize("model", ["fact", "evidence", "entity", "commit", "refusal", "episode", "pinnedfact"])
def test_admin_lists_render(admin_client, user, model):
    fact = FactFactory(owner=user, content="Admin-visible fact", subject="third_party", person="Maya")
    services.decide(owner=user, fact=fact, status="rejected")
    assert admin_client.get(f"/admin/ledger/{model}/").status_code == 200


def test_commits_cannot_be_added_changed_or_deleted_in_admin(admin_client, user):
    FactFactory(owner=user, content="x")
    commit = Commit.objects.get(owner=user)
    assert admin_client.get("/admin/ledger/commit/add/").status_code == 403
    assert admin_client.post(f"/admin/ledger/commit/{commit.pk}/delete/", {"post": "yes"}).status_code == 403
    page = admin_client.get(f"/admin/ledger/commit/{commit.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
