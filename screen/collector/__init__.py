"""The ScreenPipe collector: HTTP client, pure signal derivation, and the collect service."""
