"""textmem_gym/envs/jericho."""
