"""textmem_gym/envs/scienceworld."""
