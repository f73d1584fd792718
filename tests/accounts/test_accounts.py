"""The accounts app: tokens and settings keep their rows across the move out of memory_site; one error type."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts import services
from accounts.exceptions import DomainError
from accounts.models import ApiToken, UserSettings
from ledger.exceptions import HeadConflict, InvalidMutation


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_an_install_from_before_the_move_keeps_its_tokens_and_settings(django_user_model):
    user = django_user_model.objects.create_user(username="carol", password="x")
    old_apps = _migrate([("memory_site", "0002_cache_table")])  # the schema before accounts existed
    OldToken = old_apps.get_model("memory_site", "ApiToken")
    OldSettings = old_apps.get_model("memory_site", "UserSettings")
    OldToken.objects.create(
        owner_id=user.pk, name="laptop", prefix="alm_abcdef", token_hash=services.hash_token("alm_x")
    )
    OldSettings.objects.create(user_id=user.pk, display_name="Carol Danvers", timezone="Europe/Oslo")
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert ApiToken.objects.get(owner=user).name == "laptop"
    assert services.authenticate_token("alm_x") == user
    assert UserSettings.objects.get(user=user).display_name == "Carol Danvers"
    assert services.user_timezone(user).key == "Europe/Oslo"


def test_every_domain_error_is_the_one_accounts_type():
    assert issubclass(HeadConflict, DomainError) and issubclass(InvalidMutation, DomainError)
    assert DomainError("nope").status_code == 400 and DomainError("nope").message == "nope"


@pytest.mark.django_db
def test_tokens_authenticate_until_revoked(user):
    token, plain = services.create_token(owner=user, name="cli")
    assert services.authenticate_token(plain) == user
    services.revoke_token(token=token)
    assert services.authenticate_token(plain) is None


def test_accounts_imports_no_other_app():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2] / "accounts"
    apps = ("ledger", "distill", "wearables", "chats", "screen", "review", "memory_site")
    pattern = re.compile(rf"^\s*(?:from|import)\s+({'|'.join(apps)})\b", re.M)
    offenders = [str(p) for p in root.rglob("*.py") if "migrations" not in p.parts and pattern.search(p.read_text())]
    assert offenders == []


def test_commands_resolve_the_named_user_or_the_only_one(db):
    from django.core.management.base import CommandError

    from accounts.commands import resolve_user
    from tests.factories import UserFactory

    with pytest.raises(CommandError, match="pass --user"):
        resolve_user(None)
    only = UserFactory(username="solo")
    assert resolve_user(None) == only and resolve_user("solo") == only
    with pytest.raises(CommandError, match="No user 'ghost'"):
        resolve_user("ghost")
    UserFactory(username="second")
    with pytest.raises(CommandError, match="pass --user"):
        resolve_user(None)


@pytest.mark.django_db
def test_a_stored_zone_this_machine_lacks_reads_as_utc_everywhere(user):
    # The zone is validated when set, but a database moved to a machine with an older tz database can hold one
    # it lacks: the owner's local day then falls back to UTC instead of failing every page and pass.
    from accounts.services import user_timezone
    from distill.services import _owner_day

    services.get_settings(user)
    assert UserSettings.objects.filter(user=user).update(timezone="Mars/Olympus_Mons") == 1
    assert str(user_timezone(user)) == "UTC"
    assert len(_owner_day(user)) == 10
