"""Adopt the tables memory_site created (memory_site_apitoken, memory_site_usersettings): state only, no DDL.
Content types follow the models so admin history and permissions keep pointing at the right rows."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import accounts.models


def move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in ("apitoken", "usersettings"):
        if not ContentType.objects.filter(app_label="accounts", model=model).exists():
            ContentType.objects.filter(app_label="memory_site", model=model).update(app_label="accounts")


def restore_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="accounts", model__in=["apitoken", "usersettings"]).update(
        app_label="memory_site"
    )


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("contenttypes", "0002_remove_content_type_name"),
        # The tables were created by memory_site 0001; its 0003 drops them from memory_site's state.
        ("memory_site", "0003_move_accounts_models"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ApiToken",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("public_id", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                        ("name", models.CharField(default="default", max_length=100)),
                        ("prefix", models.CharField(help_text="First characters, to tell tokens apart", max_length=16)),
                        ("token_hash", models.CharField(max_length=64, unique=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("revoked_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="%(app_label)s_%(class)s_set",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"ordering": ["-created_at"], "db_table": "memory_site_apitoken"},
                ),
                migrations.CreateModel(
                    name="UserSettings",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("display_name", models.CharField(blank=True, max_length=100)),
                        (
                            "timezone",
                            models.CharField(
                                default="UTC", max_length=64, validators=[accounts.models.validate_timezone]
                            ),
                        ),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="almanac_settings",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={"verbose_name_plural": "user settings", "db_table": "memory_site_usersettings"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, restore_content_types),
    ]
