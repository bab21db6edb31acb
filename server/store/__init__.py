"""Persistence: the Redis store, its key names, and the embedded Redis."""
