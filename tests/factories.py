"""All factory-boy factories. Each app appends its own section; keep sections in import-order (ledger first)."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from memory_site import services as site_services
from memory_site.models import ApiToken, UserSettings

PASSWORD = "correct-horse-battery"


# --- memory_site -------------------------------------------------------------------------------------
class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.test")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class UserSettingsFactory(DjangoModelFactory):
    class Meta:
        model = UserSettings
        django_get_or_create = ["user"]

    user = factory.SubFactory(UserFactory)
    display_name = factory.Faker("name")
    timezone = "UTC"


class ApiTokenFactory(DjangoModelFactory):
    """Use ``create_token`` in tests that need the plain token; this factory is for listing/revocation."""

    class Meta:
        model = ApiToken

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"token {n}")
    prefix = factory.Sequence(lambda n: f"alm_{n:06d}")
    token_hash = factory.Sequence(lambda n: site_services.hash_token(f"alm_factory_{n}"))
