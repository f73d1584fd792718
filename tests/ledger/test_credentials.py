"""Credentials in their published formats are redacted wherever they stand, before anything reaches disk.

The values are drawn from random characters in each service's format (``bench.redaction.credential_values``:
no real key is written down).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.redaction import ALNUM, random_chars
from bench.redaction import credential_values as credentials
from chats.models import ChatTurn
from ledger.redaction import REDACTED, redact_text, redact_turns

SETTINGS = [
    "the deploy failed until I exported {} and ran it again",
    "Kopírujte klíč {} do konfigurace, prosím.",
    "token: {}",
    "curl -H 'Authorization: Bearer {}' https://api.example.org/v2/items",
    "{}",
    "Wiremu pasted {} into the shared notes by mistake, rotate it today.",
]


@pytest.mark.parametrize("kind", sorted(credentials(0)))
@pytest.mark.parametrize("sentence", SETTINGS)
def test_a_credential_in_any_sentence_is_redacted_and_the_words_around_it_stay(kind, sentence):
    value = credentials(sum(map(ord, kind + sentence)))[kind]
    text = sentence.format(value)
    out = redact_text(text)
    assert value not in out and value[8:-4] not in out
    assert out == sentence.format(REDACTED)
    assert redact_text(out) == out


def test_a_password_in_a_url_and_a_private_key_block_are_redacted():
    rng = random.Random(7)
    password = random_chars(rng, 14)
    body = "\n".join(random_chars(rng, 64, ALNUM + "+/") for _ in range(4))
    text = (
        f"git clone https://tevita:{password}@git.example.org/tools.git\n"
        f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nthen restart the agent"
    )
    out = redact_text(text)
    assert password not in out and body.split("\n")[1] not in out
    assert "https://tevita:[redacted]@git.example.org/tools.git" in out
    assert out.endswith("then restart the agent")


PLAIN_TEXTS = [
    "commit 4f8b2e6a9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f fixed the parser",
    "see https://docs.python.org/3/library/re.html#re.Pattern for the flags",
    "the file is /var/lib/almanac/backups/2026-12-07T10-00-00.dump",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Ngā mihi nui ki a koutou katoa, ka kite anō ā te Rātapu",
    "uuid 3f2c1e9a-7b4d-4e8f-9a1c-2d3e4f5a6b7c for the import run",
    "the flight NZ0103 leaves at 06:45 from gate 12",
]


@pytest.mark.parametrize("text", PLAIN_TEXTS)
def test_hashes_paths_links_and_identifiers_are_no_credentials(text):
    assert redact_text(text) == text


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.lists(st.sampled_from(SETTINGS), min_size=1, max_size=4))
def test_every_credential_of_a_conversation_is_gone_whichever_turn_holds_it(seed, sentences):
    values = list(credentials(seed).values())
    turns = [s.format(values[i % len(values)]) for i, s in enumerate(sentences)]
    out = redact_turns(turns)
    assert not any(v in t for v in values for t in out)


@pytest.mark.django_db
def test_a_token_pasted_into_an_agent_conversation_is_never_stored(api, user):
    value = credentials(11)["github"]
    body = {"agent_id": "agent-1", "conversation_id": "c-tokens", "turns": [{"user": f"use {value} for the mirror"}]}
    assert api.post("/memory/ingest", body).status_code < 300
    stored = ChatTurn.objects.get(owner=user, role="user").text
    assert value not in stored and "[redacted]" in stored
