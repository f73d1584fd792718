"""The shared trust gate: any conversation in, trust-scored memories out, written through ``ledger.services``.

Imports ``ledger`` and ``accounts`` only; never a source app (wearables, chats, screen)."""
