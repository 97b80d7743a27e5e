"""Mem0 through its own package (``mem0ai``): a local vector store, the shipped MiniLM embeddings, an endpoint."""

from textmem_gym.memory.mem0.memory import Mem0Memory

__all__ = ["Mem0Memory"]
