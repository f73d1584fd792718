"""Ledger models (filled by the ledger issue)."""
