"""textmem_gym/llm/testing."""
