"""Chats services: storing conversations, ingest, distilling sessions, lessons, sleep, hooks and imports."""
