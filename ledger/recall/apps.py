from django.apps import AppConfig


class RecallConfig(AppConfig):
    name = "ledger.recall"
    label = "recall"
    verbose_name = "Recall"
