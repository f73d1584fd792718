"""The domain error type. The API maps every ``DomainError`` to ``{"detail": message}`` with its ``status_code``;
pages render ``message`` next to the form. Apps subclass it for their own errors."""

from __future__ import annotations


class DomainError(Exception):
    status_code = 400

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message or self.__class__.__doc__ or self.__class__.__name__
