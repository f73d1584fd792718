"""Forget hooks: apps that keep derived copies of ledger rows elsewhere (recall's vectors and usage counts)
register a callback here, so a forget removes those copies in the same transaction.

The ledger cannot import those apps (imports run one way); they register from ``AppConfig.ready()``:

    from ledger.forgetting import register_forget_hook
    register_forget_hook(my_callback)   # my_callback(*, owner, fact_ids, fact_public_ids, episode_ids)

``fact_ids``/``episode_ids`` are primary keys of rows just deleted; ``fact_public_ids`` their uuids (strings).
"""

from __future__ import annotations

from collections.abc import Callable

ForgetHook = Callable[..., None]
_HOOKS: list[ForgetHook] = []


def register_forget_hook(hook: ForgetHook) -> None:
    if hook not in _HOOKS:
        _HOOKS.append(hook)


def unregister_forget_hook(hook: ForgetHook) -> None:
    if hook in _HOOKS:
        _HOOKS.remove(hook)


def run_forget_hooks(*, owner, fact_ids=(), fact_public_ids=(), episode_ids=()) -> None:
    """Called inside the forgetting transaction; a failing hook rolls the forget back (nothing half-done)."""
    if not (fact_ids or episode_ids):
        return
    for hook in list(_HOOKS):
        hook(owner=owner, fact_ids=list(fact_ids), fact_public_ids=list(fact_public_ids), episode_ids=list(episode_ids))
