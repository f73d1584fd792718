"""Domain errors. The API maps every ``DomainError`` to ``{"detail": message}`` with its ``status_code``."""

from __future__ import annotations


class DomainError(Exception):
    status_code = 400

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message or self.__class__.__doc__ or self.__class__.__name__
