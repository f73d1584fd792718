"""Admin pages for the wearables models load, and never show stored credentials."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import SourceFactory, UserFactory, UtteranceFactory

pytestmark = pytest.mark.django_db

MODELS = [
    "wearablessettings", "source", "daytranscript", "conversation", "utterance", "person", "speakeridentity",
    "speakerassignment", "correction", "redactionrule", "syncrun", "nativememoryimport",
]  # fmt: skip


def test_every_wearables_admin_page_loads_without_credentials(client):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    source = SourceFactory(owner=admin, kind="omi", credentials={"api_key": "sk_admin_secret"})
    UtteranceFactory(conversation__transcript__source=source)
    for name in MODELS:
        r = client.get(reverse(f"admin:wearables_{name}_changelist"))
        assert r.status_code == 200, name
    r = client.get(reverse("admin:wearables_source_change", args=[source.pk]))
    assert r.status_code == 200 and "sk_admin_secret" not in r.content.decode()
