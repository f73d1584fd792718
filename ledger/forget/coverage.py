"""What a forget reaches: every model field that can hold text is declared by the app that owns it.

Three ways a field joins the forget:

- ``scrubbed``: the app's own forget handler rewrites or removes it (a forgotten person's turns deleted, their
  name redacted, derivatives rebuilt; ``ledger.forget.hooks``);
- ``redacted``: the shared ``redact_declared`` handler (registered by the ledger) rewrites every row of the owner,
  the person's names replaced by ``[forgotten]`` wherever they stand in the text or the JSON, saving through
  the model so search vectors follow, and dropping the recall vectors of rows that changed;
- ``exempt``: it never holds words of talk or of people (ids, hashes, settings, vocabulary), said with a reason.

``tests/ledger/test_forget_coverage.py`` lists every text field of every model (encrypted ones included) and
fails while one is undeclared, so a new table that holds text cannot miss the forget. The ledger declares its
own models, the ground (``accounts``) and the framework's tables below; each source declares its own from the
module that holds its forget handler. Declarations hold model labels as strings: nothing here imports a source.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.apps import apps

logger = logging.getLogger(__name__)

SCRUBBED, REDACTED, EXEMPT = "scrubbed", "redacted", "exempt"


@dataclass
class Declared:
    """One model's text fields and how each joins the forget."""

    model: str  # "app_label.Model"
    how: dict[str, str] = field(default_factory=dict)  # field name -> SCRUBBED | REDACTED | EXEMPT
    reasons: dict[str, str] = field(default_factory=dict)  # field name -> why it is exempt (or who scrubs it)
    owner_path: str = "owner"
    embedding_kind: str = ""  # recall's vector kind for this model's rows (dropped when a row is redacted)


_DECLARED: dict[str, Declared] = {}


def declare(
    model: str,
    *,
    scrubbed: dict[str, str] | None = None,
    redacted: tuple[str, ...] = (),
    exempt: dict[str, str] | None = None,
    owner_path: str = "owner",
    embedding_kind: str = "",
) -> None:
    """Declare how ``model``'s text fields join the forget. ``scrubbed`` and ``exempt`` map a field to the
    handler that scrubs it or the reason it never holds words of people. Calling again adds to the model."""
    entry = _DECLARED.setdefault(model, Declared(model))
    entry.owner_path = owner_path
    entry.embedding_kind = embedding_kind or entry.embedding_kind
    for name, who in (scrubbed or {}).items():
        entry.how[name], entry.reasons[name] = SCRUBBED, who
    for name in redacted:
        entry.how[name] = REDACTED
    for name, why in (exempt or {}).items():
        entry.how[name], entry.reasons[name] = EXEMPT, why


def declared() -> dict[str, Declared]:
    return dict(_DECLARED)


# --- the shared handler: redact declared fields in place ----------------------------------------------------
def redact_value(value, matcher):
    """``value`` with the forgotten names redacted, strings anywhere inside lists and dicts included."""
    if isinstance(value, str):
        return matcher.redact(value)
    if isinstance(value, list):
        return [redact_value(v, matcher) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v, matcher) for k, v in value.items()}
    return value


def redact_declared(event) -> dict[str, int]:
    """Forget handler: every ``redacted`` field of every declared model, for the event's owner."""
    if event.scope != "entity" or not event.matcher:
        return {}
    from ledger.recall.models import Embedding

    counts: dict[str, int] = {}
    for entry in _DECLARED.values():
        names = [n for n, how in entry.how.items() if how == REDACTED]
        if not names:
            continue
        model = apps.get_model(entry.model)
        changed = []
        rows = _rows_that_may_name(model, names, entry.owner_path, event)
        for row in rows.only("pk", *names).iterator():
            dirty = []
            for name in names:
                before = getattr(row, name)
                after = redact_value(before, event.matcher)
                if after != before:
                    setattr(row, name, after)
                    dirty.append(name)
            if dirty:
                row.save(update_fields=dirty)  # through the model: search vectors and encryption follow
                changed.append(row.pk)
        if changed:
            counts[f"{entry.model}_redacted"] = len(changed)
            if entry.embedding_kind:
                Embedding.objects.filter(owner=event.owner, kind=entry.embedding_kind, ref_id__in=changed).delete()
    if counts:
        logger.info("forget: redacted in place %s", counts)
    return counts


def _rows_that_may_name(model, names: list[str], owner_path: str, event):
    """The owner's rows whose text may name the person: found in SQL (any name form, case-insensitive, the JSON
    read as text); with encryption at rest an encrypted column is read row by row instead."""
    from django.db.models import Q, TextField
    from django.db.models.functions import Cast

    from accounts import crypto

    rows = model._default_manager.filter(**{owner_path: event.owner})
    fields = [model._meta.get_field(n) for n in names]
    if crypto.enabled() and any(type(f).__name__.startswith("Encrypted") for f in fields):
        return rows
    texts = {f"_forget_{f.name}": Cast(f.name, TextField()) for f in fields}
    q = Q(pk__in=[])
    for alias in texts:
        for word in event.names:
            q |= Q(**{f"{alias}__icontains": word})
    return rows.annotate(**texts).filter(q)


# --- the ledger's own models, the ground, and the framework's tables -----------------------------------------
HASH = "a hash or an id, never text anyone said"
VOCAB = "a value from a fixed vocabulary (a status, a kind, a decision)"
LABEL = "a source's label or key (e.g. wearable:limitless), never a person"
SETTINGS = "the owner's own settings or credentials"
FRAMEWORK = "the framework's bookkeeping (names of permissions, content types, functions)"


