"""Only the person's own words can become memories about them: pasted code, quoted copy, thinking, tool
output and the assistant's replies are never a memory's evidence (a positive control proves the pass runs)."""

from __future__ import annotations

import json

import pytest

from chats.models import ChatTurn
from chats.services.imports import import_path
from ledger.models import Evidence, Fact

pytestmark = pytest.mark.django_db


def test_pasted_quoted_and_assistant_text_never_become_memories_about_the_owner(user, tmp_path):
    typed = "I moved to Leuven last spring and I teach cello at the music school there."
    pasted = ("Here is the flyer text:\n> Tester offers a variety of AI solutions for growing companies.\n"
              "> We moved our headquarters to Lisbon in 2024.\n```\nI am a senior Rust engineer.\n```")  # fmt: skip
    conv = [{"uuid": "c-owner", "name": "Flyer", "created_at": "2026-03-04T10:00:00Z", "chat_messages": [
        {"uuid": "1", "sender": "human", "created_at": "2026-03-04T10:00:00Z", "text": typed},
        {"uuid": "2", "sender": "assistant", "created_at": "2026-03-04T10:00:05Z",
         "content": [{"type": "thinking", "thinking": "The user is a retired pilot who lives in Oslo."},
                     {"type": "text", "text": "You live in Ghent and you play the violin, I think."}]},
        {"uuid": "3", "sender": "human", "created_at": "2026-03-04T10:01:00Z", "text": pasted},
    ]}]  # fmt: skip
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conv))
    import_path(owner=user, path=path, fmt="anthropic")
    facts = Fact.objects.filter(owner=user).exclude(predicate="lesson")
    quotes = list(Evidence.objects.filter(owner=user, fact__in=facts).values_list("quote", flat=True))
    assert quotes, "the positive control: the owner's typed words give at least one memory"
    own = [t.text for t in ChatTurn.objects.filter(owner=user, role="user")]
    assert all(any(q.strip() in t for t in own) for q in quotes), quotes
    contents = " ".join(f.content for f in facts).lower()
    for foreign in ("lisbon", "rust", "tester", "oslo", "pilot", "ghent", "violin"):
        assert foreign not in contents, (foreign, contents)
