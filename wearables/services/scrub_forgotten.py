"""Forgetting reaches transcripts: the ledger calls ``forget_in_transcripts`` (a forget handler registered in
``WearablesConfig.ready``) inside the forget transaction.

For a forgotten person: registry people of that name become a placeholder (so a re-sync still recognises and
drops their turns without keeping the name), provider display names that were their name go (the name itself
is kept only as a hash, in the ledger's refusals), and so do corrections and redaction rules naming them. Every
stored day that mentions them is re-processed through the pipeline's local steps, whose last step
(``wearables.pipeline.redact_forgotten``) removes their turns and redacts their name (titles and markdown
included). The day's content hash changes with it, and a later sync of the same provider data produces the
same, already-forgotten day: nothing is written. Recall vectors of removed utterances and cached context blocks
go too. Every text field of the app is declared below (``ledger.forget.coverage``).
"""

from __future__ import annotations

from django.db.models import Q

from accounts.fields import contains_any
from ledger.forget.coverage import declare
from ledger.forget.hooks import FORGOTTEN, ForgetEvent
from ledger.recall.forget_copies import purge_cached_blocks
from ledger.recall.models import Embedding
from wearables.models import Conversation, Correction, Person, RedactionRule, SpeakerIdentity, Utterance

HANDLER = "wearables.services.scrub_forgotten"
OWN = "the owner's own settings"
PROVIDER_ID = "a provider's opaque id or label"
declare("wearables.WearablesSettings", exempt={"off_phrases": OWN, "on_phrases": OWN})
declare(
    "wearables.Source",
    exempt={"kind": "a provider kind", "credentials": OWN, "base_url": OWN, "last_check_message": "a status line"},
)
declare("wearables.Person", scrubbed={"name": f"{HANDLER}: renamed to a placeholder"})
declare("wearables.SpeakerIdentity", scrubbed={"key": f"{HANDLER}: display names deleted"},
        exempt={"identity_kind": "a kind"})  # fmt: skip
declare("wearables.SpeakerAssignment", exempt={"conversation_external_id": PROVIDER_ID, "speaker_label": PROVIDER_ID})
declare("wearables.Correction", scrubbed={"wrong": f"{HANDLER}: corrections naming them deleted", "right": "same"})
declare("wearables.RedactionRule", scrubbed={"pattern": f"{HANDLER}: rules naming them deleted", "description": "same"})
declare(
    "wearables.DayTranscript",
    scrubbed={"markdown": f"{HANDLER}: the day re-rendered from its re-processed turns"},
    exempt={"timezone": OWN, "content_hash": "a hash"},
)
declare(
    "wearables.Conversation",
    scrubbed={"title": f"{HANDLER}: re-processed (name redacted)"},
    exempt={"external_id": PROVIDER_ID, "wearer_label": PROVIDER_ID, "wearer_method": "a method name",
            "elided_spans": "times of off-the-record stretches"},
)  # fmt: skip
declare(
    "wearables.Utterance",
    scrubbed={n: f"{HANDLER}: their turns removed, their name redacted in others'"
              for n in ("text", "speaker_name", "provider_speaker_name", "speaker_label", "search")},
    exempt={"provider_person_id": PROVIDER_ID},
)  # fmt: skip
declare(
    "wearables.SyncRun", redacted=("warnings", "errors"), exempt={"trigger": "a trigger name", "status": "a status"}
)
declare(
    "wearables.NativeMemoryImport", redacted=("text",), exempt={"external_id": PROVIDER_ID, "content_hash": "a hash"}
)


def _mentions(owner, names) -> Q:
    q = contains_any(Utterance.objects.owned_by(owner), "text", names)  # the text may be encrypted at rest
    for name in names:
        q |= Q(speaker_name__icontains=name) | Q(provider_speaker_name__icontains=name)
    return q


def _forget_settings(owner, matcher) -> dict[str, int]:
    """Display names, corrections and redaction rules that name the person (a re-sync needs none of them: the
    pipeline recognises the forgotten name by its hash)."""
    identities = [
        i.pk
        for i in SpeakerIdentity.objects.owned_by(owner).filter(identity_kind=SpeakerIdentity.Kind.DISPLAY_NAME)
        if matcher.is_forgotten(i.key) or matcher.spans(i.key)
    ]
    corrections = [c.pk for c in Correction.objects.owned_by(owner) if matcher.spans(f"{c.wrong} {c.right}")]
    rules = [r.pk for r in RedactionRule.objects.owned_by(owner) if matcher.spans(f"{r.pattern} {r.description}")]
    SpeakerIdentity.objects.filter(pk__in=identities).delete()
    Correction.objects.filter(pk__in=corrections).delete()
    RedactionRule.objects.filter(pk__in=rules).delete()
    return {"speaker_identities": len(identities), "corrections": len(corrections), "redaction_rules": len(rules)}


def forget_in_transcripts(event: ForgetEvent) -> dict[str, int]:
    if event.scope != "entity" or not event.matcher or not event.names:
        return {}
    from wearables.services.sync import reprocess_stored_days

    owner = event.owner
    people = [p for p in Person.objects.owned_by(owner).filter(is_self=False) if event.matcher.is_forgotten(p.name)]
    for person in people:
        person.name = f"{FORGOTTEN} {person.public_id.hex[:8]}"
        person.save(update_fields=["name"])
    counts = _forget_settings(owner, event.matcher)
    utterances = Utterance.objects.owned_by(owner)
    touched = utterances.filter(_mentions(owner, event.names) | Q(person__in=people))
    dates = set(touched.values_list("transcript__local_date", flat=True))
    titles = Q(pk__in=[])
    for name in event.names:
        titles |= Q(title__icontains=name)
    dates |= set(Conversation.objects.owned_by(owner).filter(titles).values_list("transcript__local_date", flat=True))
    before = utterances.count()
    days = reprocess_stored_days(owner=owner, dates=sorted(dates)) if dates else 0
    removed = before - utterances.count()
    gone = Embedding.objects.owned_by(owner).filter(kind="utterance").exclude(ref_id__in=utterances.values("pk"))
    vectors, _ = gone.delete()
    purge_cached_blocks()
    return {"transcript_days": days, "utterances_removed": max(removed, 0), "utterance_vectors": vectors, **counts}
