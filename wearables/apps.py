from django.apps import AppConfig


class WearablesConfig(AppConfig):
    name = "wearables"

    def ready(self):
        # Transcripts become searchable by recall through its provider registry (ledger never imports wearables).
        from ledger.recall.providers import register_provider
        from wearables.recall_provider import TranscriptProvider

        register_provider("transcript", TranscriptProvider())
