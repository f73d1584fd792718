from django.apps import AppConfig


class WearablesConfig(AppConfig):
    name = "wearables"

    def ready(self):
        # Transcripts become searchable by recall through its provider registry (ledger never imports wearables).
        from ledger.recall.providers import register_provider
        from wearables.recall_provider import TranscriptProvider

        register_provider("transcript", TranscriptProvider())

        # A forgotten person's turns and name leave stored transcripts (ledger never imports wearables).
        from ledger.forget.hooks import register_forget_handler
        from wearables.services.scrub_forgotten import forget_in_transcripts

        register_forget_handler(forget_in_transcripts)
        # The trust gate cross-checks a claim against what the owner's other devices heard the same day.
        from distill.hooks import register_corroboration
        from wearables.services.memories import sightings

        register_corroboration("wearable:", sightings)
