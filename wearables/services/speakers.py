"""The speaker registry and per-conversation speaker corrections: writers of Person, SpeakerIdentity and
SpeakerAssignment. Every change re-labels the stored days it affects (no provider fetch needed)."""

from __future__ import annotations

import re

from django.db import transaction

from accounts.owned import get_owned_or_404
from wearables.models import Conversation, Person, Source, SpeakerAssignment, SpeakerIdentity
from wearables.pipeline.speakers import GENERIC_LABELS
from wearables.services.errors import WearablesError
from wearables.services.sources import get_source
from wearables.services.sync import reprocess_stored_days

# Per-conversation diarization labels: they name nobody outside their own conversation.
_DIARIZATION_RE = re.compile(r"^(?:\d+|speaker[_ ]?\d+|unknown)$", re.IGNORECASE)


def _clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not name or len(name) > 100:
        raise WearablesError("A speaker name needs 1 to 100 characters")
    return name


def _self_person(owner, name: str | None = None) -> Person:
    me = Person.objects.owned_by(owner).filter(is_self=True).first()
    if me is None:
        from accounts.services import get_settings

        name = name or get_settings(owner).display_name or owner.get_username()
        me, _ = Person.objects.get_or_create(owner=owner, name=name)
        me.is_self = True
        me.save(update_fields=["is_self"])
    return me


def _person(owner, name: str) -> Person:
    person, _ = Person.objects.get_or_create(owner=owner, name=name)
    return person


@transaction.atomic
def set_self_name(*, owner, name: str) -> Person:
    """Record the name others use for the user (text cues) and that a speaker named ``name`` is them."""
    name = _clean_name(name)
    me = Person.objects.owned_by(owner).filter(is_self=True).first()
    clash = Person.objects.owned_by(owner).filter(name=name).exclude(pk=getattr(me, "pk", None)).first()
    if me is None and clash is not None:
        me = clash
    elif clash is not None:
        raise WearablesError(f"{name!r} is already a different person in your speaker registry")
    if me is None:
        me = Person.objects.create(owner=owner, name=name, is_self=True)
    else:
        me.name, me.is_self = name, True
        me.save(update_fields=["name", "is_self"])
    # Limitless and Omi (developer API) can carry the user's own name as a speaker name.
    for source in Source.objects.owned_by(owner).filter(kind__in=["limitless", "omi"]):
        SpeakerIdentity.objects.update_or_create(
            owner=owner,
            source=source,
            identity_kind=SpeakerIdentity.Kind.DISPLAY_NAME,
            key=name.lower(),
            defaults={"person": me},
        )
    reprocess_stored_days(owner=owner)  # same transaction: the mapping and the relabeled days land together
    return me


def is_stable_label(kind: str, label: str) -> bool:
    """Can a mapping of this label apply everywhere? Omi person ids and Limitless display names can."""
    if kind == "bee":
        return False
    return bool(label) and label.lower() not in GENERIC_LABELS and not _DIARIZATION_RE.match(label)


@transaction.atomic
def set_speaker(
    *, owner, kind: str, label: str, name: str, is_self: bool = False, conversation: Conversation | str | None = None
):
    """Name a speaker. With ``conversation`` (a Conversation or its provider id) the naming applies to that
    conversation only and wins over everything inferred; without, ``label`` must be a stable identity (a Limitless
    display name, an Omi person id) and the mapping applies everywhere it appears.

    ``is_self`` marks the speaker as the user. Stored days are relabeled after commit.
    Raises WearablesError for an unstable label without a conversation, or an unknown conversation.
    """
    source = get_source(owner, kind)
    label = (label or "").strip()
    if not label:
        raise WearablesError("A speaker label is required")
    person = _self_person(owner, _clean_name(name)) if is_self else _person(owner, _clean_name(name))
    if person.is_self and not is_self:
        raise WearablesError(f"{person.name!r} is you; use --self (or 'this is me') to mark yourself")
    if conversation is not None:
        external_id = conversation.external_id if isinstance(conversation, Conversation) else str(conversation)
        exists = Conversation.objects.owned_by(owner).filter(transcript__source=source, external_id=external_id)
        if not exists.exists():
            raise WearablesError(f"No {source.kind} conversation {external_id!r}")
        if is_self:
            # Only one wearer per conversation: a new "this is me" replaces an earlier one.
            SpeakerAssignment.objects.owned_by(owner).filter(
                source=source, conversation_external_id=external_id, person=person
            ).exclude(speaker_label=label).delete()
        obj, _ = SpeakerAssignment.objects.update_or_create(
            owner=owner,
            source=source,
            conversation_external_id=external_id,
            speaker_label=label,
            defaults={"person": person},
        )
        # Only that day changes (every source of it: Bee may align against the corrected conversation).
        days = list(exists.values_list("transcript__local_date", flat=True).distinct())
        reprocess_stored_days(owner=owner, dates=days)
        return obj
    else:
        if not is_stable_label(source.kind, label):
            raise WearablesError(
                f"{label!r} is a per-conversation label on {source.kind}; name it for one conversation "
                "(Transcripts page, or --conversation ID)"
            )
        identity_kind = (
            SpeakerIdentity.Kind.DISPLAY_NAME if source.kind == "limitless" else SpeakerIdentity.Kind.PERSON_ID
        )
        obj, _ = SpeakerIdentity.objects.update_or_create(
            owner=owner, source=source, identity_kind=identity_kind, key=label.lower(), defaults={"person": person}
        )
    reprocess_stored_days(owner=owner)  # same transaction: the mapping and the relabeled days land together
    return obj


def set_speaker_for_conversation(*, owner, conversation_public_id, label: str, name: str = "", is_self: bool = False):
    """The Transcripts page's "this is me" / rename: one conversation, by its public id."""
    conv = get_owned_or_404(
        Conversation.objects.select_related("transcript__source"), owner, public_id=conversation_public_id
    )
    if not conv.utterances.filter(speaker_label=label).exists():
        raise WearablesError(f"No speaker {label!r} in this conversation")
    if is_self and not name:
        name = _self_person(owner).name
    return set_speaker(
        owner=owner, kind=conv.transcript.source.kind, label=label, name=name, is_self=is_self, conversation=conv
    )
