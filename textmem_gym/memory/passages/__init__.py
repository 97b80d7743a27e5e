"""Retrieval baselines over what was seen: BM25 and dense top-k passages (one passage per update)."""

from textmem_gym.memory.embeddings import minilm_embedder, minilm_path
from textmem_gym.memory.passages.memory import BM25Memory, DenseMemory, PassageMemory, passage_text

__all__ = ["BM25Memory", "DenseMemory", "PassageMemory", "minilm_embedder", "minilm_path", "passage_text"]
