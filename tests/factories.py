"""All factory-boy factories. Each app appends its own section; keep sections in import-order (ledger first)."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from factory.django import DjangoModelFactory

from accounts import services as site_services
from accounts.models import ApiToken, UserSettings

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


# --- wearables ---------------------------------------------------------------------------------------
import datetime as _dt  # noqa: E402

from wearables import models as wearables_models  # noqa: E402


class SourceFactory(DjangoModelFactory):
    class Meta:
        model = wearables_models.Source
        django_get_or_create = ["owner", "kind"]

    owner = factory.SubFactory(UserFactory)
    kind = "limitless"
    enabled = True
    credentials = factory.LazyFunction(dict)


class DayTranscriptFactory(DjangoModelFactory):
    class Meta:
        model = wearables_models.DayTranscript

    owner = factory.LazyAttribute(lambda o: o.source.owner)
    source = factory.SubFactory(SourceFactory)
    local_date = factory.Sequence(lambda n: _dt.date(2026, 6, 1) + _dt.timedelta(days=n))
    timezone = "UTC"
    content_hash = factory.Sequence(lambda n: f"{n:064d}")
    markdown = "---\nsource: limitless\n---\n"


class ConversationFactory(DjangoModelFactory):
    class Meta:
        model = wearables_models.Conversation

    owner = factory.LazyAttribute(lambda o: o.transcript.owner)
    transcript = factory.SubFactory(DayTranscriptFactory)
    external_id = factory.Sequence(lambda n: f"conv-{n}")
    started_at = factory.LazyAttribute(
        lambda o: _dt.datetime.combine(o.transcript.local_date, _dt.time(12), tzinfo=_dt.UTC)
    )


class UtteranceFactory(DjangoModelFactory):
    class Meta:
        model = wearables_models.Utterance

    owner = factory.LazyAttribute(lambda o: o.conversation.owner)
    conversation = factory.SubFactory(ConversationFactory)
    transcript = factory.LazyAttribute(lambda o: o.conversation.transcript)
    index = factory.Sequence(lambda n: n)
    speaker_label = "0"
    speaker_name = "Speaker 0"
    text = factory.Faker("sentence")


# --- ledger ------------------------------------------------------------------------------------------
# Facts are a projection of the commit log, so their factories go through the ledger services (a factory that
# inserted rows directly would be wiped by ``ledger rebuild``).
from ledger.services import EvidenceIn  # noqa: E402


class EvidenceInFactory(factory.Factory):
    class Meta:
        model = EvidenceIn

    source_type = "transcript"
    source_ref = factory.Sequence(lambda n: {"transcript_id": n, "utterances": [0, 2], "url": f"/transcripts/?t={n}"})
    # A neutral quote: a random sentence could hold a change cue ("now", "started") and flip a refusal check.
    quote = factory.Sequence(lambda n: f"Quoted line {n} of the source.")
    extractor_id = "test-extractor"
    extractor_version = "1"
    capture_confidence = 0.8
    source_label = "wearable:1"


class FactFactory(factory.Factory):
    """``FactFactory(owner=user, content=..., status="accepted")`` -> a Fact admitted through propose_fact."""

    class Meta:
        model = dict

    owner = factory.SubFactory(UserFactory)
    content = factory.Faker("sentence", nb_words=6)
    status = "accepted"
    subject = "user"
    person = None
    capture_confidence = 0.8
    veracity = 0.8
    importance = "normal"
    source_label = "wearable:1"
    tags = factory.LazyFunction(list)
    evidence = factory.LazyAttribute(lambda o: [EvidenceInFactory(source_label=o.source_label)])
    on_duplicate = "new"

    class Params:
        pending = factory.Trait(status="pending_review", veracity=0.55)

    @classmethod
    def _create(cls, model_class, **kwargs):
        from ledger import services as ledger_services

        result = ledger_services.propose_fact(**kwargs)
        return result.fact

    _build = _create


class IdentityOverrideFactory(DjangoModelFactory):
    class Meta:
        model = "ledger.IdentityOverride"

    owner = factory.SubFactory(UserFactory)
    key = factory.Sequence(lambda n: f"key{n}")
    value = factory.Faker("word")


class EpisodeFactory(DjangoModelFactory):
    class Meta:
        model = "ledger.Episode"

    owner = factory.SubFactory(UserFactory)
    key = factory.Sequence(lambda n: f"episode:{n}")
    title = factory.Faker("sentence", nb_words=4)
    summary = factory.Faker("paragraph")
    topics = factory.LazyFunction(list)
    started_at = factory.Faker("date_time_this_year", tzinfo=_dt.UTC)
