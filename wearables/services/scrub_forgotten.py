"""Forgetting reaches transcripts: the ledger calls ``forget_in_transcripts`` (a forget handler registered in
``WearablesConfig.ready``) inside the forget transaction.

For a forgotten person: registry people of that name become a placeholder (so a re-sync still recognises and
drops their turns without keeping the name), and every stored day that mentions them is re-processed through
the pipeline's local steps, whose last step (``wearables.pipeline.redact_forgotten``) removes their turns and redacts
their name. The day's content hash changes with it, and a later sync of the same provider data produces the
same, already-forgotten day: nothing is written. Recall vectors of removed utterances and cached context
blocks go too.
"""

from __future__ import annotations

from django.db.models import Q

from accounts.fields import contains_any
from ledger.forget.hooks import FORGOTTEN, ForgetEvent
from ledger.recall.forget_copies import purge_cached_blocks
from ledger.recall.models import Embedding
from wearables.models import Conversation, Person, Utterance


def _mentions(owner, names) -> Q:
    q = contains_any(Utterance.objects.owned_by(owner), "text", names)  # the text may be encrypted at rest
    for name in names:
        q |= Q(speaker_name__icontains=name) | Q(provider_speaker_name__icontains=name)
    return q


def forget_in_transcripts(event: ForgetEvent) -> dict[str, int]:
    if event.scope != "entity" or not event.matcher or not event.names:
        return {}
    from wearables.services.sync import reprocess_stored_days

    owner = event.owner
    people = [p for p in Person.objects.owned_by(owner).filter(is_self=False) if event.matcher.is_forgotten(p.name)]
    for person in people:
        person.name = f"{FORGOTTEN} {person.public_id.hex[:8]}"
        person.save(update_fields=["name"])
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
    return {"transcript_days": days, "utterances_removed": max(removed, 0), "utterance_vectors": vectors}
