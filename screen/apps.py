from django.apps import AppConfig


class ScreenConfig(AppConfig):
    name = "screen"

    def ready(self):
        # Screen events become searchable by recall (the "events" scope); ledger never imports screen.
        from ledger.forget.hooks import register_forget_hook
        from ledger.recall.providers import register_provider
        from screen import forgetting  # noqa: F401  (declares how screen text joins a forget)
        from screen.recall_provider import EventProvider
        from screen.services.curate import forget_memories

        register_provider("events", EventProvider())
        register_forget_hook(forget_memories)
        # Export/restore (manage.py export|import): source settings, cursor and preferences, signals, frames,
        # events with their assertions, evidence, revisions and curations, and the notes. Parents before children.
        from accounts import export_registry

        export_registry.register(
            "screen",
            [
                "screen.ScreenSource",
                "screen.CollectRun",
                "screen.Signal",
                "screen.ScreenFrame",
                "screen.ScreenEvent",
                "screen.Assertion",
                "screen.EventEvidence",
                "screen.EventRevision",
                "screen.EvidenceRequest",
                "screen.Curation",
                "screen.DayNote",
                "screen.EntityNote",
            ],
        )
