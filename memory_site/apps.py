from django.apps import AppConfig


class MemorySiteConfig(AppConfig):
    name = "memory_site"
    verbose_name = "Almanac accounts"
