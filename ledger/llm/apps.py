from django.apps import AppConfig


class LLMConfig(AppConfig):
    name = "ledger.llm"
    label = "llm"
    verbose_name = "LLM path"

    def ready(self):
        from django.core import checks

        from ledger.llm.health import configuration_check

        checks.register(configuration_check, "llm")
