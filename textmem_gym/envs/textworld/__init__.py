"""textmem_gym/envs/textworld."""
