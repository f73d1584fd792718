from django.apps import AppConfig


class ChatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chats"
    verbose_name = "Chats and coding agents"

    def ready(self) -> None:
        from accounts import portability
        from chats import hooks

        hooks.register()
        # Export/restore (manage.py export|import): conversations with their turns (pending signals = turns not
        # yet distilled), import records and the lesson rows that are not ledger facts. Parents before children.
        portability.register(
            "chats",
            [
                "chats.ChatSession",
                "chats.ChatTurn",
                "chats.ImportedFile",
                "chats.Lesson",
                "chats.Prediction",
                "chats.HookDelivery",
                "chats.SleepReport",
            ],
        )