def declare_ledger() -> None:
    declare(
        "ledger.ChainHead",
        exempt={"head_commit_id": HASH},
    )
    declare(
        "ledger.Commit",
        scrubbed={"mutations": "ledger.forget.services: forgotten objects' payloads dropped, hashes kept"},
        exempt={"commit_id": HASH, "parent_commit_id": HASH, "author": VOCAB, "author_label": LABEL},
    )
    declare(
        "ledger.Entity",
        scrubbed={"name": "ledger.forget.services: the person's entities deleted", "aliases": "same"},
        exempt={"kind": VOCAB},
    )
    fact_keys = {
        "subject_kind": VOCAB, "predicate": VOCAB, "importance": VOCAB, "status": VOCAB, "status_reason": VOCAB,
        "source_label": LABEL, "refusal_commit_id": HASH, "proposition_key": HASH, "text_key": HASH,
        "source_hash": HASH, "created_commit_id": HASH, "last_commit_id": HASH, "token_hashes": HASH,
        "object_entity_ids": HASH, "uncertainty_reasons": VOCAB,
    }  # fmt: skip
    declare(
        "ledger.Fact",
        scrubbed={
            "content": "ledger.forget.services: facts about or naming the person forgotten",
            "arguments": "same",
            "tags": "same",
        },
        exempt=fact_keys,
    )
    declare(
        "ledger.FactVersion",
        scrubbed={"content": "deleted with its fact"},
        exempt={"status": VOCAB, "commit_id": HASH},
    )
    declare(
        "ledger.Evidence",
        scrubbed={
            "quote": "ledger.forget.services: the fact forgotten, or the quote replaced by a redacted copy",
            "details": "same",
        },
        exempt={
            "source_type": VOCAB, "source_ref": "where the evidence came from: ids, dates and links",
            "source_label": LABEL, "source_hash": HASH, "extractor_id": VOCAB, "extractor_version": VOCAB,
            "tombstone_reason": VOCAB,
        },
    )  # fmt: skip
    declare(
        "ledger.Refusal",
        exempt={n: HASH for n in ("kind", "subject_key", "proposition_key", "text_key", "decision_commit_id",
                                  "token_hashes", "source_hashes", "name_hashes")},
    )  # fmt: skip
    declare(
        "ledger.RefusalHit",
        exempt={n: HASH for n in ("decision_commit_id", "matched_on", "source_hash", "proposition_key")},
    )
    declare("ledger.IdentityOverride", redacted=("value",), exempt={"key": VOCAB})
    declare("ledger.IdentityNarrative", redacted=("text",), exempt={"fact_ids": HASH})
    declare(
        "ledger.PinnedFact",
        scrubbed={"search": "follows its fact (deleted with it)"},
        exempt={"pinned_by": VOCAB},
    )
    declare(
        "ledger.Episode",
        scrubbed={
            n: "ledger.forget.services: episodes naming the person deleted"
            for n in ("title", "summary", "topics", "entities", "decisions", "action_items")
        },
        exempt={"key": HASH, "kind": VOCAB, "status": VOCAB, "source_label": LABEL, "source_type": VOCAB,
                "source_ref": "where the episode came from: ids, dates and links"},
    )  # fmt: skip
    declare(
        "recall.Embedding",
        scrubbed={"vector": "dropped with the rows they embed (forget hooks and redact_declared)"},
        exempt={"kind": VOCAB, "space": VOCAB, "content_hash": HASH},
    )
    declare("recall.Usage", exempt={"kind": VOCAB})
    declare("recall.ConsolidationRun", exempt={"trigger": VOCAB, "status": VOCAB, "counts": "numbers",
                                               "error": "an error's class, never content"})  # fmt: skip
    declare("recall.Anchor", exempt={"kind": VOCAB})
    declare("llm.CallStat", exempt={"call_type": VOCAB})


def declare_ground() -> None:
    declare("accounts.ApiToken", exempt={"name": SETTINGS, "prefix": HASH, "token_hash": HASH})
    declare("accounts.UserSettings", exempt={"display_name": "the owner's own name", "timezone": SETTINGS})
    declare(
        "accounts.DataKey",
        exempt={"name": SETTINGS, "wrapped": "a wrapped key", "kek_fingerprint": HASH},
        owner_path="",
    )
    declare(
        "admin.LogEntry",
        redacted=("object_repr", "change_message"),
        exempt={"object_id": HASH},
        owner_path="user",
    )
    for model, names in {
        "auth.Permission": ("name", "codename"),
        "auth.Group": ("name",),
        "contenttypes.ContentType": ("app_label", "model"),
        "django_q.Task": ("id", "name", "func", "hook", "group", "cluster"),
        "django_q.Schedule": ("name", "func", "hook", "args", "kwargs", "schedule_type", "cron", "task",
                              "cluster", "intended_date_kwarg"),
    }.items():  # fmt: skip
        declare(model, exempt={n: FRAMEWORK for n in names}, owner_path="")
    declare(
        "auth.User",
        exempt={n: "the account holder's own login" for n in ("password", "username", "first_name", "last_name",
                                                              "email")},
        owner_path="",
    )  # fmt: skip
    declare("sessions.Session", exempt={"session_key": HASH, "session_data": "a login session"}, owner_path="")
    declare(
        "django_q.OrmQ",
        exempt={"key": FRAMEWORK, "payload": "a queued task: functions and ids only (tasks take ids)"},
        owner_path="",
    )
    login = "a login attempt: username and request headers, never talk"
    base = ("user_agent", "username", "http_accept", "path_info")
    for model, names in {
        "axes.AccessFailureLog": base,
        "axes.AccessAttempt": (*base, "get_data", "post_data"),
        "axes.AccessLog": (*base, "session_hash"),
    }.items():
        declare(model, exempt={n: login for n in names}, owner_path="")
