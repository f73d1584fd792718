import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0003_perf_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="entity",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("name"),
                models.F("owner"),
                condition=models.Q(("merged_into__isnull", True)),
                name="ledger_entity_unique_live_name",
            ),
        ),
        migrations.AddIndex(
            model_name="refusalhit",
            index=models.Index(fields=["owner", "-created_at"], name="ledger_refusalhit_recent"),
        ),
    ]
