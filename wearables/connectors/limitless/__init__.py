"""Limitless Pendant connector (Developer API, ``X-API-Key``)."""
