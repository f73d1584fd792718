"""Every session and lesson that named a working directory gets the folder project of that directory.

A migration of its own: run inside 0004, whose new foreign keys add their indexes when it ends, the updates left
trigger events pending and PostgreSQL refused the index ("pending trigger events") on any database with chats."""

from django.db import migrations


def _projects_from_folders(apps, schema_editor):
    """Every session and lesson that named a working directory gets the folder project of that directory (the key
    is the directory as stored, so lesson keys made from it still match)."""
    from chats.projects import normalise_path

    AgentProject = apps.get_model("chats", "AgentProject")
    made: dict[tuple[int, str], int] = {}
    for model_name in ("ChatSession", "Lesson"):
        model = apps.get_model("chats", model_name)
        rows = model.objects.exclude(project="").values_list("owner_id", "project").distinct()
        for owner_id, folder in rows:
            root = normalise_path(folder)
            if not root:
                continue
            if (owner_id, folder) not in made:
                project, _ = AgentProject.objects.get_or_create(
                    owner_id=owner_id, key=folder[:500],
                    defaults={"name": root.rstrip("/").rsplit("/", 1)[-1][:200] or root[:200], "root": root},
                )
                made[(owner_id, folder)] = project.pk
            model.objects.filter(owner_id=owner_id, project=folder).update(agent_project_id=made[(owner_id, folder)])



class Migration(migrations.Migration):
    dependencies = [("chats", "0005_hook_transcripts_private_counts")]

    operations = [migrations.RunPython(_projects_from_folders, migrations.RunPython.noop)]
