"""Bee connector (the local ``bee proxy`` by default, or the direct host with a Bearer token)."""
