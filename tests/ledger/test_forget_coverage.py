"""Every model field that can hold text joins the forget: scrubbed by its app's forget handler, redacted in
place by the shared handler, or exempt with a reason (``ledger.forget.coverage``). A new table or field that
holds text fails here until its app declares it."""

from __future__ import annotations

import pytest

from ledger.forget.coverage import EXEMPT, REDACTED, declared
from tests.stored_text import text_fields


def _label(model, field) -> str:
    return f"{model._meta.label}.{field.name}"


def test_the_scan_sees_the_tables_that_hold_talk():
    labels = {_label(m, f) for m, f in text_fields()}
    assert len(labels) > 150
    assert {"wearables.Utterance.text", "ledger.Evidence.quote", "chats.ChatTurn.extras", "recall.Embedding.vector",
            "ledger.Entity.aliases", "screen.Signal.data"} <= labels  # fmt: skip


def test_every_text_field_of_every_model_joins_the_forget_or_says_why_not():
    coverage = declared()
    missing = [_label(m, f) for m, f in text_fields() if f.name not in getattr(coverage.get(m._meta.label), "how", {})]
    assert not missing, "declare these in ledger.forget.coverage (scrubbed, redacted or exempt):\n" + "\n".join(missing)


def test_every_declaration_names_a_real_field_and_every_exemption_a_reason():
    real = {(m._meta.label, f.name) for m, f in text_fields()}
    stale = [f"{model}.{name}" for model, d in declared().items() for name in d.how if (model, name) not in real]
    assert not stale, stale
    unexplained = [f"{model}.{n}" for model, d in declared().items() for n, how in d.how.items()
                   if how != REDACTED and not d.reasons.get(n)]  # fmt: skip
    assert not unexplained, unexplained
    assert sum(how == EXEMPT for d in declared().values() for how in d.how.values()) > 50


@pytest.mark.django_db
def test_fields_declared_redacted_lose_the_name_when_the_person_is_forgotten(user):
    from ledger.forget.services import forget_person_names
    from ledger.models import IdentityNarrative
    from screen.models import DayNote
    from wearables.models import NativeMemoryImport, Source

    source = Source.objects.create(owner=user, kind="bee")
    memory = NativeMemoryImport.objects.create(
        owner=user, source=source, external_id="n1", text="Wren Calloway lent me her kayak", content_hash="x"
    )
    note = DayNote.objects.create(owner=user, local_date="2026-10-02", lines=[{"event": 7, "text": "Wren's receipt"}])
    narrative = IdentityNarrative.objects.create(owner=user, text="Close to Wren Calloway since school.")
    kept = NativeMemoryImport.objects.create(
        owner=user, source=source, external_id="n2", text="Prefers green tea", content_hash="y"
    )

    report = forget_person_names(owner=user, names=["Wren Calloway"])

    for row in (memory, note, narrative):
        row.refresh_from_db()
    assert memory.text == "[forgotten] lent me her kayak"
    assert note.lines == [{"event": 7, "text": "[forgotten] receipt"}]
    assert "Wren" not in narrative.text
    assert NativeMemoryImport.objects.get(pk=kept.pk).text == "Prefers green tea"
    assert report.copies["wearables.NativeMemoryImport_redacted"] == 1
