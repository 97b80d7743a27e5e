"""textmem_gym/memory/arigraph."""
