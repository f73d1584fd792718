"""A device's memory settings move to the trust gate: each Source's values are copied into a
``distill.GatePolicy`` ("wearable:<kind>"), then the fields leave ``wearables.Source``."""

from django.db import migrations

FIELDS = {
    "memory_mode": "mode",
    "source_trust": "source_trust",
    "auto_approve_trust": "auto_approve_trust",
    "review_trust": "review_trust",
    "min_importance": "min_importance",
    "max_memories_per_day": "max_memories_per_day",
    "min_confidence": "min_confidence",
    "import_native_memories": "native_mode",
}


def copy_to_gate_policy(apps, schema_editor):
    Source = apps.get_model("wearables", "Source")
    GatePolicy = apps.get_model("distill", "GatePolicy")
    for source in Source.objects.all().iterator():
        GatePolicy.objects.update_or_create(
            owner_id=source.owner_id,
            source_key=f"wearable:{source.kind}",
            defaults={field: getattr(source, name) for name, field in FIELDS.items()},
        )


def copy_back(apps, schema_editor):
    Source = apps.get_model("wearables", "Source")
    GatePolicy = apps.get_model("distill", "GatePolicy")
    for gate in GatePolicy.objects.filter(source_key__startswith="wearable:").iterator():
        values = {name: getattr(gate, field) for name, field in FIELDS.items()}
        Source.objects.filter(owner_id=gate.owner_id, kind=gate.source_key.split(":", 1)[1]).update(**values)


class Migration(migrations.Migration):
    dependencies = [
        ("wearables", "0003_conversation_elided_spans"),
        ("distill", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(copy_to_gate_policy, copy_back),
        migrations.RemoveConstraint(model_name="source", name="wearables_source_trust_in_unit_range"),
        migrations.RemoveField(model_name="source", name="auto_approve_trust"),
        migrations.RemoveField(model_name="source", name="import_native_memories"),
        migrations.RemoveField(model_name="source", name="max_memories_per_day"),
        migrations.RemoveField(model_name="source", name="memory_mode"),
        migrations.RemoveField(model_name="source", name="min_confidence"),
        migrations.RemoveField(model_name="source", name="min_importance"),
        migrations.RemoveField(model_name="source", name="review_trust"),
        migrations.RemoveField(model_name="source", name="source_trust"),
    ]
