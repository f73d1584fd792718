"""Stored preference subjects were singularised by a hand-written rule ("stories" -> "storie"); re-read each
stored phrase with the lexicon's singulars so it keeps matching the events it names."""

from django.db import migrations


def reparse(apps, schema_editor):
    from screen import preferences

    ScreenSource = apps.get_model("screen", "ScreenSource")
    for source in ScreenSource.objects.exclude(preferences=[]).iterator():
        kept, seen = [], set()
        for raw in source.preferences or []:
            try:
                pref = preferences.parse(raw.get("text", "")).as_dict()
            except preferences.PreferenceError:
                pref = raw  # a phrase the parser no longer reads stays as it was
            key = (pref.get("action"), tuple(pref.get("subject") or ()))
            if key not in seen:
                seen.add(key)
                kept.append(pref)
        if kept != source.preferences:
            source.preferences = kept
            source.save(update_fields=["preferences"])


class Migration(migrations.Migration):
    dependencies = [("screen", "0003_span_signals")]
    operations = [migrations.RunPython(reparse, migrations.RunPython.noop)]
