"""Accounts: the owner's profile (display name, timezone), API tokens, owner scoping and the domain error type.

The lowest layer: imports no other app of the project, so every app (ledger included) can build on it."""
