"""textmem_gym/memory/stma."""
