"""Hardening tests reuse the wearables fixtures: imitation servers and a clean provider environment."""

from tests.wearables.conftest import _no_provider_env, serve  # noqa: F401  (pytest fixtures)
