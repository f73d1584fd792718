"""ApiToken and UserSettings moved to the ``accounts`` app. State only: the tables stay where they are (the
accounts models point at them with ``Meta.db_table``), so an existing install keeps its tokens and settings."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("memory_site", "0002_cache_table")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ApiToken"), migrations.DeleteModel(name="UserSettings")],
            database_operations=[],
        )
    ]
