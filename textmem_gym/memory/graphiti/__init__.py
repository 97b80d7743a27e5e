"""Graphiti through its own package (``graphiti-core``): embedded Kuzu, the shipped MiniLM embeddings, an endpoint."""

from textmem_gym.memory.graphiti.memory import GraphitiMemory

__all__ = ["GraphitiMemory"]
