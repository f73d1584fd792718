from django.apps import AppConfig


class WearablesConfig(AppConfig):
    name = "wearables"
