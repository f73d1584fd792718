from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # The database cache is shared by the web server and the worker (django-q2 heartbeat, recall cache).
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("memory_site", "0001_initial")]
    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
