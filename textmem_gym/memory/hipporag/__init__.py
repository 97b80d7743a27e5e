"""HippoRAG 2 (Personalized PageRank over a phrase–passage graph), written from its paper and repository."""

from textmem_gym.memory.hipporag.graph import PhrasePassageGraph
from textmem_gym.memory.hipporag.memory import HippoRAGMemory
from textmem_gym.memory.hipporag.openie import LLMOpenIE, RulesOpenIE

__all__ = ["HippoRAGMemory", "LLMOpenIE", "PhrasePassageGraph", "RulesOpenIE"]
