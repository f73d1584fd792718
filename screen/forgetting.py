"""How screen text joins a forget (``ledger.forget.coverage``): what a screen showed (window titles, links,
read text, events, their evidence and notes) is redacted in place by the ledger's shared handler, the events'
recall vectors dropped with it; ids, keys, app names and vocabulary are exempt. A frame's image is not text and
is not touched by a forget (it expires with the frame retention)."""

from __future__ import annotations

from ledger.forget.coverage import declare

KEY = "an id or a key"
VOCAB = "a vocabulary value"
APP = "an application's name"

declare(
    "screen.ScreenSource",
    redacted=("state",),
    exempt={"base_url": "the owner's setting", "cursor_key": KEY, "last_error": "a status line",
            "preferences": "the owner's own retention phrases"},
)  # fmt: skip
declare("screen.CollectRun", exempt={"status": VOCAB, "trigger": VOCAB, "error": "a status line"})
declare(
    "screen.Signal",
    redacted=("window_name", "url", "data"),
    exempt={"kind": VOCAB, "key": KEY, "app_name": APP, "fingerprint": KEY},
)
declare("screen.ScreenFrame", exempt={"content_type": VOCAB, "reason": VOCAB})
declare(
    "screen.ScreenEvent",
    redacted=("title", "summary", "entities", "attributes", "outcome", "user_actions"),
    exempt={"key": KEY, "event_type": VOCAB, "sensitivity": VOCAB, "durability": VOCAB, "status": VOCAB,
            "context_key": KEY, "app_name": APP, "related_events": KEY, "related_conversations": KEY,
            "proposer": VOCAB},
    embedding_kind="event",
)  # fmt: skip
declare("screen.Assertion", redacted=("text", "evidence"), exempt={"content_role": VOCAB})
declare("screen.EventEvidence", redacted=("excerpt", "window_name"), exempt={"role": VOCAB, "app_name": APP})
declare("screen.EventRevision", redacted=("reason", "snapshot"), exempt={"status": VOCAB, "author": VOCAB})
declare("screen.EvidenceRequest", redacted=("params",), exempt={"kind": VOCAB})
declare("screen.Curation", redacted=("reason", "result"), exempt={"decision": VOCAB})
declare("screen.DayNote", redacted=("lines", "rollup"))
declare("screen.EntityNote", redacted=("name", "lines"))
