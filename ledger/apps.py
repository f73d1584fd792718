from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"

    def ready(self) -> None:
        # Every text field of the ledger's own models, the ground's and the framework's joins the forget (each
        # source declares its own); the shared handler redacts the fields declared "redacted" in place.
        from ledger.forget.coverage import declare_ground, declare_ledger, redact_declared
        from ledger.forget.hooks import register_forget_handler

        declare_ledger()
        declare_ground()
        register_forget_handler(redact_declared)
