"""textmem_gym/memory/davis."""
