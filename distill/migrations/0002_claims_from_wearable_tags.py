"""Key the memories the wearables trust area wrote before ``distill`` existed: their tags ("wearable:<kind>",
"wearable-day:<date>", "wearable-native:<kind>") become explicit ``Claim`` rows, so re-runs match them."""

import hashlib
import re

from django.db import migrations

_NORM = re.compile(r"[^a-z0-9 ]+")


def _claim_hash(text: str) -> str:
    # The content hash distill used at the time of this migration (distill.extraction.base.content_hash).
    return hashlib.sha256(" ".join(_NORM.sub(" ", (text or "").lower()).split()).encode()).hexdigest()


def forwards(apps, schema_editor):
    Fact = apps.get_model("ledger", "Fact")
    Claim = apps.get_model("distill", "Claim")
    rows = []
    for fact in Fact.objects.filter(tags__contains=["wearable"]).iterator():
        tags = fact.tags or []
        kind = next((t.split(":", 1)[1] for t in tags if t.startswith("wearable:")), "")
        if not kind:
            continue
        day = next((t.split(":", 1)[1] for t in tags if t.startswith("wearable-day:")), "")
        native = any(t.startswith("wearable-native:") for t in tags)
        if not day and not native:
            continue
        rows.append(
            Claim(
                owner_id=fact.owner_id,
                source_key=f"wearable:{kind}",
                scope_key=f"wearable:{kind}:{day or 'native'}",
                day_key=day,
                claim_hash=_claim_hash(fact.content),
                origin="native" if native else "extracted",
                fact_id=fact.pk,
            )
        )
    Claim.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("distill", "0001_initial"), ("ledger", "0003_perf_indexes")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
