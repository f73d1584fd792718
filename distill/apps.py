from django.apps import AppConfig


class DistillConfig(AppConfig):
    name = "distill"
    verbose_name = "Distill (trust gate)"

    def ready(self) -> None:
        from distill import forgetting  # noqa: F401  (declares how the gate's stored text joins a forget)
        from distill.stored_extraction import forget_for_owner
        from ledger.forget.hooks import register_forget_handler

        register_forget_handler(forget_for_owner)
