from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "ledger.recall"
    label = "recall"
    verbose_name = "Recall"

    def ready(self):
        # The ledger's own layers; other apps register theirs (transcript, events) from their own ready().
        from ledger.recall.ledger_providers import EpisodeProvider, FactProvider, PinnedProvider
        from ledger.recall.providers import register_provider

        register_provider("pinned", PinnedProvider())
        register_provider("episodes", EpisodeProvider())
        register_provider("facts", FactProvider())

        from ledger.forget.hooks import register_forget_hook
        from ledger.recall.forget_copies import forget_copies

        register_forget_hook(forget_copies)
