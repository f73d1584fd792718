from django.apps import AppConfig


class DistillConfig(AppConfig):
    name = "distill"
    verbose_name = "Distill (trust gate)"
