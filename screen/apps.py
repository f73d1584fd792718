from django.apps import AppConfig


class ScreenConfig(AppConfig):
    name = "screen"
