"""Tests of textmem_gym.llm: client, cache, accounting, JSON parsing and the local server."""
