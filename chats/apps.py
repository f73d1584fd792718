from django.apps import AppConfig


class ChatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chats"
    verbose_name = "Chats and coding agents"

    def ready(self) -> None:
        from accounts import export_registry
        from chats.forgetting import forget_handler
        from chats.recall_provider import ChatTurnProvider
        from ledger.forget.hooks import register_forget_handler
        from ledger.recall.providers import register_provider

        # Chat turns are searchable by recall (the "transcript" scope) and scrubbed when a person is forgotten;
        # ledger never imports chats.
        register_provider("transcript", ChatTurnProvider())
        register_forget_handler(forget_handler)
        # Export/restore (manage.py export|import): conversations with their turns (pending signals = turns not
        # yet distilled), import records and the lesson rows that are not ledger facts. Parents before children.
        export_registry.register(
            "chats",
            [
                "chats.AgentProject",
                "chats.ChatSession",
                "chats.ChatTurn",
                "chats.ImportedFile",
                "chats.Lesson",
                "chats.Prediction",
                "chats.HookDelivery",
                "chats.SleepReport",
                "chats.AgentTranscript",
                "chats.TranscriptChunk",
                "chats.AgentToolEvent",
                "chats.PrivateSpanCount",
            ],
        )
